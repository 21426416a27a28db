package ex11suite

import (
	"fmt"
	"reflect"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The crashed-voter scene's numbers.
const (
	cvFrom = time.Second             // the leader crashes
	cvDown = 2500 * time.Millisecond // and stays down this long
	cvOff  = time.Millisecond        // how long the voter is down
	cvHeal = 3 * time.Second         // the first candidate, cut off alone, is back
	cvEnd  = 5 * time.Second
	cvLate = 500 * time.Millisecond // no one stood by cvHeal - cvLate: the scene does not play
	// cvQuiet is when the voter's and the first candidate's messages reach
	// the others again: after the leader is back (cvFrom + cvDown), so that
	// the others, with it, are a majority that can hold a pre-vote in the
	// voter's term without hearing of it.
	cvQuiet   = 4 * time.Second
	cvServers = 5
)

// requestTerm reads the Term of a request, if it has an integer one.
func requestTerm(msg any) (int64, bool) {
	v := reflect.ValueOf(msg)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return 0, false
	}
	f := v.FieldByName("Term")
	if !f.IsValid() || !isInt(f.Kind()) {
		return 0, false
	}
	return f.Int(), true
}

// crashedVoter is five servers. At cvFrom the leader crashes. The first
// server to stand for election (to say it is a candidate of a term above
// the leader's) is cut off at once from every server but one, the voter:
// what it sent the others in that step is lost. The moment the voter sends
// it a granting answer to the request it sent as a candidate, the voter
// crashes, losing every byte it had not synced, and comes back 1ms later;
// the first candidate is then cut off alone until cvHeal, so that nothing
// it won reaches anyone, and until cvQuiet nothing the voter or the first
// candidate sends reaches the other three. Another server stands for election and asks the
// voter. A vote the voter sent before it was on its disk is forgotten, and
// the voter grants its vote in the same term again, whatever the shape of
// its code: the votes are read off the trace, each answer matched to the
// request it answers (real, sent by a server that said it stood in the
// term), not to what the voter said of itself.
func crashedVoter(seed int64, boot scene.Boot) *world {
	w := newWorld(seed, boot, cvServers)
	w.writer("controller", cvEnd)
	var leaderTerm int64
	w.W.At(cvFrom, func() {
		var l sim.NodeID
		l, leaderTerm = w.leaderNow()
		if l == "" {
			return
		}
		w.leader = l
		w.W.Crash(l)
		w.W.After(cvDown, func() { w.W.Restart(l) })
	})
	w.W.At(cvHeal, func() { w.W.Heal() }) // whatever the servers did by then
	var first, voter sim.NodeID
	var firstVote *ballot
	crashed := false
	// real is, by sender and receiver, the requests a server sent while it
	// said it stood for election in the request's term; asked is, by voter
	// and candidate, the term of the last real request the voter received.
	real := map[[2]sim.NodeID][]any{}
	asked := map[[2]sim.NodeID]int64{}
	read := 0
	w.W.OnStep(func() {
		events := w.W.Trace().Since(read)
		read += len(events)
		if w.leader == "" || w.W.Now() < cvFrom {
			return
		}
		if first == "" && w.W.Now() < cvHeal-cvLate {
			for _, id := range w.Servers {
				v, _ := w.W.Status(id)
				if st, ok := state(v); ok && id != w.leader && w.W.Up(id) && st.Role == check.Candidate && st.Term > leaderTerm {
					first = id
					for _, o := range w.Servers {
						if o != first && o != w.leader {
							voter = o
							break
						}
					}
					w.W.Partition([]sim.NodeID{first, voter})
					break
				}
			}
		}
		for _, e := range events {
			if !w.IsServer(e.Node) || !w.IsServer(e.Peer) || e.Msg == nil {
				continue
			}
			switch e.Kind {
			case sim.EvSend:
				if _, isVote := readVote(e.Msg); isVote {
					break
				}
				v, _ := w.W.Status(e.Node)
				st, ok := state(v)
				t, has := requestTerm(e.Msg)
				if ok && st.Role == check.Candidate && (!has || t == st.Term) {
					key := [2]sim.NodeID{e.Node, e.Peer}
					real[key] = append(real[key], e.Msg)
				}
			case sim.EvRecv:
				if _, isVote := readVote(e.Msg); isVote {
					break
				}
				key := [2]sim.NodeID{e.Peer, e.Node}
				delete(asked, [2]sim.NodeID{e.Node, e.Peer}) // the last request is not a real one, unless found below
				for i, m := range real[key] {
					if reflect.DeepEqual(m, e.Msg) {
						t, _ := requestTerm(m)
						asked[[2]sim.NodeID{e.Node, e.Peer}] = t
						real[key] = append(real[key][:i:i], real[key][i+1:]...)
						break
					}
				}
			}
			if e.Kind != sim.EvSend && e.Kind != sim.EvReply {
				continue
			}
			v, ok := readVote(e.Msg)
			if !ok || !v.granted {
				continue
			}
			t, wasAsked := asked[[2]sim.NodeID{e.Node, e.Peer}]
			if !wasAsked || t != 0 && t != v.term {
				continue
			}
			this := ballot{voter: e.Node, candidate: e.Peer, term: v.term, at: e.At}
			switch {
			case e.Node == voter && !crashed && e.Peer == first && w.W.Now() < cvHeal:
				crashed = true
				firstVote = &this
				w.crashedAt = fmt.Sprintf("%s crashed right after it sent %s its vote in term %d, at %s, and came back %s later",
					voter, first, v.term, suite.FormatTime(e.At), suite.FormatTime(cvOff))
				w.W.CrashTearing(voter, 1<<30)
				w.W.Partition([]sim.NodeID{first})
				id := voter
				w.W.After(cvOff, func() { w.W.Restart(id) })
				// Until cvQuiet nothing of term v.term reaches the others
				// from the two servers in it: a server that asks pre-votes
				// and moves to the term it learns from their refusals would
				// otherwise stand in a later term, never ask the voter in
				// this one again, and hide a vote it forgot.
				for _, o := range w.Servers {
					if o == first || o == voter {
						continue
					}
					w.Inject(scene.CutOneWay{Sender: voter, Receiver: o, From: w.W.Now(), For: cvQuiet - w.W.Now()})
					w.Inject(scene.CutOneWay{Sender: first, Receiver: o, From: w.W.Now(), For: cvQuiet - w.W.Now()})
				}
			case firstVote != nil && e.Node == voter && v.term == firstVote.term && e.Peer != firstVote.candidate && w.ballots.first == nil:
				w.ballots.votedTwice(*firstVote, this)
			}
		}
	})
	w.lastFault = max(cvFrom+cvDown, cvHeal, cvQuiet)
	return w.play(cvEnd, cvEnd+100*time.Millisecond)
}
