package ex06suite

import (
	"fmt"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The own-copy scenes, scripted: a server that is not the sequencer may not
// refuse a write on its own copy's word, because a change the sequencer has
// decided, and that others have already seen, may still be on its way to
// it. The randomized worlds meet that moment about once in a thousand
// seeds; these scenes build it on purpose. (The one who has seen the change
// is a reader of the sequencer, not the client whose change it is: that
// client is told yes only once every server holds it.)
//
//   - kubectl creates web (and, in the first scene, batch) through
//     server-1, the sequencer; it reaches both servers;
//   - at ocSpellAt (plus up to ocJitter) the way from server-1 to server-2,
//     and not the way back, becomes slow (ocSlowWay) for ocSpell (plus up
//     to ocJitter/4), and controller-a sends a write through server-1: the
//     sequencer decides it at once, and its copy to server-2 is on the road
//     for ocSlowWay;
//   - just after the spell, controller-b reads the object through server-1
//     with a Latest get, and is shown controller-a's change there;
//   - at once it writes through server-2, whose copy still lacks that
//     change: it creates batch, which controller-a has just deleted
//     ("create"); it deletes batch, which controller-a has just created,
//     on some seeds at the version it read ("delete"); or it scales web on
//     condition of the version it read, which controller-a's scale has
//     just made ("conflict").
//
// Each of those writes must go ahead: a refusal (AlreadyExists, NotFound,
// Conflict) contradicts what controller-b read. Every correct cluster
// passes them, whatever its timeouts: the scenes only make the moment
// likely, and are judged as the randomized worlds are.
const (
	ocSpellAt = 500 * ms
	ocSpell   = 30 * ms
	ocJitter  = 100 * ms
	ocSlowWay = 400 * ms
	ocAuditAt = 8 * time.Second
	ocSeeds   = 2
)

// ocVariant is one of the own-copy scenes, named as the chapter's worlds
// name it: what controller-b writes through server-2.
type ocVariant string

const (
	ocCreate   ocVariant = "create"   // creates batch, just deleted through server-1
	ocDelete   ocVariant = "delete"   // deletes batch, just created through server-1
	ocConflict ocVariant = "conflict" // scales web at the version just made through server-1
)

var ocVariants = []ocVariant{ocCreate, ocDelete, ocConflict}

// batchName is the name of scene.WorkloadBatch.
var _, batchName = kube.SplitKey(scene.WorkloadBatch)

// ownCopyScene builds and runs the own-copy scene v of seed. The seed
// decides when the slow spell begins and how long it lasts, the jitter of
// every link and, in the delete scene, whether controller-b's deletion is
// conditional on the version it read.
func ownCopyScene(seed int64, serve scene.Boot, v ocVariant) *scene.Scene {
	s := scene.New(seed, serve, scene.Latency(1*ms, 5*ms), scene.RequestTimeout(requestTimeout))
	r := s.W.Rand()
	slow := scene.SlowOneWay{Sender: server1, Receiver: server2, Link: sim.Link{Min: ocSlowWay, Max: ocSlowWay},
		From: ocSpellAt + time.Duration(r.Int63n(int64(ocJitter))), For: ocSpell + time.Duration(r.Int63n(int64(ocJitter/4)))}
	conditional := r.Intn(2) == 0
	s.Inject(slow)

	key := web
	if v != ocConflict {
		key = scene.WorkloadBatch
	}
	var created sim.Group
	created.Add(1)
	s.Client("kubectl", func(p *sim.Proc, api *kube.Client) {
		defer created.Done()
		api = api.Pin(server1)
		api.Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 3})
		if v == ocCreate {
			api.Create(kube.Object{Kind: "deployments", Name: batchName, Replicas: 1})
		}
	})
	s.Client("controller-a", func(p *sim.Proc, api *kube.Client) {
		created.Wait(p)
		p.Sleep(max(0, slow.From+ms-p.Now()))
		api = api.Pin(server1)
		switch v {
		case ocCreate:
			api.Delete(scene.WorkloadBatch, 0)
		case ocDelete:
			api.Create(kube.Object{Kind: "deployments", Name: batchName, Replicas: 2})
		case ocConflict:
			api.Update(kube.Object{Kind: "deployments", Name: "web", Replicas: 4})
		}
	})
	s.Client("controller-b", func(p *sim.Proc, api *kube.Client) {
		created.Wait(p)
		p.Sleep(max(0, slow.From+slow.For+ms-p.Now()))
		obj, err := api.Pin(server1).Get(key, kube.ReadOptions{ResourceVersion: kube.Latest})
		api = api.Pin(server2)
		switch {
		case v == ocCreate:
			api.Create(kube.Object{Kind: "deployments", Name: batchName, Replicas: 5})
		case err != nil: // nothing to delete or scale: the scene did not happen
		case v == ocDelete && conditional:
			api.Delete(scene.WorkloadBatch, obj.ResourceVersion)
		case v == ocDelete:
			api.Delete(scene.WorkloadBatch, 0)
		case v == ocConflict:
			api.Update(kube.Object{Kind: "deployments", Name: "web", Replicas: 6, ResourceVersion: obj.ResourceVersion})
		}
	})
	s.Lanes("kubectl", "controller-a", server1, server2, "controller-b")
	s.AuditAt(ocAuditAt, "deployments", web, scene.WorkloadBatch)
	s.Run(ocAuditAt + 30*time.Second)
	return s
}

// retellOwnCopy tells a contradiction found in an own-copy scene in the
// scene's words, from the recorded operations: what controller-b read
// through server-1 just after controller-a had server-1 decide a change
// while the way to server-2 was slow, and what server-2 then refused it.
// It says only what the clients saw and the scene built, not why server-2
// refused: a follower that answers from its own copy after the sequencer
// has answered is caught here too.
// When the contradiction lies elsewhere, the story stays porcupine's. The
// details say what the scene built.
func retellOwnCopy(s *scene.Scene, f *suite.Failure) {
	var decided, read, wrote *check.Operation
	ops := s.History.Operations()
	for i := range ops {
		op := &ops[i]
		switch {
		case op.Client == "controller-a" && op.Input.Kind.Mutates():
			decided = op
		case op.Client == "controller-b" && op.Input.Kind == check.KindRead:
			read = op
		case op.Client == "controller-b" && op.Input.Kind.Mutates():
			wrote = op
		}
	}
	slow := scene.DeclaredOf[scene.SlowOneWay](s)[0] // an own-copy scene has one slow spell
	if decided != nil && read != nil && wrote != nil && read.Precedes(*wrote) {
		if between := refusedAfter(*read, *wrote); between != "" {
			f.Story = fmt.Sprintf("%s through %s, the sequencer, at %s: the effect of %s's %s, sent there at %s. Then it asked %s to %s and was refused %s at %s. "+
				"%s, so no single history explains both answers. (%s was told yes at %s; the way from %s to %s was slow, %s, from %s for %s.) "+
				"A server that is not the sequencer must ask it, not refuse a write on its own copy's word: that copy may still lack a change the sequencer has decided and others have seen",
				tellRead(*read), read.Server, suite.FormatTime(read.Return), decided.Client, decided.Input, suite.FormatTime(decided.Call),
				wrote.Server, wrote.Input, wrote.Result.Outcome, suite.FormatTime(wrote.Return),
				between, decided.Client, suite.FormatTime(decided.Return), slow.Sender, slow.Receiver, ocSlowWay, suite.FormatTime(slow.From), suite.FormatTime(slow.For))
			f.At = wrote.Return
			f.Timeline = s.Timeline(wrote.Return)
		}
	}
	rows := []string{"the scene, as built:", "  " + slow.String()}
	for _, op := range []*check.Operation{decided, read, wrote} {
		if op != nil {
			rows = append(rows, "  "+op.String())
		}
	}
	f.Details = strings.Join(rows, "\n") + "\n" + f.Details
}

// tellRead tells what a read found: "controller-b found no
// deployments/batch", "controller-b read deployments/web=4 (rv 2)".
func tellRead(read check.Operation) string {
	switch {
	case read.Input.List != "" && read.Result.Outcome == check.NotFound:
		return fmt.Sprintf("%s's list of %s held no %s", read.Client, read.Input.List, read.Input.Key)
	case read.Input.List != "":
		return fmt.Sprintf("%s's list of %s showed %s=%v (rv %d)", read.Client, read.Input.List, read.Input.Key, read.Result.Value, read.Result.Version)
	}
	if read.Result.Outcome == check.NotFound {
		return fmt.Sprintf("%s found no %s", read.Client, read.Input.Key)
	}
	return fmt.Sprintf("%s read %s=%v (rv %d)", read.Client, read.Input.Key, read.Result.Value, read.Result.Version)
}

// refusedAfter says why wrote's refusal contradicts read, which ended
// before wrote began, when no one else wrote the key in between (as in an
// own-copy scene); "" if it does not.
func refusedAfter(read, wrote check.Operation) string {
	key, the := read.Input.Key, "the "+read.Input.Verb()
	switch {
	case wrote.Result.Outcome == check.AlreadyExists && read.Result.Outcome == check.NotFound:
		return "No one created " + key + " in between: it cannot be gone at " + the + " and there again at the creation"
	case wrote.Result.Outcome == check.NotFound && read.Result.Outcome == check.OK:
		return "No one deleted " + key + " in between: it cannot be there at " + the + " and gone at the deletion"
	case wrote.Result.Outcome == check.Conflict && read.Result.Outcome == check.OK && wrote.Input.IfVersion == read.Result.Version:
		return fmt.Sprintf("No one changed %s in between: it cannot be at rv %d at %s and at another version at the update", key, read.Result.Version, the)
	}
	return ""
}

// The peer-down scene, scripted: the sequencer shows a reader a change
// whose copy a short cut lost, then crashes for good before it sends the
// copy again; the other server's copy never gets the change. A Latest read
// there cannot learn how far the sequencer's history went, and must not
// answer from its own copy as if nothing were missing: it waits, or
// refuses.
//
//   - kubectl creates web with 3 replicas through server-1, the sequencer;
//     it reaches both servers;
//   - at pdCutAt (plus up to ocJitter) the servers' link is cut for
//     pdCut (plus up to ocJitter), and controller-a scales web to 4
//     through server-1: its copy to server-2 is lost;
//   - just after the cut heals, dashboard-2 gets web through server-1 and
//     is shown 4;
//   - pdDownAfter after that read was sent, server-1 crashes for good, and
//     pdDownAfter/2 later both dashboards get web through server-2.
//
// Every correct cluster passes it: the reads of server-2 go unanswered, or
// are refused.
const (
	pdCutAt     = 500 * ms
	pdCut       = 80 * ms
	pdDownAfter = 40 * ms
)

// peerDownScene builds and runs the peer-down scene of seed, which decides
// when the cut begins, how long it lasts, and the jitter of every link.
func peerDownScene(seed int64, serve scene.Boot) *scene.Scene {
	s := scene.New(seed, serve, scene.Latency(1*ms, 5*ms), scene.RequestTimeout(requestTimeout))
	r := s.W.Rand()
	cut := scene.Cut{A: server1, B: server2, From: pdCutAt + time.Duration(r.Int63n(int64(ocJitter))), For: pdCut + time.Duration(r.Int63n(int64(ocJitter)))}
	read := cut.Until() + 10*ms
	crash := scene.Crash{Node: server1, At: read + pdDownAfter}
	late := crash.At + pdDownAfter/2
	s.Inject(cut, crash)

	s.Client("kubectl", func(p *sim.Proc, api *kube.Client) {
		api.Pin(server1).Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 3})
	})
	s.Client("controller-a", func(p *sim.Proc, api *kube.Client) {
		p.Sleep(cut.From + ms)
		api.Pin(server1).Update(kube.Object{Kind: "deployments", Name: "web", Replicas: 4})
	})
	latest := kube.ReadOptions{ResourceVersion: kube.Latest}
	s.Client("dashboard-1", func(p *sim.Proc, api *kube.Client) {
		p.Sleep(late)
		api.Pin(server2).Get(web, latest)
	})
	s.Client("dashboard-2", func(p *sim.Proc, api *kube.Client) {
		p.Sleep(read)
		if _, err := api.Pin(server1).Get(web, latest); err != nil {
			return
		}
		p.Sleep(max(ms, late-p.Now()))
		api.Pin(server2).Get(web, latest)
	})
	s.Lanes("kubectl", "controller-a", server1, server2, "dashboard-1", "dashboard-2")
	s.AuditAt(ocAuditAt, "deployments", web)
	s.Run(ocAuditAt + 30*time.Second)
	return s
}
