package ex05suite

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/table"
)

// The story's scene, stated once: the page, the registry's title and the
// failure's details print it from these values.
const (
	storyDesired = 5
	storyPods    = 2
	storyWake    = 100 * ms // controller-a's first reconcile
	// storyWakeB is controller-b's first reconcile: long after
	// controller-a's creates were acknowledged, long before server-2, 400ms
	// from the history, has heard of them.
	storyWakeB = 300 * ms
	storyEnd   = 6 * time.Second
)

// storyScenario is the page's scene.
func storyScenario() scenario {
	return scenario{initial: storyDesired, pods: storyPods, startA: storyWake, startB: storyWakeB,
		period: [2]time.Duration{200 * ms, 300 * ms}, end: storyEnd}
}

// storyScene says the scene in one paragraph, from the values it is built from.
func storyScene() string {
	return fmt.Sprintf("the scene: %s wants %d pods and has %s. controller-a reads and writes through server-1, controller-b through "+
		"server-2, whose link to the history (etcd) takes %s–%s each way, so its cache is that far behind and its writes take that "+
		"long to land. controller-a wakes at %s, controller-b at %s.",
		web, storyDesired, podNamesOf("web", storyPods), suite.FormatTime(slowMin), suite.FormatTime(slowMax), suite.FormatTime(storyWake),
		suite.FormatTime(storyWakeB))
}

// podNamesOf names deployment's first n pods: "api-0 and api-1".
func podNamesOf(deployment string, n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%d", deployment, i)
	}
	if n == 2 {
		return names[0] + " and " + names[1]
	}
	return strings.Join(names, ", ")
}

// randomScenario draws the randomized scene of seed from the world's randomness.
func randomScenario(seed int64) scenario {
	w := sim.New(seed) // only to draw the scene from the seed
	defer w.Close()
	r := w.Rand()
	between := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(r.Int63n(int64(hi-lo)+1)) }
	sc := scenario{initial: 5, pods: 2, others: 2, orphan: orphan, period: [2]time.Duration{150 * ms, 300 * ms}, end: 12 * time.Second}
	sc.startA = between(50*ms, 150*ms)
	sc.startB = sc.startA + between(0, 100*ms)
	at := between(300*ms, 7000*ms)
	sc.crash = &scene.Crash{Node: []sim.NodeID{controllerA, controllerB}[r.Intn(2)], At: at, For: between(100*ms, 900*ms)}
	sc.scales = []scale{{between(2000*ms, 4000*ms), 2}, {between(4500*ms, 6500*ms), 6}, {between(7000*ms, 8000*ms), 4}}
	crossed := r.Intn(2) == 0
	if crossed {
		// In half the runs controller-a is down while web is scaled down, so
		// the slow controller-b lists the extra pods and deletes them one by
		// one, 800ms apart; controller-a comes back and web is scaled back
		// up soon after, so controller-a makes those names again while
		// controller-b's deletes of the versions it listed are on their way.
		down := sc.scales[0].at
		sc.crash = &scene.Crash{Node: controllerA, At: down - between(0, 200*ms), For: between(1500*ms, 2500*ms)}
		sc.scales[1].at = sc.crash.At + sc.crash.For + between(100*ms, 800*ms)
	}
	// Drawn apart, so that the other worlds stay as they were: in one world
	// of two the last scale-down comes with an eviction of two of the pods
	// it keeps.
	if rand.New(rand.NewSource(seed^0xe705)).Intn(2) == 0 {
		sc.evict = 2
	}
	// In one of two of the other runs the scale-down goes all the way to 0,
	// a little earlier, and web stays at 0 for zeroHold before it is scaled
	// up again, while no pod of web may stand for zeroSettle. The run lasts
	// longer: a reconcile through the slow server that read 6 just before
	// the last scale sends its creates for the six missing names one by one,
	// and they must have landed, and been deleted, before the end.
	// Drawn apart too: in one world of two server-2 loses etcd for longer
	// than it waits for an answer, so that its reads and writes fail for a
	// while, and a reconcile may be told nothing before it acts.
	if cr := rand.New(rand.NewSource(seed ^ 0xc075)); cr.Intn(2) == 0 {
		from := 1000*ms + time.Duration(cr.Int63n(int64(8000*ms)))
		sc.cut = &scene.Cut{A: etcd, B: server2, From: from, For: 1200*ms + time.Duration(cr.Int63n(int64(1200*ms)))}
	}
	if !crossed && rand.New(rand.NewSource(seed^0x5ca1e0)).Intn(2) == 0 {
		sc.scales[0] = scale{2000*ms + (sc.scales[0].at-2000*ms)/4, 0}
		sc.scales[1].at = sc.scales[0].at + zeroHold
		sc.scales[2].at = max(sc.scales[2].at, sc.scales[1].at+600*ms)
		sc.end = sc.scales[1].at + 7500*ms
	}
	return sc
}

// orphan is the pod no deployment owns in the randomized worlds: left when
// an older deployment of the same name was deleted and its pods orphaned.
// It is named as web's pods are, beyond any count web is scaled to, so a
// correct controller never needs its name; a controller that takes a pod
// named web-i for web's, whatever its owner, deletes it as an extra.
const orphan = "web-7"

// zeroHold is how long web stays at 0 in the runs that scale it to 0: long
// enough for a reconcile that read 5 just before the scale to send its five
// creates one by one through the slow server, and for those to be deleted.
const zeroHold = 5500 * ms

// randomScene says one randomized run's scene, with the pods kubectl evicts
// after the last scale and the cut between server-2 and etcd, if any.
func randomScene(sc scenario) string {
	s := fmt.Sprintf("the scene: %s wants %d and has %s, beside %s's %s and %s, a pod no deployment owns; controller-a works through server-1, controller-b through server-2 "+
		"(%s–%s from the history each way).\n  this run: controller-a starts at %s, controller-b at %s; %s; kubectl scales web to %d at %s, to %d at %s and to %d at %s.",
		web, sc.initial, podNamesOf("web", sc.pods), api, podNamesOf("api", sc.others), sc.orphan, suite.FormatTime(slowMin), suite.FormatTime(slowMax),
		suite.FormatTime(sc.startA), suite.FormatTime(sc.startB), sc.crash,
		sc.scales[0].replicas, suite.FormatTime(sc.scales[0].at), sc.scales[1].replicas, suite.FormatTime(sc.scales[1].at),
		sc.scales[2].replicas, suite.FormatTime(sc.scales[2].at))
	if sc.evict > 0 {
		s += " Right after the last scale kubectl evicts " + podNamesOf("web", sc.evict) + "."
	}
	if c := sc.cut; c != nil {
		s += fmt.Sprintf(" The link between %s and %s is cut from %s for %s.", c.A, c.B, suite.FormatTime(c.From), suite.FormatTime(c.For))
	}
	return s
}

// ran judges whether the world ran to its end, and tells the scene with
// the failure when it did not.
func ran(cl *cluster) *suite.Failure {
	f := scene.Ran(cl.s)
	if f == nil {
		return nil
	}
	if f.At == 0 {
		f.At = cl.s.W.Now()
	}
	f.Clause = course.OneHistory
	f.Details = strings.TrimSpace(f.Details + "\n\n" + cl.told)
	return f
}

// fail is the failure name at virtual time at, told with the scene and
// the last changes of log.
func (cl *cluster) fail(name string, at time.Duration, story string, log []change) *suite.Failure {
	return &suite.Failure{Name: name, Clause: course.OneHistory, At: at, Story: story,
		Details: cl.told + "\n\nthe pods of web in the one history, change by change:\n" + logTable(log, 14)}
}

// deletedNewer judges the first delete of a pod version its controller
// never saw in a list: a delete without a precondition, or at a version a
// get showed just before.
func (cl *cluster) deletedNewer() *suite.Failure {
	v := cl.newer
	if v == nil {
		return nil
	}
	s := fmt.Sprintf("%s deleted %s without a precondition and removed a version of it that it had never seen", v.by, v.key)
	if v.got {
		s = fmt.Sprintf("%s deleted %s at a version it had read with a get just before, never in the list that called the pod extra, "+
			"so the precondition guarded the get and not the decision, and it removed a version of the pod its decision never saw", v.by, v.key)
	}
	if v.made.by != "" {
		s += fmt.Sprintf(": that %s was created again by %s, accepted by etcd at %s", v.key, v.made.by, suite.FormatTime(v.made.at))
	}
	s += fmt.Sprintf("; etcd accepted the delete at %s, leaving %d pods where %d are desired", suite.FormatTime(v.at), v.pods, v.desired)
	return cl.fail("deleted-a-newer-pod", v.at, s, cl.log)
}

// changedForeign judges the first change a controller of web made to a pod
// web does not own.
func (cl *cluster) changedForeign() *suite.Failure {
	v := cl.foreign
	if v == nil {
		return nil
	}
	did, whose := "changed", "no deployment's"
	switch {
	case v.deleted:
		did = "deleted"
	case strings.HasPrefix(v.what, "ADDED"):
		did = "created"
	}
	if v.owner != "" {
		whose = v.owner + "'s"
	}
	// A pod named, or owned, like web's: the mistake is a prefix taken
	// for the whole.
	though := ""
	switch name, owner := strings.HasPrefix(v.key, "pods/web"), strings.HasPrefix(v.owner, web); {
	case !strings.HasPrefix(v.owner, "deployments/"):
		// no deployment's, or a mistaken owner web's controller wrote
	case name && owner:
		though = ", though its name begins with web's, and so does its owner's key"
	case owner:
		though = ", though its owner's key begins with web's"
	case name:
		though = ", though its name begins with web's"
	}
	story := fmt.Sprintf("%s, reconciling %s, %s %s through %s, accepted by etcd at %s, but %s is %s, not %s's%s: "+
		"a controller changes only the pods its deployment owns, and a pod's owner, not its name or its place in a list, says whose it is",
		v.by, web, did, v.key, v.via, suite.FormatTime(v.at), v.key, whose, web, though)
	return cl.fail("another-deployments-pod", v.at, story, cl.log)
}

// deletedBlind judges the first delete of a wanted pod in a reconcile that
// was told no desired count: a read that failed taken for a deployment
// wanting nothing.
func (cl *cluster) deletedBlind() *suite.Failure {
	v := cl.blind
	if v == nil {
		return nil
	}
	s := fmt.Sprintf("%s deleted %s through %s, accepted by etcd at %s, in a reconcile that had not been told how many pods web wants", v.by, v.key, v.via, suite.FormatTime(v.at))
	if v.failed > 0 {
		s += fmt.Sprintf(": its read of %s had failed at %s, and it went on as if the answer were a deployment wanting nothing", web, suite.FormatTime(v.failed))
	}
	s += fmt.Sprintf(". The history wanted %d pods then, and %s was one of them: only a count of what is wanted can make a pod extra, "+
		"and a read that failed is no count; %d pods were left", v.desired, v.key, v.pods)
	return cl.fail("deleted-a-wanted-pod", v.at, s, logUntil(cl.log, v.at))
}

// converged judges that no pod of web stood for zeroSettle while web wanted
// none, and that web has exactly the pods it wants at the end.
func (cl *cluster) converged() *suite.Failure {
	if z := cl.leftAtZero; z != nil {
		stood := fmt.Sprintf("all that time %s stood", z.pod)
		if z.since > z.zeroAt {
			stood = fmt.Sprintf("%s stood for the last %s of it, from its create at %s", z.pod, suite.FormatTime(z.at-z.since), suite.FormatTime(z.since))
		}
		return &suite.Failure{Name: "no-convergence", Clause: course.OneHistory, At: z.at,
			Story: fmt.Sprintf("%s was scaled to 0 at %s (accepted by etcd) and wanted no pods until kubectl scaled it to %d at %s, %s later; "+
				"%s, and the history still held %d of web's pods then (%s): a deployment scaled to zero keeps no pod, "+
				"and %s is time enough for the controllers to delete one",
				web, suite.FormatTime(z.zeroAt), z.to, suite.FormatTime(z.at), suite.FormatTime(z.at-z.zeroAt),
				stood, len(z.pods), strings.Join(z.pods, ", "), suite.FormatTime(zeroSettle)),
			Details: cl.told + "\n\n" + logTable(logUntil(cl.log, z.at), 15)}
	}
	if pods := cl.podNames(); len(pods) != cl.desired {
		end := cl.s.W.Now()
		return &suite.Failure{Name: "no-convergence", Clause: course.OneHistory, At: end,
			Story: fmt.Sprintf("at %s, the end of the run, long after the last fault, %s wants %d pods and the history holds %d (%s)",
				suite.FormatTime(end), web, cl.desired, len(pods), strings.Join(pods, ", ")),
			Details: cl.told + "\n\n" + logTable(cl.log, 15)}
	}
	return nil
}

// createdAny judges that the story's controllers created a pod at all: a
// run where none did proves nothing.
func (cl *cluster) createdAny() *suite.Failure {
	if cl.creates > 0 {
		return nil
	}
	return &suite.Failure{Name: "vacuous-run", Clause: course.OneHistory, At: storyEnd,
		Story: fmt.Sprintf("no pod was ever created: web wanted %d and had %d, and the controllers did nothing about it", storyDesired, storyPods)}
}

// podsFigure is the page's figure "pods": the first changes of web's pods
// in the one history.
func (cl *cluster) podsFigure() string {
	return "the pods of web in the one history, seed " + fmt.Sprint(cl.s.Seed) + ", change by change:\n" + logTable(cl.log[:min(len(cl.log), 16)], 16)
}

// tooMany judges the first create that left more pods than desired, and
// names and tells it: a desired count the history had left behind, if the
// creator acted on one, else a pods count that stopped being true before
// the create landed.
func (cl *cluster) tooMany() *suite.Failure {
	v := cl.overshoot
	if v == nil {
		return nil
	}
	b := v.beliefs[v.by]
	var story string
	name := "too-many-pods"
	tail := fmt.Sprintf(", but the history had been scaled to %d at %s (accepted by etcd); on that count it created %s through %s, "+
		"accepted by etcd at %s: %d pods where %d were desired",
		v.desired, suite.FormatTime(v.scaledAt), v.key, v.via, suite.FormatTime(v.at), v.pods, v.desired)
	switch remembered, ok := rememberedDesired(b); {
	case v.retry != nil:
		// It sent a create again, without reading again, and the second one
		// landed on a history that no longer wanted the pod.
		story = retryStory(v, b)
	case b.desired.ok && b.desired.value > v.desired && b.desired.value > v.justified:
		// It acted on the last count it was told, and that count was stale.
		name = "stale-desired-count"
		story = fmt.Sprintf("%s acted on a stale desired count: ", v.by)
		if b.desired.cached {
			story += fmt.Sprintf("%s answered from its cache at %s that web wants %d", b.server, suite.FormatTime(b.desired.at), b.desired.value)
		} else {
			story += fmt.Sprintf("it had last read that web wants %d at %s (read with Latest)", b.desired.value, suite.FormatTime(b.desired.at))
		}
		story += tail
	case ok && remembered.value > v.desired && calledFor(v.key, b.desired.value):
		// It created up to a count it had been told earlier, not the last one.
		name = "stale-desired-count"
		story = fmt.Sprintf("%s acted on a stale desired count: it counted %d pods and sent %d %s, as if web still wanted %d, "+
			"the count it was told at %s (%s); it had been told %d since, at %s",
			v.by, b.decision.value, b.creates, plural(b.creates, "create"), remembered.value, suite.FormatTime(remembered.at),
			remembered.how(b.server), b.desired.value, suite.FormatTime(b.desired.at)) + tail
	case len(v.strays) > 0 && b.decision.ok && b.decision.value+b.creates > v.desired && b.decision.value-len(v.strays)+b.creates <= v.desired:
		// It was shown pods web owns under other names, and its creates
		// fill the count only without them.
		story = strayStory(v, b)
	default:
		story = tooManyStory(cl, v)
	}
	return &suite.Failure{Name: name, Clause: course.OneHistory, At: v.at, Story: story, Details: cl.told + "\n\n" + overDetails(cl, v)}
}

// rememberedDesired is the earlier desired count a controller's creates
// filled up to, when they filled up to one it had been told before its last
// read and not to the last one: a count it remembered.
func rememberedDesired(b belief) (read, bool) {
	if !b.decision.ok || b.creates == 0 || !b.desired.ok {
		return read{}, false
	}
	filled := b.decision.value + b.creates
	if filled <= b.desired.value {
		return read{}, false
	}
	for i := len(b.earlier) - 1; i >= 0; i-- {
		if b.earlier[i].value == filled {
			return b.earlier[i], true
		}
	}
	return read{}, false
}

// calledFor reports whether the pod at key is one only a desired count above
// last would call for: web-i with i >= last, or a name that is not web-i.
func calledFor(key string, last int) bool {
	i, err := strconv.Atoi(strings.TrimPrefix(key, "pods/web-"))
	return err != nil || i >= last
}

// contradicted is the changes to web (pods false) or to its pods (pods
// true) that the history had accepted, and their servers had acknowledged,
// before r was asked, and that r's answer did not show: the writes a read
// contradicted. None for a read that failed, nor for one that showed the
// history as it stood.
func contradicted(cl *cluster, r read, pods bool) []change {
	if !r.ok || r.view >= r.truth {
		return nil
	}
	var missed []change
	for _, c := range cl.log {
		ack, ok := cl.acked[version{c.key, c.rv}]
		if c.ofWeb && (c.key != web) == pods && c.rv > r.view && ok && ack.at <= r.asked {
			missed = append(missed, c)
		}
	}
	return missed
}

// actedOnStale is the write req that controller by sent through via at now,
// if the last read of web or of its pods it was given contradicted
// acknowledged writes; else nil.
func (cl *cluster) actedOnStale(now time.Duration, by, via sim.NodeID, req any, b *belief) *staleAct {
	what := fmt.Sprint(relayed{Req: req})
	what = strings.TrimSuffix(what, " for ")
	for _, x := range []struct {
		r    read
		pods bool
	}{{b.pods, true}, {b.desired, false}} {
		if missed := contradicted(cl, x.r, x.pods); len(missed) > 0 {
			return &staleAct{by: by, via: via, at: now, what: what, read: x.r, pods: x.pods, missed: missed}
		}
	}
	return nil
}

// readContradicted judges the first write a controller sent on a read that
// contradicted writes acknowledged before it asked: who wrote what where,
// and when it was acknowledged; who read what where, and what it did on it.
func (cl *cluster) readContradicted() *suite.Failure {
	v := cl.stale
	if v == nil {
		return nil
	}
	first, last := v.missed[0], v.missed[len(v.missed)-1]
	keys := make([]string, len(v.missed))
	for i, c := range v.missed {
		keys[i] = c.told()
	}
	ackFirst, ackLast := cl.acked[version{first.key, first.rv}], cl.acked[version{last.key, last.rv}]
	when := func(a, z time.Duration) string {
		if a == z {
			return "at " + suite.FormatTime(a)
		}
		return fmt.Sprintf("from %s to %s", suite.FormatTime(a), suite.FormatTime(z))
	}
	them, what, answer := "it", "web's pods", fmt.Sprintf("%d pods", v.read.value)
	if len(v.missed) > 1 {
		them = "them"
	}
	if !v.pods {
		what, answer = "web", fmt.Sprintf("web wants %d", v.read.value)
	}
	s := fmt.Sprintf("%s acted on a read of %s that contradicted acknowledged writes: etcd had accepted %s (by %s through %s) %s, "+
		"and %s had acknowledged %s to %s %s; %s read %s through %s at %s and was answered from %s: %s, a view at rv=%d while the history "+
		"was at rv=%d. On that answer it sent %s through %s at %s",
		v.by, what, strings.Join(keys, ", "), first.by, first.via, when(first.at, last.at),
		ackFirst.via, them, ackFirst.to, when(ackFirst.at, ackLast.at),
		v.by, what, v.via, suite.FormatTime(v.read.asked), v.read.how(v.via), answer, v.read.view, v.read.truth,
		v.what, v.via, suite.FormatTime(v.at))
	details := cl.told + "\n\nthe pods of web in the one history, change by change:\n" + logTable(cl.log, 14)
	if o := cl.overshoot; o != nil && o.by == v.by && o.at >= v.at {
		s += fmt.Sprintf("; etcd accepted %s from it at %s, the %s pod where %d were desired", o.key, suite.FormatTime(o.at), ordinal(o.pods), o.desired)
		if peak, at := peakAfter(cl, o); peak > o.pods {
			s += fmt.Sprintf(", and the one history went on to %d pods (the last of them accepted at %s)", peak, suite.FormatTime(at))
		}
		details = cl.told + "\n\n" + overDetails(cl, o)
	}
	s += ". A read a controller acts on must show every write acknowledged before it asked: a read through the one history " +
		"(kube.Latest), not a copy that has not heard of them yet"
	return &suite.Failure{Name: "read-contradicted-write", Clause: course.OneHistory, At: v.at, Story: s, Details: details}
}

// told is a change as a story names it: "pods/web-2", "the delete of
// pods/web-2", "the scale of web to 2".
func (c change) told() string {
	switch verb, rest, _ := strings.Cut(c.what, " "); verb {
	case "DELETED":
		return "the delete of " + rest
	case "MODIFIED":
		return fmt.Sprintf("the scale of web to %d", c.desired)
	default:
		return rest
	}
}

// peakAfter is the most pods the burst of creates the overshoot belongs to
// reached, and when.
func peakAfter(cl *cluster, v *overshoot) (int, time.Duration) {
	peak, at := v.pods, v.at
	for _, c := range cl.log[v.index+1:] {
		if !c.create {
			break
		}
		if c.pods > peak {
			peak, at = c.pods, c.at
		}
	}
	return peak, at
}

// strayStory: creates sent for web's missing names while a pod web owns
// under another name, which the creator's list had shown it, still stood:
// neither deleted before them nor counted among the desired.
func strayStory(v *overshoot, b belief) string {
	what, stood, was := "a pod web owns under a name that is not web-i", "it", "it was"
	if len(v.strays) > 1 {
		what, stood, was = "pods web owns under names that are not web-i", "them", "they were"
	}
	return fmt.Sprintf("%s was shown %d of web's pods (%s at %s), %s among them, %s; with %s still standing, it sent %d %s for the missing names, "+
		"as if there were %d: %s neither deleted before them nor counted among the %d. "+
		"etcd accepted %s from %s through %s at %s: %d pods where %d were desired. "+
		"A pod web owns is web's whatever its name: one whose name is not wanted is an extra, to delete before the missing names are made",
		v.by, b.decision.value, b.decision.how(b.server), suite.FormatTime(b.decision.at), strings.Join(v.strays, ", "), what, stood,
		b.creates, plural(b.creates, "create"), b.decision.value-len(v.strays), was, v.desired,
		v.key, v.by, v.via, suite.FormatTime(v.at), v.pods, v.desired)
}

// retryStory: a create sent again without a fresh read, landing after a
// scale-down.
func retryStory(v *overshoot, b belief) string {
	s := fmt.Sprintf("%s sent its create of %s again at %s (when %s got it) without reading web again: it had first sent it at %s",
		v.by, v.key, suite.FormatTime(v.retry.Sent), v.via, suite.FormatTime(v.retry.FirstAt))
	if b.desired.ok {
		s += fmt.Sprintf(", on web wanting %d (%s at %s)", b.desired.value, b.desired.how(b.server), suite.FormatTime(b.desired.at))
	}
	return s + fmt.Sprintf(". The second create was accepted by etcd at %s, but the history had been scaled to %d at %s (accepted by etcd): "+
		"%d pods where %d were desired. A create sent again is a new decision, and it needs a fresh read of what is wanted",
		suite.FormatTime(v.at), v.desired, suite.FormatTime(v.scaledAt), v.pods, v.desired)
}

// tooManyStory: who counted what, who created how many on it, and what the
// history made of it.
func tooManyStory(cl *cluster, v *overshoot) string {
	var decided []string
	var ids []sim.NodeID
	for _, id := range []sim.NodeID{controllerA, controllerB} {
		if b := v.beliefs[id]; b.creates > 0 && b.decision.ok {
			decided = append(decided, fmt.Sprintf("%s counted %d (%s, answered at %s) and sent %d %s",
				id, b.decision.value, b.decision.how(b.server), suite.FormatTime(b.decision.at), b.creates, plural(b.creates, "create")))
			ids = append(ids, id)
		}
	}
	peak, peakAt := peakAfter(cl, v)
	var s string
	switch len(ids) {
	case 2:
		s = fmt.Sprintf("controller-a and controller-b each created pods for the same shortfall of %s, and nothing refused the second set: %s",
			web, strings.Join(decided, "; "))
		if a, b := v.beliefs[ids[0]].decision, v.beliefs[ids[1]].decision; !a.cached && !b.cached {
			s += "; both counts were the history's when they were read, and both stopped being true at the other's first create: " +
				"nothing in the creates depended on them still being true"
		}
	case 1:
		s = fmt.Sprintf("%s created more pods than its own count called for: %s", ids[0], decided[0])
	default:
		s = fmt.Sprintf("%s created a pod that no count called for", v.by)
	}
	s += fmt.Sprintf(". etcd accepted the %s pod, %s from %s through %s, at %s, where %d were desired",
		ordinal(v.pods), v.key, v.by, v.via, suite.FormatTime(v.at), v.desired)
	if peak > v.pods {
		s += fmt.Sprintf(", and the one history went on to %d pods (the last of them accepted at %s)", peak, suite.FormatTime(peakAt))
	}
	return s
}

// overDetails says what each controller had been told, and lists the
// changes that led to the overshoot and the burst it belongs to.
func overDetails(cl *cluster, v *overshoot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "what each controller had been told when etcd accepted %s (times are when its server answered):\n", v.key)
	for _, id := range []sim.NodeID{controllerA, controllerB} {
		x := v.beliefs[id]
		fmt.Fprintf(&b, "  %s (through %s):", id, x.server)
		if x.creates > 0 && x.decision.ok {
			fmt.Fprintf(&b, " sent %d %s on a count of %d pods (%s at %s);", x.creates, plural(x.creates, "create"), x.decision.value, x.decision.how(x.server), suite.FormatTime(x.decision.at))
		}
		if x.desired.ok {
			fmt.Fprintf(&b, " web wants %d (%s at %s);", x.desired.value, x.desired.how(x.server), suite.FormatTime(x.desired.at))
		}
		if x.pods.ok {
			fmt.Fprintf(&b, " last count %d pods (%s at %s, a view at rv=%d while the history was at rv=%d)",
				x.pods.value, x.pods.how(x.server), suite.FormatTime(x.pods.at), x.pods.view, x.pods.truth)
		}
		if !x.desired.ok && !x.pods.ok {
			b.WriteString(" nothing yet")
		}
		b.WriteString("\n")
	}
	if v.justified > v.desired {
		fmt.Fprintf(&b, "  (%s's Latest read in this reconcile said %d, which would have allowed up to %d pods)\n", v.by, v.justified, v.justified)
	}
	end := v.index + 1
	for end < len(cl.log) && cl.log[end].create {
		end++
	}
	b.WriteString("\nthe pods of web in the one history, change by change (times: accepted by etcd):\n")
	b.WriteString(logTable(cl.log[:end], 14))
	return b.String()
}

// logUntil is the changes accepted up to at.
func logUntil(log []change, at time.Duration) []change {
	n := 0
	for n < len(log) && log[n].at <= at {
		n++
	}
	return log[:n]
}

// logTable renders the last n changes, fitted to the report's width.
func logTable(log []change, n int) string {
	var b strings.Builder
	if len(log) > n {
		fmt.Fprintf(&b, "  … %d earlier changes\n", len(log)-n)
		log = log[len(log)-n:]
	}
	t := table.Table{Indent: "  ", Header: []string{"accepted", "change", "by", "via", "pods", "desired", ""},
		Right: []bool{4: true, 5: true}}
	for _, c := range log {
		mark := ""
		if c.overshot {
			mark = "← too many"
		}
		t.Rows = append(t.Rows, []string{suite.FormatTime(c.at), c.what, string(c.by), string(c.via), fmt.Sprint(c.pods), fmt.Sprint(c.desired), mark})
	}
	b.WriteString(t.String())
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// ordinal is n as a rank: "1st", "2nd", "3rd", "12th", "21st".
func ordinal(n int) string {
	if n%100 >= 11 && n%100 <= 13 {
		return fmt.Sprintf("%dth", n)
	}
	return fmt.Sprint(n) + [...]string{"th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th"}[n%10]
}
