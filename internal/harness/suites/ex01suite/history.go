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

// historyKeys are the objects the probe writes. The pod web shares its name
// with a deployment, as a Service and a Deployment named web often do in a
// real cluster: an object is its kind and its name, and a store that keys
// the present by name alone answers for the wrong object.
var historyKeys = []string{"deployments/web", "deployments/api", "pods/web-1", "pods/web-2", "pods/web", "pods/api-1"}

// probeAims are what the probe must have met across its worlds, by their
// names in a world's counts, with what a vacuous run says it missed.
var probeAims = []struct{ count, missing string }{
	{"conflicts", "no stale precondition"},
	{"gones", "no watch from a compacted version"},
	{"replays", "no watch that replayed changes"},
	{"bursts", "no burst of changes"},
	{"followed", "no change followed by the watcher"},
}

// probed is what a probe world's clients saw: the probe's first wrong
// answer, the reference and the history it numbered, what the watcher
// followed, and what the probe aimed at (probeAims).
type probed struct {
	first  *suite.Failure // the first answer the probe found wrong
	ref    *kube.MemStore // the reference history, fed the probe's operations
	truth  []kube.Event   // every accepted change, as the reference numbered it
	segs   []segment
	counts scene.Counts
}

// probeWorld builds and runs the world of seed, which draws the store's
// retain and the probe's operations.
func probeWorld(seed int64, mk func(int) kube.Storage) *world {
	w := newWorld(seed, mk, 1*ms, 20*ms, func(r *rand.Rand) int { return 3 + r.Intn(6) })
	x := &probed{ref: kube.NewMemStore(w.retain), counts: scene.Counts{}}
	w.probe = x
	done := false

	w.Client("kubectl", func(p *sim.Proc, _ *kube.Client) {
		api := w.unrecorded(p) // the probe judges each answer itself: nothing reads a record
		n := 40 + p.Rand().Intn(30)
		for i := 0; i < n && x.first == nil; i++ {
			req := nextProbe(p.Rand(), x.ref, w.retain)
			if req == nil {
				// More changes than the store retains, accepted in one
				// instant on server-1 itself, while the watcher is most
				// likely parked in a watch: when it wakes, its version
				// has been compacted away.
				reqs := burst(p.Rand(), x.ref, w.retain+1+p.Rand().Intn(3))
				for _, req := range reqs {
					x.reference(p, req)
				}
				w.W.Go(server, "burst", func(bp *sim.Proc) {
					for _, req := range reqs {
						w.aud.Serve(bp, "a burst on server-1", req)
					}
				})
				x.counts["bursts"]++
				p.Sleep(5 * ms)
				continue
			}
			start := p.Now()
			got, gotErr := apply(api, req)
			want, wantErr := x.reference(p, req)
			if x.first = compare(req, start, got, gotErr, want, wantErr); x.first != nil {
				break
			}
			switch {
			case errors.Is(wantErr, kube.ErrConflict): // a stale precondition
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
func probeAnswered(w *world) *suite.Failure { return copied(w.probe.first) }

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
	segs, at := w.probe.segs, w.W.Now()
	for i, s := range segs {
		from, got := s.from, s.evs
		var want []kube.Event
		for _, ev := range w.probe.truth {
			if ev.Object.Kind == "pods" && ev.Object.ResourceVersion > from {
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

// nextProbe draws the next operation, a kube request, knowing the
// reference's state so that it can aim at stale preconditions and compacted
// versions on purpose; nil is a burst of changes.
func nextProbe(r *sim.Rand, ref *kube.MemStore, retain int) any {
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
	if o, err := ref.Get(nil, key, kube.ReadOptions{}); err == nil {
		cur = o.ResourceVersion
	}
	// precondition: none, the current version, a stale one, or one on
	// either side of the current version (the boundaries a comparison
	// with < or > gets wrong), or one from the future. An absent object
	// gets none, or a version it may have had before it was deleted, or
	// one from the future: either way the answer is NotFound, whatever a
	// store would compare the precondition with.
	pre := func() int64 {
		switch x := r.Intn(14); {
		case x < 2 || cur == 0 && x < 9:
			return 0
		case x < 6:
			return cur
		case x < 9:
			return 1 + r.Int63n(cur) // 1..cur, mostly stale
		case x < 11:
			return max(1, cur-1)
		case x < 13:
			return cur + 1
		default:
			return head + 1 + r.Int63n(3)
		}
	}
	if r.Intn(40) == 0 {
		return nil
	}
	switch x := r.Intn(100); {
	case x < 25:
		return kube.CreateRequest{Object: obj}
	case x < 55:
		obj.ResourceVersion = pre()
		return kube.UpdateRequest{Object: obj}
	case x < 70:
		return kube.DeleteRequest{Key: key, ResourceVersion: pre()}
	case x < 75:
		return kube.GetRequest{Key: key}
	case x < 80:
		return kube.ListRequest{Kind: kind}
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
	return kube.WatchRequest{Kind: kind, ResourceVersion: rv}
}

// describe tells what kubectl did with req, for stories: "created
// pods/web-1{…}", "watched pods from rv 4".
func describe(req any) string {
	switch r := req.(type) {
	case kube.CreateRequest:
		return "created " + r.Object.String()
	case kube.UpdateRequest:
		return "updated " + r.Object.String()
	case kube.DeleteRequest:
		return fmt.Sprintf("deleted %s (precondition rv=%d)", r.Key, r.ResourceVersion)
	case kube.GetRequest:
		return "got " + r.Key
	case kube.ListRequest:
		return "listed " + r.Kind
	}
	r := req.(kube.WatchRequest)
	return fmt.Sprintf("watched %s from rv %d", r.Kind, r.ResourceVersion)
}

// burst draws n changes to pods, each valid against the reference as the
// ones before it leave it (creations, updates with and without a
// precondition, one that releases the pod from its owner, deletions), and
// applies none of them.
func burst(r *sim.Rand, ref *kube.MemStore, n int) []any {
	live := map[string]kube.Object{}
	for _, o := range ref.Objects() {
		live[o.Key()] = o
	}
	var out []any
	next := ref.ResourceVersion()
	pods := []string{"pods/web-1", "pods/web-2", "pods/web", "pods/api-1"}
	for len(out) < n {
		key := pods[r.Intn(len(pods))]
		kind, name := kube.SplitKey(key)
		cur, ok := live[key]
		next++
		switch {
		case !ok:
			obj := kube.Object{Kind: kind, Name: name, Owner: "deployments/web"}
			out = append(out, kube.CreateRequest{Object: obj})
			obj.ResourceVersion = next
			live[key] = obj
		case r.Intn(3) == 0:
			out = append(out, kube.DeleteRequest{Key: key, ResourceVersion: []int64{0, cur.ResourceVersion}[r.Intn(2)]})
			delete(live, key)
		default:
			obj := cur
			// Owners go round: web, api, none (the pod released, as a
			// controller orphans one), web again; an update replaces the
			// whole object, so one with no owner leaves the pod with none.
			obj.Owner = map[string]string{"deployments/web": "deployments/api", "deployments/api": "", "": "deployments/web"}[cur.Owner]
			obj.ResourceVersion = []int64{0, cur.ResourceVersion}[r.Intn(2)]
			out = append(out, kube.UpdateRequest{Object: obj})
			obj.ResourceVersion = next
			live[key] = obj
		}
	}
	return out
}

// apply sends req through kubectl; the answer is an Object, a List or a
// []kube.Event.
func apply(c *kube.Client, req any) (any, error) {
	switch r := req.(type) {
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
	r := req.(kube.WatchRequest)
	return c.Watch(r.Kind, r.ResourceVersion, r.Wait)
}

// reference applies req to the reference history. For an accepted write
// the answer is the kube.Event it added, which truth keeps.
func (x *probed) reference(p *sim.Proc, req any) (any, error) {
	if !kube.IsWrite(req) {
		return kube.Handler(x.ref)(p, "kubectl", req)
	}
	ev, changed, err := x.ref.Propose(req)
	switch {
	case err != nil:
		return nil, err
	case !changed:
		return ev.Object, nil // a write that changed nothing
	}
	if err := x.ref.Apply(p, ev); err != nil {
		return ev, err
	}
	x.truth = append(x.truth, ev)
	return ev, nil
}

// compare tells the first difference between the store's answer and the
// reference's as a failure, or returns nil.
func compare(req any, at time.Duration, got any, gotErr error, want any, wantErr error) *suite.Failure {
	who := fmt.Sprintf("at %s kubectl %s on %s and ", suite.FormatTime(at), describe(req), server)
	if ev, ok := want.(kube.Event); ok {
		want = ev.Object
	}
	key, rv := target(req)
	f := &suite.Failure{At: at, Name: "wrong-answer", Clause: course.OneHistory, Story: who + says(got, gotErr, want, wantErr),
		Details: fmt.Sprintf("store answered:   %s\nhistory answers:  %s", answer(got, gotErr), answer(want, wantErr))}
	switch {
	case errors.Is(wantErr, kube.ErrConflict) && gotErr == nil:
		f.Name = "lost-update"
		f.Story = fmt.Sprintf("%swas answered %s; %s had changed since rv %d, so the write was based on a stale read "+
			"and must be refused with Conflict (409): instead it overwrote a newer change", who, answer(got, gotErr), key, rv)
		return f
	case errKind(gotErr) != errKind(wantErr):
		if errors.Is(wantErr, kube.ErrGone) {
			f.Name, f.Story = "not-gone", who+notGone(got, gotErr, rv)
		}
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
		f.Name = "missed-change"
		f.Story = fmt.Sprintf("%sreceived %s; the history after rv %d holds %s", who, events(g), rv, events(w))
		return f
	case kube.List:
		if g, _ := got.(kube.List); g.ResourceVersion == w.ResourceVersion && sameItems(g.Items, w.Items) {
			return nil
		}
	case kube.Object:
		g, ok := got.(kube.Object)
		if ok && g == w {
			return nil
		}
		// An update that was accepted leaves the object as the update
		// sent it, every field: a store that answers other contents kept
		// (or lost) a field the writer set, whatever version it gave.
		if ok && replaced(req, g) {
			f.Story = fmt.Sprintf("%swas answered %s, where the update sent %s: an update replaces the whole object with the one sent, "+
				"so the stored object holds what the writer sent, no field kept from before it nor left out (the history says %s)",
				who, g, req.(kube.UpdateRequest).Object, w)
			f.Name = "wrong-version"
			return f
		}
	}
	if kube.IsWrite(req) {
		f.Name = "wrong-version"
	}
	f.Details += "\nevery accepted change takes the next resourceVersion (1, 2, 3, … across all objects); " +
		"a write that changes nothing takes none"
	return f
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
