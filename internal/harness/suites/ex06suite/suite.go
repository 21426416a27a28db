package ex06suite

import (
	"cmp"
	"fmt"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

const ms = time.Millisecond

// The two API servers, as scene.New names them; server-1 is servers[0].
const (
	server1 sim.NodeID = "server-1"
	server2 sim.NodeID = "server-2"
)

// Run runs the chapter's checks against serve, the boot function of each
// server node.
func Run(t *testing.T, serve scene.Boot) { chapter(serve).Run(t) }

// world is one world of the chapter: its scene and whether it is an
// own-copy scene (owncopy.go), judged as the randomized worlds are but for
// the share of writes accepted (it sends four), and whose contradictions
// are told in the scene's words.
type world struct {
	*scene.Scene
	ownCopy bool
}

// chapter declares the suite for serve: its worlds, and its checks with
// their judges in order, the most specific cause first, after ran.
func chapter(serve scene.Boot) scene.Chapter[*world] {
	worlds := map[string]scene.Build[*world]{
		"story":        func(seed int64) *world { return &world{Scene: storyScene(seed, serve)} },
		"one-history":  func(seed int64) *world { return &world{Scene: workloadScene(seed, serve, 1, true)} },
		"linearizable": func(seed int64) *world { return &world{Scene: workloadScene(seed, serve, 2, false)} },
	}
	oneHistory, converged := scene.OnStage[*world](scene.OneHistoryOnce), scene.OnStage[*world](scene.Converged)
	guard := &scene.Guard{MinCompleted: 20, MinCovered: 0.9}
	linearizablePlays := []scene.Play{{World: "linearizable", Seeds: scene.Random(linearizableSeeds), Guard: guard}}
	for _, v := range ocVariants {
		name := "own-copy " + string(v)
		worlds[name] = func(seed int64) *world { return &world{Scene: ownCopyScene(seed, serve, v), ownCopy: true} }
		linearizablePlays = append(linearizablePlays, scene.Play{World: name, Seeds: scene.Scenes(ocSeeds)})
	}
	worlds["peer down"] = func(seed int64) *world { return &world{Scene: peerDownScene(seed, serve)} }
	linearizablePlays = append(linearizablePlays, scene.Play{World: "peer down", Seeds: scene.Scenes(ocSeeds)})
	return scene.Chapter[*world]{ID: "ex06", Worlds: worlds, Ran: ran, Checks: []scene.Check[*world]{
		{Name: "story", Plays: []scene.Play{{World: "story", Seeds: scene.Story(storySeeds)}},
			Judges: []scene.Judge[*world]{writesRefused(1.0, false), storyDivergence, lostCopy, converged, lostWrite, ownCopyRead, linearizable}},
		{Name: "one-history", Plays: []scene.Play{{World: "one-history", Seeds: scene.Random(oneHistorySeeds), Guard: guard}},
			Judges: []scene.Judge[*world]{twoSequencers, lostCopy, oneHistory, converged, lostWrite, misnumberedYes, staleUpdate, refusalHidden, writesRefused(acceptedShare, true), misnumberedDelete}},
		// The own-copy scenes and the peer-down scene come after the
		// randomized worlds, for the moments those meet once in a
		// thousand seeds or never: a mistake the randomized worlds catch
		// is told as they tell it.
		{Name: "linearizable", Plays: linearizablePlays,
			Judges: []scene.Judge[*world]{twoSequencers, lostCopy, oneHistory, lostWrite, staleDelete, misnumberedYes, staleUpdate, ownCopyRead, linearizable, refusalHidden, writesRefused(acceptedShare, true), misnumberedDelete}},
	}}
}

// ran is the first judge of every check: a server that was up and did not
// answer the auditor's kube.Any reads (unansweredAnyRead: scene.Ran would
// tell it as a reply the auditor could not read), then scene.Ran.
func ran(w *world) *suite.Failure { return cmp.Or(unansweredAnyRead(w), scene.Ran(w.Scene)) }

// lostCopy judges the audited histories for a change one server took and
// the other never applied, told by which write it was and when
// (scene.LostCopy), before the position where the histories part.
func lostCopy(w *world) *suite.Failure { return scene.LostCopy(w.Scene, course.DurableAgreement) }

// staleDelete judges that no conditional deletion was acknowledged against
// an object that had changed, told as such before porcupine would tell it
// as whichever answer it cannot place.
func staleDelete(w *world) *suite.Failure {
	return scene.Violated(check.StaleDelete(w.History, w.Longest()))
}

// staleUpdate judges that no update conditional on a resourceVersion was
// acknowledged against an object that had changed since that version, in
// the one history: the precondition checked somewhere other than where
// the order is decided, or checked wrongly, told as such before porcupine
// would tell it as whichever answer it cannot place.
func staleUpdate(w *world) *suite.Failure {
	return scene.Violated(check.StaleUpdate(w.History, w.Longest()))
}

// ownCopyRead judges the Latest reads for one a server answered from its
// own copy, hearing nothing back from the other server after the read
// reached it, that showed an older state than someone had already seen
// (scene.OwnCopyRead): the cause, before porcupine tells the contradiction.
func ownCopyRead(w *world) *suite.Failure { return scene.OwnCopyRead(w.Scene) }

// linearizable is scene.Linearizable, told in an own-copy scene's words
// there (retellOwnCopy).
func linearizable(w *world) *suite.Failure {
	f := scene.Linearizable(w.Scene)
	if f != nil && w.ownCopy {
		retellOwnCopy(w.Scene, f)
	}
	return f
}

// Default seeds per check: enough to meet the story's race and the faults
// many ways, few enough that the suite stays well under a second.
const (
	storySeeds        = 10
	oneHistorySeeds   = 100
	linearizableSeeds = 100
)

// The story's scene: deployments/web runs 3 replicas. At storyScaleAt
// controller-a scales it to 5 through server-1 and, up to storyRace later,
// controller-b scales it to 2 through server-2; the servers' link is
// storyLink the whole time, and the clients sit next to their servers. At
// storyReadAt each controller reads web back from its own server, and at
// storyAuditAt the suite asks each server what it holds.
const (
	web          = "deployments/web"
	storyScaleAt = 1000 * ms
	storyRace    = 5 * ms
	storyReadAt  = 4000 * ms
	storyAuditAt = 8000 * ms
)

var storyLink = scene.SlowLink{A: server1, B: server2, Link: sim.Link{Min: 380 * ms, Max: 400 * ms}, For: storyAuditAt}

// storyScene builds and runs the story's world for seed, which decides only
// the jitter: how far apart the two scales are, and each message's delay.
func storyScene(seed int64, serve scene.Boot) *scene.Scene {
	s := scene.New(seed, serve, scene.Latency(3*ms, 8*ms), scene.RequestTimeout(requestTimeout))
	offset := time.Duration(s.W.Rand().Int63n(int64(storyRace)))
	var created sim.Group
	created.Add(1)
	s.Client("kubectl", func(p *sim.Proc, api *kube.Client) {
		defer created.Done()
		api.Pin(server1).Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 3})
	})
	scaler := func(server sim.NodeID, replicas int, offset time.Duration) func(p *sim.Proc, api *kube.Client) {
		return func(p *sim.Proc, api *kube.Client) {
			api = api.Pin(server)
			created.Wait(p)
			p.Sleep(max(0, storyScaleAt+offset-p.Now()))
			api.Update(kube.Object{Kind: "deployments", Name: "web", Replicas: replicas})
			p.Sleep(max(0, storyReadAt-p.Now()))
			api.Get(web, kube.ReadOptions{ResourceVersion: kube.Latest})
		}
	}
	s.Client("controller-a", scaler(server1, 5, 0))
	s.Client("controller-b", scaler(server2, 2, offset))
	s.Inject(storyLink)
	s.Lanes("controller-a", server1, server2, "controller-b")
	s.AuditAt(storyAuditAt, "deployments", web)
	s.Run(storyAuditAt + 30*time.Second)
	return s
}

// storyDivergence tells the story's divergence in the story's words:
// who scaled to what where, what each server ended with, and the two
// histories side by side at the first position where they differ.
func storyDivergence(w *world) *suite.Failure {
	v := scene.NumberedTwice(w.Histories)
	if v == nil {
		v = check.OneHistory(w.Histories)
	}
	if v == nil {
		return nil
	}
	last := map[string]check.Operation{} // each controller's last write
	for _, op := range w.History.Operations() {
		if op.Input.Kind.Mutates() {
			last[op.Client] = op
		}
	}
	a, b := last["controller-a"], last["controller-b"]
	replicas := func(server sim.NodeID) string {
		if n, ok := w.States[string(server)][web]; ok {
			return fmt.Sprintf("replicas=%v", n)
		}
		return "no " + web
	}
	story := fmt.Sprintf("controller-a scaled %s to 5 through server-1 (sent at %s) and controller-b scaled it to 2 through server-2 (sent at %s); "+
		"both were told yes, and at %s server-1 holds %s while server-2 holds %s. %s",
		web, suite.FormatTime(a.Call), suite.FormatTime(b.Call), suite.FormatTime(w.AuditedAt),
		replicas(server1), replicas(server2), suite.UpperFirst(v.Story))
	return &suite.Failure{Name: v.Name, Clause: v.Clause, Story: story, At: max(a.Return, b.Return),
		Details: "the scene: " + storyLink.String() + "\n" + v.Details, Timeline: w.Timeline(storyScaleAt + 400*ms)}
}

// writesRefused guards against the cluster that keeps one history by
// accepting nothing: of the writes that no cut link could hold up (see
// heldUp), at least share must be acknowledged, or, where the workload may
// ask for what cannot be (ruled set), refused by the API's own rules (a
// conflict, a creation of what exists). An own-copy scene sends too few
// writes to count.
func writesRefused(share float64, ruled bool) scene.Judge[*world] {
	return func(w *world) *suite.Failure {
		if w.ownCopy {
			return nil
		}
		var calm, answered int
		var firstNo time.Duration
		var lines []string
		for _, op := range w.History.Operations() {
			if !op.Input.Kind.Mutates() || heldUp(w.Scene, op) {
				continue
			}
			calm++
			switch op.Result.Outcome {
			case check.OK:
				answered++
				continue
			case check.Conflict, check.NotFound, check.AlreadyExists:
				if ruled {
					answered++
					continue
				}
			}
			if len(lines) == 0 {
				firstNo = op.Return
			}
			lines = append(lines, "  "+op.String())
		}
		if calm > 0 && float64(answered) >= share*float64(calm) {
			return nil
		}
		return &suite.Failure{Name: "writes-refused", Clause: course.OneHistory, At: firstNo,
			Story: fmt.Sprintf("only %d of %d writes sent while the servers' link was whole were accepted (%.0f%% at least must be); a cluster keeps one history by ordering writes, not by refusing them",
				answered, calm, 100*share),
			Details: "writes neither accepted nor refused by the API's rules:\n" + strings.Join(lines, "\n") + "\nfaults:\n" + w.Describe()}
	}
}

// heldUp reports whether a cut link or a lost sequencer may have held op
// up: it was in flight when a cut began, or was sent during one or less
// than cutRecovery after it ended, while the servers were still getting
// their messages through; or it was in flight or sent once the sequencer
// was lost for good.
func heldUp(s *scene.Scene, op check.Operation) bool {
	end := op.Return
	if op.Indefinite() {
		end = op.Call + requestTimeout
	}
	for _, f := range s.Declared() {
		switch c := f.(type) {
		case scene.Cut:
			if end >= c.From && op.Call <= c.From+c.For+cutRecovery {
				return true
			}
		case scene.Crash:
			if end >= c.At {
				return true
			}
		}
	}
	return false
}

// sequencerLost is the crash that lost the sequencer for good, if the
// world has one.
func sequencerLost(s *scene.Scene) (scene.Crash, bool) {
	for _, c := range scene.DeclaredOf[scene.Crash](s) {
		if c.Node == server1 && c.For == 0 {
			return c, true
		}
	}
	return scene.Crash{}, false
}

// lostWrite judges that every acknowledged write is in the longest
// history left, and every acknowledged deletion at the position its
// acknowledgement named (see unheldDelete). When the sequencer was lost for good and the write was acknowledged once the
// cut had begun, the story says so: server-2, the server left, never
// received what server-1 had said yes to.
func lostWrite(w *world) *suite.Failure {
	v := check.Durable(w.History, w.Longest())
	if v == nil {
		v = unheldDelete(w.History, w.Longest())
	}
	if v == nil {
		return nil
	}
	if c, ok := sequencerLost(w.Scene); ok && w.History.Operations()[v.Ops[0]].Return >= cutBefore(w.Scene, c.At) {
		v.Story += fmt.Sprintf(". %s was lost for good at %s (%s), and %s, the server left, never received the change: "+
			"a yes must wait until every server holds the change, or losing the sequencer loses what it decided",
			server1, suite.FormatTime(c.At), c, server2)
	}
	return scene.Violated(v)
}

// cutBefore is when the last cut that began before at began, or at if
// none did.
func cutBefore(s *scene.Scene, at time.Duration) time.Duration {
	from := at
	for _, c := range scene.DeclaredOf[scene.Cut](s) {
		if c.From <= at {
			from = c.From
		}
	}
	return from
}

// cutRecovery is how long after a cut the servers may still be sending
// again what the cut lost.
const cutRecovery = 1500 * ms
