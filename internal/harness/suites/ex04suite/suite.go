package ex04suite

import (
	"errors"
	"fmt"
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

// The two API servers, as scene.New names them.
const (
	server1 sim.NodeID = "server-1"
	server2 sim.NodeID = "server-2"
)

// Run runs the hidden suite of chapter ex04 against serve, the boot function
// of each server node.
func Run(t *testing.T, serve scene.Boot) { chapter(serve).Run(t) }

// world is one world of the chapter: its scene and whether it is a
// read-index scene (readindex.go), whose contradictions are retold in the
// scene's words.
type world struct {
	*scene.Scene
	readIndex bool
}

// chapter declares the suite for serve: its worlds, and its checks with
// their judges in order, the most specific cause first. Each check names
// scene.Ran in its place: first, but in acknowledged, which asks first
// whether the survivor answered the auditor's kube.Any read (scene.Ran
// would tell it as a reply the auditor could not read).
func chapter(serve scene.Boot) scene.Chapter[*world] {
	worlds := map[string]scene.Build[*world]{
		"story":        func(seed int64) *world { return &world{Scene: storyScene(seed, serve)} },
		"acknowledged": func(seed int64) *world { return &world{Scene: acknowledgedScene(seed, serve)} },
		"linearizable": func(seed int64) *world { return &world{Scene: workloadScene(seed, serve, linearizableFaults, 2)} },
		"progress":     func(seed int64) *world { return &world{Scene: workloadScene(seed, serve, progressFaults, 1)} },
	}
	var readIndex []scene.Play
	for _, ri := range riScenes {
		name := "read-index " + ri.name
		worlds[name] = func(seed int64) *world { return &world{Scene: readIndexScene(seed, serve, ri), readIndex: true} }
		readIndex = append(readIndex, scene.Play{World: name, Seeds: scene.Scenes(riSeeds)})
	}
	down := "read-index " + peerDownScene.name
	worlds[down] = func(seed int64) *world {
		return &world{Scene: readIndexScene(seed, serve, peerDownScene), readIndex: true}
	}
	on := scene.OnStage[*world]
	ran, oneHistory, converged, durable := on(scene.Ran), on(scene.OneHistoryOnce), on(scene.Converged), on(scene.Durable)
	misnumbered := on(scene.MisnumberedYes)
	guard := &scene.Guard{MinCompleted: 20, MinCovered: 0.9}
	return scene.Chapter[*world]{ID: "ex04", Worlds: worlds, Ran: func(*world) *suite.Failure { return nil }, // each check names ran in its place
		Checks: []scene.Check[*world]{
			{Name: "story", Plays: []scene.Play{{World: "story", Seeds: scene.Story(storySeeds)}},
				Judges: []scene.Judge[*world]{ran, storyCopied, storyWrite, oneHistory, durable, ownCopyRead, linearizable, storyReads}},
			{Name: "acknowledged", Plays: []scene.Play{{World: "acknowledged", Seeds: scene.Story(acknowledgedSeeds)}},
				Judges: []scene.Judge[*world]{survivorAnyRead, ran, lostOnCrash}},
			{Name: "linearizable", Plays: append(readIndex, scene.Play{World: "linearizable", Seeds: scene.Random(linearizableSeeds), Guard: guard},
				scene.Play{World: down, Seeds: scene.Scenes(riSeeds)}),
				Judges: []scene.Judge[*world]{ran, deletedTwice, lostCopy, oneHistory, durable, misnumbered, ownCopyRead, deletedNothing, linearizable}},
			{Name: "progress", Plays: []scene.Play{{World: "progress", Seeds: scene.Random(progressSeeds), Guard: guard}},
				Judges: []scene.Judge[*world]{ran, unanswered, deletedTwice, lostCopy, oneHistory, converged, durable}},
		}}
}

// Default seeds per check: enough to meet the slow link, the lossy link and
// the crash in many ways, few enough that the chapter runs well under a
// second.
const (
	storySeeds        = 5
	acknowledgedSeeds = 10
	linearizableSeeds = 100
	progressSeeds     = 60
)

// The story's scene: web has 3 replicas on both servers; at storyScaleAt the
// controller scales it to 5 through server-1, whose link to server-2 is
// storyLink the whole time; storyReadAfter after the controller hears yes,
// the dashboard gets and then lists deployments through server-2.
const (
	web            = "deployments/web"
	storyScaleAt   = 2000 * ms
	storyReadAfter = 5 * ms
	storyAuditAt   = 6000 * ms
)

var storyLink = scene.SlowLink{A: server1, B: server2, Link: sim.Link{Min: 400 * ms, Max: 400 * ms}, For: storyAuditAt}

// storyScene builds and runs the story's world for seed, which decides only
// the jitter of the clients' links.
func storyScene(seed int64, serve scene.Boot) *scene.Scene {
	s := scene.New(seed, serve, scene.Latency(2*ms, 5*ms), scene.RequestTimeout(requestTimeout))
	var acked sim.Queue[bool]
	acked.Name = "the controller heard yes"
	s.Client("controller", func(p *sim.Proc, api *kube.Client) {
		api = api.Pin(server1)
		if _, err := api.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 3}); err != nil {
			return
		}
		p.Sleep(max(0, storyScaleAt-p.Now()))
		if _, err := api.Update(kube.Object{Kind: "deployments", Name: "web", Replicas: 5}); err == nil {
			acked.Put(true)
		}
	})
	s.Client("dashboard", func(p *sim.Proc, api *kube.Client) {
		api = api.Pin(server2)
		acked.Get(p)
		p.Sleep(storyReadAfter)
		api.Get(web, kube.ReadOptions{ResourceVersion: kube.Latest})
		s.List(p, api, "deployments", web)
	})
	s.Inject(storyLink)
	s.Lanes("controller", server1, server2, "dashboard")
	s.AuditAt(storyAuditAt, "deployments", web)
	s.Run(storyAuditAt + 30*time.Second)
	return s
}

// storyCopied fails a story in which server-2, when the suite read it
// seconds later, did not hold a write server-1 had said yes to: the yes came
// while the change was only on server-1, and every change server-1 sends
// after it waits on server-2 for the one in front of it.
func storyCopied(w *world) *suite.Failure {
	survivor, ok := w.Histories[string(server2)]
	if !ok {
		return nil // the read of server-2 failed: scene.Ran tells it
	}
	v := check.Durable(w.History, survivor)
	if v == nil {
		return nil
	}
	op := w.History.Operations()[v.Ops[0]]
	story := fmt.Sprintf("server-1 told %s its %s was accepted at %s (when the answer was received), and at %s, when the suite read the servers, "+
		"server-2's history still did not hold it: the yes came while the change was nowhere but on server-1, and had server-1 died then it was lost",
		op.Client, op.Input, suite.FormatTime(op.Return), suite.FormatTime(storyAuditAt))
	if !reportedYes(w.Scene, "controller", op.ID) {
		story += fmt.Sprintf("; the scale to 5 sent at %s was never told yes either: server-2 applies a change only after the one in front of it", suite.FormatTime(storyScaleAt))
	}
	return &suite.Failure{Name: "lost-write", Clause: course.AgreementFirst, At: op.Return, Story: story,
		Details: "the scene: " + storyLink.String() + "\n" + v.Details}
}

// reportedYes says whether client was told yes to a write after the
// operation numbered after.
func reportedYes(s *scene.Scene, client string, after check.OpID) bool {
	for _, op := range s.History.Operations() {
		if op.Client == client && op.ID > after && op.Input.Kind.Mutates() && op.Acknowledged() {
			return true
		}
	}
	return false
}

// storyWrite fails a story whose controller was never told yes: a
// cluster that refuses the write, or leaves it unanswered while the link is
// slow, has nothing stale to show.
func storyWrite(w *world) *suite.Failure {
	var unanswered *check.Operation
	for _, op := range w.History.Operations() {
		if op.Client != "controller" {
			continue
		}
		if op.Input.Kind == check.KindWrite && op.Acknowledged() {
			return nil
		}
		if !op.Acknowledged() && unanswered == nil {
			unanswered = &op
		}
	}
	story := fmt.Sprintf("the controller asked server-1 to scale %s to 5 at %s and was never told yes", web, suite.FormatTime(storyScaleAt))
	if op := unanswered; op != nil {
		got := "no answer by " + suite.FormatTime(w.W.Now())
		if op.Completed() {
			got = fmt.Sprintf("%s at %s", op.Result.Outcome, suite.FormatTime(op.Return))
		}
		story = fmt.Sprintf("the controller asked server-1 to %s at %s and got %s, while the servers' link took %s each way: "+
			"a round trip over it is %s, so a call to the other server must wait longer than that",
			op.Input, suite.FormatTime(op.Call), got, suite.FormatTime(storyLink.Link.Max), suite.FormatTime(2*storyLink.Link.Max))
		// The link carries every copy in time; a server-2 that holds
		// fewer changes than server-1 when the suite reads them never
		// applied one, whatever server-1 waited for.
		h1, ok1 := w.Histories[string(server1)]
		h2, ok2 := w.Histories[string(server2)]
		if ok1 && ok2 && len(h2) < len(h1) && !op.Completed() {
			story = fmt.Sprintf("the controller asked server-1 to %s at %s and got %s; when the suite read the servers at %s, "+
				"server-1's history went up to rv %d and server-2's only to rv %d, though the link carries a copy in %s and loses none: "+
				"server-2 never applied the change server-1 sent it, and server-1, which may say yes only once the other server holds the change, waited for it to the end",
				op.Input, suite.FormatTime(op.Call), got, suite.FormatTime(storyAuditAt), len(h1), len(h2), suite.FormatTime(storyLink.Link.Max))
		}
	}
	return &suite.Failure{Name: "write-refused", Clause: course.OneHistory, At: w.W.Now(),
		Story:   story + "; a cluster that keeps one answer by accepting nothing is not the fix",
		Details: "the scene: " + storyLink.String()}
}

// storyReads fails a story whose dashboard got no answer: a read that
// waits forever is not stale, and not an answer either.
func storyReads(w *world) *suite.Failure {
	reads := 0
	for _, op := range w.History.Operations() {
		if op.Client == "dashboard" && op.Completed() {
			reads++
		}
	}
	if reads >= 2 {
		return nil
	}
	return &suite.Failure{Name: "unanswered-read", Clause: course.OneHistory, At: w.W.Now(),
		Story: fmt.Sprintf("the dashboard's Latest get and list of deployments through server-2 did not both get an answer by %s, when the suite read the servers, "+
			"while the servers' link took %s each way: a read that waits on the other server must wait for it longer than a round trip, %s",
			suite.FormatTime(w.W.Now()), suite.FormatTime(storyLink.Link.Max), suite.FormatTime(2*storyLink.Link.Max)),
		Details: "the scene: " + storyLink.String()}
}

// The acknowledged check's scene: from ackWritesFrom the controller scales
// web through server-1 again and again, each time to a new count, over the
// story's 400ms link; at a moment of the seed's choosing in [ackCutFrom,
// ackCutFrom+ackCutSpread) server-1 is cut off from everyone, and ackDieAfter
// later it dies for good. The auditor reads server-2 at ackAuditAt.
const (
	ackWritesFrom = 2000 * ms
	ackWritesTo   = 3500 * ms
	ackCutFrom    = 2100 * ms
	ackCutSpread  = 600 * ms
	ackDieAfter   = 50 * ms
	ackAuditAt    = 20 * time.Second
)

// ackFaults are the acknowledged check's faults when server-1 is cut off at
// cut.
func ackFaults(cut time.Duration) []scene.Fault {
	return []scene.Fault{
		scene.SlowLink{A: server1, B: server2, Link: storyLink.Link, For: ackAuditAt},
		scene.Partition{Groups: [][]sim.NodeID{{server1}}, From: cut},
		scene.Crash{Node: server1, At: cut + ackDieAfter},
	}
}

func acknowledgedScene(seed int64, serve scene.Boot) *scene.Scene {
	s := scene.New(seed, serve, scene.Latency(2*ms, 5*ms), scene.RequestTimeout(requestTimeout))
	cut := ackCutFrom + time.Duration(s.W.Rand().Int63n(int64(ackCutSpread)))
	s.Client("controller", func(p *sim.Proc, api *kube.Client) {
		api = api.Pin(server1)
		if _, err := api.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 3}); err != nil {
			return
		}
		p.Sleep(ackWritesFrom - p.Now())
		for n := 4; p.Now() < ackWritesTo; n++ {
			api.Update(kube.Object{Kind: "deployments", Name: "web", Replicas: n})
			p.Sleep(20 * ms)
		}
	})
	s.Inject(ackFaults(cut)...)
	s.Lanes("controller", server1, server2)
	s.AuditAt(ackAuditAt, "deployments", web)
	s.Run(ackAuditAt + 30*time.Second)
	return s
}

// survivorAnyRead fails a survivor that would not answer the
// auditor's kube.Any read: such a read is served from what the server
// holds, stale if need be, and must not wait on a server that is gone.
func survivorAnyRead(w *world) *suite.Failure {
	if w.Err != nil {
		return nil // scene.Ran tells it
	}
	for _, u := range w.Unread {
		if u.Server != server2 || u.Key != web || !errors.Is(u.Err, sim.ErrTimeout) {
			continue
		}
		died := scene.DeclaredOf[scene.Crash](w.Scene)[0].At // the acknowledged scene crashes server-1 once
		return &suite.Failure{Name: "unanswered-read", Clause: course.OneHistory, At: ackAuditAt,
			Story: fmt.Sprintf("server-1 died at %s; at %s the suite asked server-2, the survivor, for %s with kube.Any (resourceVersion \"0\") "+
				"and got no answer in %s: an Any read is answered from what the server holds, stale if need be, and must not wait on a server that is gone",
				suite.FormatTime(died), suite.FormatTime(ackAuditAt), web, requestTimeout),
			Details: "faults:\n" + w.Describe()}
	}
	return nil
}

// lostOnCrash tells an acknowledged write the survivor never got as
// what it is: a yes given before the change was anywhere but on the server
// that then died.
func lostOnCrash(w *world) *suite.Failure {
	survivor, ok := w.Histories[string(server2)]
	if !ok {
		return &suite.Failure{Name: "no-audit", At: w.W.Now(), Story: "the suite could not read server-2's history after server-1 died"}
	}
	v := check.Durable(w.History, survivor)
	if v == nil {
		return nil
	}
	op := w.History.Operations()[v.Ops[0]]
	cut := scene.DeclaredOf[scene.Partition](w.Scene)[0].From
	died := scene.DeclaredOf[scene.Crash](w.Scene)[0].At
	story := fmt.Sprintf("server-1 told %s its %s was accepted at %s (when the answer was received), then was cut off at %s and died at %s, "+
		"and server-2 never applied it: the yes came while the change was nowhere but on server-1",
		op.Client, op.Input, suite.FormatTime(op.Return), suite.FormatTime(cut), suite.FormatTime(died))
	if n := len(v.Ops) - 1; n > 0 {
		story += fmt.Sprintf(" (%d more acknowledged writes went with it)", n)
	}
	return &suite.Failure{Name: "lost-write", Clause: course.AgreementFirst, At: op.Return, Story: story,
		Details: "faults:\n" + w.Describe() + "\n" + v.Details}
}

// deletedTwice finds a server whose history deletes an object that an
// earlier change of that history had already deleted, with nothing
// written to it in between: one deletion, applied a second time when its
// copy came again (scene.Repeats tells a repeated write; a repeated
// deletion sets no value to tell it by). The histories part from there, and
// lostCopy would tell the symptom, a change one server lacks.
func deletedTwice(w *world) *suite.Failure {
	for _, id := range []sim.NodeID{server1, server2} {
		h := w.Histories[string(id)]
		deletedAt := map[string]int{} // key -> position of the deletion that left it absent
		for i, c := range h {
			if !c.Deleted {
				delete(deletedAt, c.Key)
				continue
			}
			if first, ok := deletedAt[c.Key]; ok {
				return &suite.Failure{Name: "write-applied-twice", Clause: course.OneHistory, At: c.At, Story: fmt.Sprintf(
					"%s's history deletes %s at rv %d and again at rv %d, with nothing written to it in between: one deletion, applied a second time "+
						"when its copy came again (a message the link repeated, or a retry after a lost answer); a change from the other server "+
						"is told from a repeat by its position in the history, not by the object it changes, and the two histories part from there",
					id, c.Key, first+1, i+1),
					Details: "faults:\n" + w.Describe()}
			}
			deletedAt[c.Key] = i
		}
	}
	return nil
}

// deletedNothing finds a key whose deletions the clients were told yes to
// more often than the longest history holds a deletion of it: a deletion
// answered ok that changed nothing, such as one of an object that was not
// there, which the history cannot explain (porcupine would only say that no
// order does).
func deletedNothing(w *world) *suite.Failure {
	held := map[string]int{}
	for _, c := range w.Longest() {
		if c.Deleted {
			held[c.Key]++
		}
	}
	acked := map[string][]check.Operation{}
	for _, op := range w.History.Operations() {
		if op.Input.Kind == check.KindDelete && op.Acknowledged() {
			acked[op.Input.Key] = append(acked[op.Input.Key], op)
			if ops := acked[op.Input.Key]; len(ops) > held[op.Input.Key] {
				return &suite.Failure{Name: "deleted-nothing", Clause: course.OneHistory, At: op.Return, Story: fmt.Sprintf(
					"the clients were told yes to %d deletions of %s (the last: %s's %s, sent to %s at %s, answered at %s), yet the longest history holds %d: "+
						"a deletion answered ok that no history holds changed nothing, as a deletion of an object that is not there does; "+
						"it must be answered NotFound, not ok",
					len(ops), op.Input.Key, op.Client, op.Input, op.Server, suite.FormatTime(op.Call), suite.FormatTime(op.Return), held[op.Input.Key]),
					Details: "faults:\n" + w.Describe()}
			}
		}
	}
	return nil
}

// lostCopy judges the audited histories for a change one server took and
// the other never applied, told by which write it was and when
// (scene.LostCopy), before the position where the histories part.
func lostCopy(w *world) *suite.Failure { return scene.LostCopy(w.Scene, course.AgreementFirst) }

// unanswered judges a world in which a Latest read or a write got no
// definite answer.
func unanswered(w *world) *suite.Failure {
	for _, op := range w.History.Operations() {
		if !op.Completed() {
			return &suite.Failure{Name: "unanswered-request", Clause: course.OneHistory, At: op.Call,
				Story: fmt.Sprintf("%s asked %s to %s at %s (when it was sent) and got no answer from the cluster (%s); faults come and go, and a request sent while the link loses messages must still be answered",
					op.Client, op.Server, op.Input, suite.FormatTime(op.Call), op.Result.Outcome),
				Details: op.String() + "\nfaults:\n" + w.Describe()}
		}
	}
	return nil
}

// ownCopyRead judges the Latest reads for one a server answered from its
// own copy, hearing nothing back from the other server after the read
// reached it, that showed an older state than someone had already seen
// (scene.OwnCopyRead): the cause, before porcupine tells the contradiction.
// In a read-index scene the details begin with what the scene built.
func ownCopyRead(w *world) *suite.Failure {
	f := scene.OwnCopyRead(w.Scene)
	if f != nil && w.readIndex {
		f.Details = retellReadIndex(w.Scene) + "\n" + f.Details
	}
	return f
}

// linearizable is scene.Linearizable; in a read-index scene the details
// begin with what the scene built (retellReadIndex).
func linearizable(w *world) *suite.Failure {
	f := scene.Linearizable(w.Scene)
	if f != nil && w.readIndex {
		f.Details = retellReadIndex(w.Scene) + "\n" + f.Details
	}
	return f
}
