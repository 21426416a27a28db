package ex01suite

import (
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The history check: kubectl sends one operation at a time to server-1 and
// compares each answer with the one the reference history gives for the
// same operation at the same point (kube.MemStore, fed the same operations).
// Meanwhile a watcher follows pods from the beginning, as an informer would,
// and must receive every change to a pod exactly once, in order.

// historyKeys are the objects the probe writes.
var historyKeys = []string{"deployments/web", "deployments/api", "pods/web-1", "pods/web-2", "pods/web-3", "pods/api-1"}

// probeAims are what the probe must have met across its worlds, by their
// names in a world's counts, with what a vacuous run says it missed.
var probeAims = []struct{ count, missing string }{
	{"conflicts", "no stale precondition"},
	{"gones", "no watch from a compacted version"},
	{"replays", "no watch that replayed changes"},
	{"bursts", "no burst of changes"},
	{"followed", "no change followed by the watcher"},
}

// probe is one operation of the probe, and how to tell it.
type probe struct {
	req      any  // a kube request, CreateRequest to WatchRequest; nil for a burst
	stale    bool // the precondition is known to be stale
	describe string
}

// probed is what a probe world's clients saw: the probe's first wrong
// answer, the history the reference numbered, what the watcher followed,
// and what the probe aimed at (probeAims).
type probed struct {
	first  *suite.Failure // the first answer the probe found wrong
	truth  []kube.Event   // every accepted change, as the reference numbered it
	segs   []segment
	counts scene.Counts
}

// probeWorld builds and runs the world of seed, which draws the store's
// retain and the probe's operations.
func probeWorld(seed int64, mk func(int) kube.Storage) *world {
	w := newWorld(seed, mk, 1*ms, 20*ms, func(r *rand.Rand) int { return 3 + r.Intn(6) })
	x := &probed{counts: scene.Counts{}}
	w.probe = x
	ref := kube.NewMemStore(w.retain)
	done := false

	w.Client("kubectl", func(p *sim.Proc, _ *kube.Client) {
		api := w.unrecorded(p) // the probe judges each answer itself: nothing reads a record
		n := 40 + p.Rand().Intn(30)
		for i := 0; i < n && x.first == nil; i++ {
			pr := nextProbe(p.Rand(), ref, w.retain)
			if pr.req == nil {
				// More changes than the store retains, accepted in one
				// instant on server-1 itself, while the watcher is most
				// likely parked in a watch: when it wakes, its version
				// has been compacted away.
				reqs := burst(p.Rand(), ref, w.retain+1+p.Rand().Intn(3))
				for _, req := range reqs {
					if ev, err := applyRef(p, ref, req); err == nil {
						if ev, ok := ev.(kube.Event); ok {
							x.truth = append(x.truth, ev)
						}
					}
				}
				w.W.Go(server, "burst", func(bp *sim.Proc) {
					for _, req := range reqs {
						w.aud.Serve(bp, "a burst on server-1", req.req)
					}
				})
				x.counts["bursts"]++
				p.Sleep(5 * ms)
				continue
			}
			start := p.Now()
			got, gotErr := apply(api, pr)
			want, wantErr := applyRef(p, ref, pr)
			if wantErr == nil {
				if ev, ok := want.(kube.Event); ok {
					x.truth = append(x.truth, ev)
				}
			}
			if x.first = compare(pr, start, got, gotErr, want, wantErr); x.first != nil {
				break
			}
			switch {
			case pr.stale && errors.Is(wantErr, kube.ErrConflict):
				x.counts["conflicts"]++
			case errors.Is(wantErr, kube.ErrGone): // only a watch is answered Gone
				x.counts["gones"]++
			default:
				if evs, ok := want.([]kube.Event); ok && len(evs) > 1 {
					x.counts["replays"]++
				}
			}
		}
		// Give the watcher time to catch up, then end the run.
		p.Sleep(500 * ms)
		done = true
		w.W.Stop()
	})

	// The watcher follows pods from the beginning; after a Gone it lists
	// again and follows from the list's version.
	w.Client("watcher", func(p *sim.Proc, _ *kube.Client) {
		api := w.unrecorded(p).Quiet()
		x.segs = append(x.segs, segment{from: 0})
		rv := int64(0)
		for !done {
			evs, err := api.Watch("pods", rv, 400*ms)
			switch {
			case errors.Is(err, kube.ErrGone):
				l, err := api.List("pods", kube.ReadOptions{})
				if err != nil {
					continue
				}
				rv = l.ResourceVersion
				x.segs = append(x.segs, segment{from: rv})
			case err != nil:
				p.Sleep(10 * ms)
			default:
				last := &x.segs[len(x.segs)-1]
				last.evs = append(last.evs, evs...)
				if len(evs) > 0 {
					rv = evs[len(evs)-1].Object.ResourceVersion
				}
			}
		}
	})
	w.Lanes("kubectl", server, "watcher")
	w.Run(time.Minute)
	return w
}

// retained tells the failures judge finds with the store's retain at the
// head of their details.
func retained(judge scene.Judge[*world]) scene.Judge[*world] {
	return func(w *world) *suite.Failure {
		f := judge(w)
		if f != nil {
			f.Details = fmt.Sprintf("store keeps the last %d changes (retain=%d)\n%s", w.retain, w.retain, f.Details)
		}
		return f
	}
}

// probeAnswered: the probe found every answer of the store the
// reference's.
func probeAnswered(w *world) *suite.Failure {
	if w.probe.first == nil {
		return nil
	}
	f := *w.probe.first
	return &f
}

// probeCounts is what a probe world aimed at, and the changes its watcher
// followed.
func probeCounts(w *world) scene.Counts {
	c := maps.Clone(w.probe.counts)
	for _, s := range w.probe.segs {
		c["followed"] += len(s.evs)
	}
	return c
}

// probedEnough: across its worlds the probe met every one of probeAims.
func probedEnough(sum scene.Counts, _ []int64) *suite.Failure {
	var missing []string
	for _, aim := range probeAims {
		if sum[aim.count] == 0 {
			missing = append(missing, aim.missing)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return &suite.Failure{Name: "vacuous-run", Clause: course.OneHistory,
		Story: "the probe tested nothing worth passing: " + strings.Join(missing, ", ")}
}

// segment is a stretch the watcher followed: the events it received after
// watching from version from, until a Gone made it list again.
type segment struct {
	from int64
	evs  []kube.Event
}

// watcherFollowed: each stretch the watcher followed is exactly the history
// of pods after its start, and the last stretch reached the end.
func watcherFollowed(w *world) *suite.Failure {
	segs, truth, at := w.probe.segs, w.probe.truth, w.W.Now()
	var pods []kube.Event
	for _, ev := range truth {
		if ev.Object.Kind == "pods" {
			pods = append(pods, ev)
		}
	}
	for i, s := range segs {
		from, got := s.from, s.evs
		var want []kube.Event
		for _, ev := range pods {
			if ev.Object.ResourceVersion > from {
				want = append(want, ev)
			}
		}
		last := i == len(segs)-1
		if !last && len(got) > len(want) || last && len(got) != len(want) || !slices.Equal(got, want[:min(len(got), len(want))]) {
			k := 0
			for k < len(got) && k < len(want) && got[k] == want[k] {
				k++
			}
			story := fmt.Sprintf("the watcher followed pods from rv %d; ", from)
			switch {
			case k < len(got) && k < len(want):
				story += fmt.Sprintf("after %d correct events it received %s where the history holds %s", k, events(got[k:k+1]), events(want[k:k+1]))
			case k < len(want):
				story += fmt.Sprintf("it received %d events and never %s: a change the watch did not deliver", len(got), events(want[k:k+1]))
			default:
				story += fmt.Sprintf("it received %s, which is not in the history", events(got[k:k+1]))
			}
			return &suite.Failure{Name: "missed-change", Clause: course.OneHistory, At: at, Story: story,
				Details: fmt.Sprintf("watcher received: %s\nhistory of pods:  %s", events(got), events(want))}
		}
	}
	return nil
}

// nextProbe draws the next operation, knowing the reference's state so that
// it can aim at stale preconditions and compacted versions on purpose.
func nextProbe(r *sim.Rand, ref *kube.MemStore, retain int) probe {
	key := historyKeys[r.Intn(len(historyKeys))]
	kind, name := kube.SplitKey(key)
	obj := kube.Object{Kind: kind, Name: name}
	if kind == "deployments" {
		obj.Replicas = 1 + r.Intn(5)
	} else {
		obj.Owner = []string{"deployments/web", "deployments/api"}[r.Intn(2)]
	}
	head := ref.ResourceVersion()
	cur := int64(0)
	for _, o := range ref.Objects() {
		if o.Key() == key {
			cur = o.ResourceVersion
		}
	}
	// precondition: none, the current version, a stale one, or one on
	// either side of the current version (the boundaries a comparison
	// with < or > gets wrong), or one from the future. An absent object
	// gets none, or a version it may have had before it was deleted, or
	// one from the future: either way the answer is NotFound, whatever a
	// store would compare the precondition with.
	pre := func() (int64, bool) {
		switch x := r.Intn(14); {
		case x < 2 || cur == 0 && x < 9:
			return 0, false
		case x < 6:
			return cur, false
		case x < 9:
			return 1 + r.Int63n(cur), cur > 1 // 1..cur, mostly stale
		case x < 11:
			return max(1, cur-1), cur > 1
		case x < 13:
			return cur + 1, true
		default:
			return head + 1 + r.Int63n(3), true
		}
	}
	if r.Intn(40) == 0 {
		return probe{describe: "a burst of changes"}
	}
	switch x := r.Intn(100); {
	case x < 25:
		return probe{req: kube.CreateRequest{Object: obj}, describe: "created " + obj.String()}
	case x < 55:
		rv, _ := pre()
		obj.ResourceVersion = rv
		return probe{req: kube.UpdateRequest{Object: obj}, stale: rv != 0 && rv != cur, describe: "updated " + obj.String()}
	case x < 70:
		rv, _ := pre()
		return probe{req: kube.DeleteRequest{Key: key, ResourceVersion: rv}, stale: rv != 0 && rv != cur, describe: fmt.Sprintf("deleted %s (precondition rv=%d)", key, rv)}
	case x < 75:
		return probe{req: kube.GetRequest{Key: key}, describe: "got " + key}
	case x < 80:
		return probe{req: kube.ListRequest{Kind: kind}, describe: "listed " + kind}
	}
	rv := int64(0)
	if head > 0 {
		compacted := max(0, head-int64(retain)) // the newest dropped version
		switch r.Intn(4) {
		case 0:
			rv = r.Int63n(head + 1)
		case 1: // near the head: inside the window
			rv = max(0, head-int64(r.Intn(4)))
		default: // at the window's edge: just dropped, the edge, just kept
			rv = max(0, compacted-1+int64(r.Intn(3)))
		}
	}
	return probe{req: kube.WatchRequest{Kind: kind, ResourceVersion: rv}, describe: fmt.Sprintf("watched %s from rv %d", kind, rv)}
}

// burst draws n changes to pods, each valid against the reference as the
// ones before it leave it (creations, updates with and without a
// precondition, deletions), and applies none of them.
func burst(r *sim.Rand, ref *kube.MemStore, n int) []probe {
	live := map[string]kube.Object{}
	for _, o := range ref.Objects() {
		live[o.Key()] = o
	}
	var out []probe
	next := ref.ResourceVersion()
	pods := []string{"pods/web-1", "pods/web-2", "pods/web-3", "pods/api-1"}
	for len(out) < n {
		key := pods[r.Intn(len(pods))]
		kind, name := kube.SplitKey(key)
		cur, ok := live[key]
		next++
		switch {
		case !ok:
			obj := kube.Object{Kind: kind, Name: name, Owner: "deployments/web"}
			out = append(out, probe{req: kube.CreateRequest{Object: obj}, describe: "created " + obj.String()})
			obj.ResourceVersion = next
			live[key] = obj
		case r.Intn(3) == 0:
			rv := []int64{0, cur.ResourceVersion}[r.Intn(2)]
			out = append(out, probe{req: kube.DeleteRequest{Key: key, ResourceVersion: rv}, describe: fmt.Sprintf("deleted %s (precondition rv=%d)", key, rv)})
			delete(live, key)
		default:
			obj := cur
			obj.Owner = map[string]string{"deployments/web": "deployments/api", "deployments/api": "deployments/web"}[cur.Owner]
			obj.ResourceVersion = []int64{0, cur.ResourceVersion}[r.Intn(2)]
			out = append(out, probe{req: kube.UpdateRequest{Object: obj}, describe: "updated " + obj.String()})
			obj.ResourceVersion = next
			live[key] = obj
		}
	}
	return out
}

// apply sends the probe through kubectl; the answer is an Object, a List or
// a []kube.Event.
func apply(c *kube.Client, pr probe) (any, error) {
	switch r := pr.req.(type) {
	case kube.CreateRequest:
		return c.Create(r.Object)
	case kube.UpdateRequest:
		return c.Update(r.Object)
	case kube.DeleteRequest:
		return c.Delete(r.Key, r.ResourceVersion)
	case kube.GetRequest:
		return c.Get(r.Key, r.Opts)
	case kube.ListRequest:
		return c.List(r.Kind, r.Opts)
	}
	r := pr.req.(kube.WatchRequest)
	return c.Watch(r.Kind, r.ResourceVersion, r.Wait)
}

// applyRef applies the probe to the reference history. For an accepted
// write the answer is the kube.Event it added.
func applyRef(p *sim.Proc, ref *kube.MemStore, pr probe) (any, error) {
	if !isWrite(pr.req) {
		return kube.Handler(ref)(p, "kubectl", pr.req)
	}
	ev, changed, err := ref.Propose(pr.req)
	switch {
	case err != nil:
		return nil, err
	case !changed:
		return ev.Object, nil // a write that changed nothing
	}
	return ev, ref.Apply(p, ev)
}

// compare tells the first difference between the store's answer and the
// reference's as a failure, or returns nil.
func compare(pr probe, at time.Duration, got any, gotErr error, want any, wantErr error) *suite.Failure {
	who := fmt.Sprintf("at %s kubectl %s on %s", suite.FormatTime(at), pr.describe, server)
	if ev, ok := want.(kube.Event); ok {
		want = ev.Object
	}
	switch {
	case errKind(gotErr) != errKind(wantErr):
		f := &suite.Failure{At: at, Name: "wrong-answer", Clause: course.OneHistory,
			Story: fmt.Sprintf("%s and was answered %s; the history says %s", who, answer(got, gotErr), answer(want, wantErr))}
		switch {
		case errors.Is(wantErr, kube.ErrConflict) && gotErr == nil:
			key, rv := target(pr.req)
			f.Name = "lost-update"
			f.Story = fmt.Sprintf("%s and was answered %s; %s had changed since rv %d, so the write was based on a stale read "+
				"and must be refused with Conflict (409): instead it overwrote a newer change", who, answer(got, gotErr), key, rv)
		case errors.Is(wantErr, kube.ErrGone):
			_, rv := target(pr.req)
			f.Name = "not-gone"
			f.Story = fmt.Sprintf("%s and was answered %s; the store keeps only its last changes and rv %d is older than "+
				"all of them, so it cannot know what happened after it: the answer must be Gone (410), forcing a relist", who, answer(got, gotErr), rv)
		}
		f.Details = fmt.Sprintf("store answered:   %s\nhistory answers:  %s", answer(got, gotErr), answer(want, wantErr))
		return f
	case wantErr != nil:
		return nil // the same error: its details are the store's to word
	}
	switch w := want.(type) {
	case []kube.Event:
		g, _ := got.([]kube.Event)
		if len(g) == 0 && len(w) == 0 || slices.Equal(g, w) {
			return nil
		}
		_, rv := target(pr.req)
		return &suite.Failure{At: at, Name: "missed-change", Clause: course.OneHistory,
			Story:   fmt.Sprintf("%s and received %s; the history after rv %d holds %s", who, events(g), rv, events(w)),
			Details: fmt.Sprintf("store answered:   %s\nhistory answers:  %s", events(g), events(w))}
	case kube.List:
		g, _ := got.(kube.List)
		if g.ResourceVersion == w.ResourceVersion && (len(g.Items) == 0 && len(w.Items) == 0 || slices.Equal(g.Items, w.Items)) {
			return nil
		}
	case kube.Object:
		if g, ok := got.(kube.Object); ok && g == w {
			return nil
		}
	}
	name := "wrong-answer"
	if isWrite(pr.req) {
		name = "wrong-version"
	}
	return &suite.Failure{At: at, Name: name, Clause: course.OneHistory,
		Story:   fmt.Sprintf("%s and was answered %s; the history says %s", who, answer(got, gotErr), answer(want, wantErr)),
		Details: fmt.Sprintf("store answered:   %s\nhistory answers:  %s\nevery accepted change takes the next resourceVersion (1, 2, 3, … across all objects); a write that changes nothing takes none", answer(got, gotErr), answer(want, wantErr))}
}

// answer prints one answer: an object, a list, events, or an error kind.
func answer(v any, err error) string {
	if err != nil {
		return errKind(err)
	}
	switch x := v.(type) {
	case kube.Object:
		return x.String()
	case kube.List:
		parts := make([]string, len(x.Items))
		for i, o := range x.Items {
			parts[i] = o.String()
		}
		return fmt.Sprintf("list rv=%d [%s]", x.ResourceVersion, strings.Join(parts, ", "))
	case []kube.Event:
		return events(x)
	}
	return fmt.Sprintf("%v", v)
}
