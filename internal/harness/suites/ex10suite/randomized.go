package ex10suite

import (
	"fmt"
	"math/rand"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/suites/ex08suite"
)

// randomBurst draws a burst: three to five controllers, three to five writes
// each, servers 100–400ms apart.
func randomBurst(seed int64, serve scene.Boot) *world {
	rnd := rand.New(rand.NewSource(seed)) // the shape of the burst; the world has its own
	clients, writes := 3+rnd.Intn(3), 3+rnd.Intn(3)
	far := time.Duration(100+rnd.Intn(301)) * time.Millisecond
	names := make([]string, clients)
	for i := range names {
		names[i] = fmt.Sprintf("app-%d", i+1)
	}
	return runBurst(seed, serve, 3, names, writes, sim.Link{Min: far * 9 / 10, Max: far})
}

// The randomized worlds' times: clients work from workStart for work, faults
// fall inside that window, and the auditor looks once everything has healed
// and had settle to catch up.
const (
	workStart = 500 * time.Millisecond
	work      = 4 * time.Second
	settle    = 5 * time.Second
	// Each client waits thinkMin to thinkMax between two requests.
	thinkMin = 20 * time.Millisecond
	thinkMax = 120 * time.Millisecond
)

// keys are the Deployments the randomized clients share.
var keys = []string{"deployments/web", "deployments/api"}

// mixed runs clients clients that read and write keys through the leader:
// unconditional and conditional scales, deletes and creates, Latest and Any
// reads and lists. Every third consistent read that is not followed by a
// write goes to a follower instead, which must send the client to the leader
// or answer as the leader would. Values are unique per key, so every change
// can be found.
func mixed(w *world, clients int) {
	next := 100
	w.Client("kubectl", func(p *sim.Proc, api *kube.Client) {
		c := w.writer(p, api)
		for _, k := range keys {
			c.create(k, 1)
		}
	})
	for i := range clients {
		w.Client(fmt.Sprintf("controller-%c", 'a'+i), func(p *sim.Proc, api *kube.Client) {
			c := w.writer(p, api)
			seen := map[string]int64{} // the version of each key this client last read
			// reader is where a consistent read goes: the leader, or for
			// every third one, a follower.
			reader := func() *kube.Client {
				if next%3 != 0 {
					return c.api
				}
				return api.Pin(w.Servers[1+next/3%(len(w.Servers)-1)])
			}
			// latest reads k with a consistent read through cl; the answer
			// must be a change a majority of the disks hold. One no later
			// than a write acknowledged already is (early judges those), so
			// only the disks are read for the rest.
			latest := func(cl *kube.Client, k string) (kube.Object, error) {
				obj, err := cl.Get(k, kube.ReadOptions{ResourceVersion: kube.Latest})
				acked := int64(0)
				for _, a := range w.acks {
					acked = max(acked, a.index)
				}
				if err == nil && obj.ResourceVersion > acked {
					w.readCommitted(p, api.Name(), cl.Servers()[0], ex08suite.LatestRead, k, obj)
				}
				return obj, err
			}
			p.Sleep(workStart + time.Duration(p.Rand().Int63n(int64(50*time.Millisecond))))
			for p.Now() < workStart+work {
				k := keys[p.Rand().Intn(len(keys))]
				next++
				switch r := p.Rand().Float64(); {
				case r < 0.3:
					c.scale(k, next, 0)
				case r < 0.5:
					if obj, err := latest(c.api, k); err == nil {
						seen[k] = obj.ResourceVersion
						c.scale(k, next, obj.ResourceVersion)
					}
				case r < 0.6:
					var rv int64 // every other delete names the version this client last read
					if next%2 == 0 {
						rv = seen[k]
					}
					if c.remove(k, rv) {
						next++
						c.create(k, next)
					}
				case r < 0.75:
					if obj, err := latest(reader(), k); err == nil {
						seen[k] = obj.ResourceVersion
					}
				case r < 0.85:
					c.api.Get(k, kube.ReadOptions{ResourceVersion: kube.Any})
				default:
					reader().List("deployments", kube.ReadOptions{ResourceVersion: kube.Latest})
				}
				p.Sleep(thinkMin + time.Duration(p.Rand().Int63n(int64(thinkMax-thinkMin))))
			}
		})
	}
}

// randomFault draws one fault in the clients' working time (a third of them
// lasting past its end; half the cuts of the leader from both followers
// outlast answerBound), among those
// that must not make the leader say yes early: the leader cut off from both
// followers or from one, a follower crashed, a follower's link slower than
// an Append's timeout.
//
// keepsMajority says whether the leader and a majority stay up and
// connected through it: then every write must still be answered.
func randomFault(w *world) (f scene.Fault, keepsMajority bool) {
	rnd := w.W.Rand()
	from := workStart + time.Duration(rnd.Int63n(int64(work/2)))
	length := 500*time.Millisecond + time.Duration(rnd.Int63n(int64(2500*time.Millisecond)))
	if rnd.Intn(3) == 0 { // over the end of the work: whoever missed the last writes must catch up without new ones
		from = workStart + work - length/2
	}
	follower := w.Servers[1+rnd.Intn(len(w.Servers)-1)]
	kind := rnd.Intn(5)
	if rnd.Intn(3) == 0 {
		kind = 5 // the leader crashes in a third of the worlds
	}
	switch kind {
	case 0:
		if rnd.Intn(2) == 0 { // half the time for longer than a write waits for agreement: its client must hear Timeout
			length = answerBound + 500*time.Millisecond + time.Duration(rnd.Int63n(int64(time.Second)))
			from = min(from, longCutEnd-length) // healed with time to spare: an Append lost in the cut is sent again an Append's timeout later
		}
		return scene.Partition{Groups: [][]sim.NodeID{w.Servers[1:]}, From: from, For: length}, false
	case 1:
		return scene.Partition{Groups: [][]sim.NodeID{{follower}}, From: from, For: length}, true
	case 2:
		return scene.Crash{Node: follower, At: from, For: length}, true
	case 3:
		return scene.SlowLink{A: leader, B: follower, Link: sim.Link{Min: 1500 * time.Millisecond, Max: 2500 * time.Millisecond},
			From: from, For: length, Normal: peerLink}, true
	case 4:
		return scene.SlowLink{A: leader, B: follower, Link: sim.Link{Min: peerLink.Min, Max: peerLink.Max, Drop: 0.2},
			From: from, For: length, Normal: peerLink}, true
	default:
		return scene.CrashMidWrite{Node: leader, File: ex08suite.LogFile, From: from, For: length / 3}, false
	}
}

// longCutEnd is when a cut of the leader from both followers that outlasts
// a write's timeout has healed, at the latest: an Append lost in the cut is
// sent again up to an Append's timeout (2s) after it, and the followers
// must have caught up by the audit.
const longCutEnd = workStart + work + 1500*time.Millisecond

// quietCrash crashes a follower after the work, once every write is
// agreed and answered, for a while. It comes back with its log and an empty
// history, to a leader with nothing new to send it: only the heartbeat that
// passes on the commit, again and again, tells it what to apply.
func quietCrash(w *world) scene.Fault {
	rnd := w.W.Rand()
	follower := w.Servers[1+rnd.Intn(len(w.Servers)-1)]
	return scene.Crash{Node: follower, At: workStart + work + 1500*time.Millisecond, For: 500*time.Millisecond + time.Duration(rnd.Int63n(int64(time.Second)))}
}

// randomWorld builds and runs one randomized world with a fault.
func randomWorld(seed int64, serve scene.Boot) *world {
	w := newWorld(seed, serve, 3, peerLink)
	mixed(w, 4)
	f, keeps := randomFault(w)
	w.Inject(f)
	w.majorityKept = keeps
	if w.W.Rand().Intn(4) == 0 { // and in a quarter of the worlds, a follower crashes once all is quiet
		w.Inject(quietCrash(w))
	}
	w.AuditAt(workStart+work+settle, "deployments", keys...)
	w.Run(workStart + work + settle + 10*time.Second)
	return w
}

// staleDelete is a conditional delete acknowledged although its object had
// changed since the version it named, with the run's faults. It is told
// before the linearizability check's verdict, which sees the same mistake
// in more general terms.
func staleDelete(w *world) *suite.Failure {
	f := scene.Violated(check.StaleDelete(w.History, w.Longest()))
	if f != nil {
		f.Details += "\n\nfaults:\n" + w.Describe()
	}
	return f
}

// refusing guards against a cluster that keeps one history by saying
// yes to nothing: a write sent while the leader and a majority were up and
// connected (no fault near it, or a fault that left them so) must be
// answered, yes or a definite no, and not with a timeout.
func refusing(w *world) *suite.Failure {
	near := func(op check.Operation) bool {
		if w.majorityKept {
			return false
		}
		for _, f := range w.Faults {
			if f.Start <= op.Return && op.Call <= f.End+2*roundTrip {
				return true
			}
		}
		return false
	}
	for _, op := range w.History.Operations() {
		if !op.Input.Kind.Mutates() || op.Result.Outcome.Definite() && op.Result.Outcome != check.Refused || near(op) {
			continue
		}
		return &suite.Failure{Name: "write-stalled", Clause: course.AgreementFirst, At: op.Return,
			Story: fmt.Sprintf("%s's %s was sent to the leader at %s while the leader and a majority were up and connected, and was answered %s at %s: "+
				"a majority was there to agree, and the write did not get its answer", op.Client, op.Input, suite.FormatTime(op.Call),
				op.Result.Outcome, suite.FormatTime(op.Return)),
			Details: "faults:\n" + w.Describe()}
	}
	return nil
}

// The bound on any answer from the leader, as the chapter's page states it:
// a write that a majority has not agreed within writeTimeout (3s, in the
// exercise's server.go) is answered Timeout then, and a consistent read
// waits no longer. answerSlack is what the bound allows on top: the
// clients' own links, both ways.
const writeTimeout = 3 * time.Second

var (
	answerSlack = 2*clientLink[1] + 6*time.Millisecond
	answerBound = writeTimeout + answerSlack
)

// unbounded is a request to the leader that got no answer
// within answerBound while the leader was up: its client gave up waiting
// (a client waits requestTimeout, longer than the bound) or was still
// waiting when the world ended. A leader that cannot get a write agreed
// says so, Timeout, and the client may retry; a leader that keeps it
// waiting holds every client that writes, and a client with no timeout of
// its own, forever.
func unbounded(w *world) *suite.Failure {
	crashed := func(from, to time.Duration) bool {
		for _, f := range w.Faults {
			if f.Kind == sim.FaultCrash && f.Touches(leader) && f.Start <= to && from <= f.End {
				return true
			}
		}
		return false
	}
	end := w.AuditedAt
	for _, op := range w.History.Operations() {
		if op.Server != string(leader) || crashed(op.Call, op.Call+answerBound) {
			continue
		}
		took, answer := op.Return-op.Call, fmt.Sprintf("gave up waiting at %s, %s later", suite.FormatTime(op.Return), suite.FormatTime(op.Return-op.Call))
		switch {
		case op.Result.Outcome == check.Pending:
			took, answer = end-op.Call, fmt.Sprintf("was still waiting when the audit began at %s", suite.FormatTime(end))
		case op.Result.Outcome != check.Indefinite:
			answer = fmt.Sprintf("was answered %s only at %s, %s later", op.Result.Outcome, suite.FormatTime(op.Return), suite.FormatTime(took))
		}
		if took <= answerBound {
			continue
		}
		return &suite.Failure{Name: "no-answer-in-time", Clause: course.AgreementFirst, At: op.Call + answerBound,
			Story: fmt.Sprintf("%s sent %s to the leader at %s and %s: the leader kept it waiting past %s, the write timeout. "+
				"A leader that cannot get a write agreed by then answers Timeout (the write may still be agreed later), and its client "+
				"decides what to do; silence holds every client that writes, and one with no timeout of its own forever",
				op.Client, op.Input, suite.FormatTime(op.Call), answer, suite.FormatTime(writeTimeout)),
			Details: "faults:\n" + w.Describe()}
	}
	return nil
}
