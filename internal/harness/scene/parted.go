package scene

import (
	"fmt"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// Parting is the first place where two audited servers' histories part
// for a cause the records name: a change one server holds and the other
// never applied (the scenes write unique values, so a change is known by
// its key and value). Found by Parted.
type Parting struct {
	Holder, Lacker string       // the server that holds Change, and the one that never applied it
	Change         check.Change // as Holder holds it: its Version is its position there
	Write          *check.Operation
	// Instead is what Lacker holds at Change's position, nil when its
	// history ends before; InsteadWrite is the client's write behind it.
	Instead      *check.Change
	InsteadWrite *check.Operation
	// Both: Holder never applied Instead either, so each server gave the
	// position to a change of its own.
	Both bool
}

// Lost reports whether the parting is a lost copy: the Holder's change was
// answered (or its client gave up) before the write Lacker holds in its
// place was sent, or Lacker holds nothing of its own there. Otherwise the
// two servers gave one position to two writes in flight at once.
func (p *Parting) Lost() bool {
	if !p.Both || p.Write == nil || p.InsteadWrite == nil {
		return true
	}
	return answered(*p.Write) < p.InsteadWrite.Call
}

// answered is when op's client stopped waiting: its return, or, for one
// still pending, never.
func answered(op check.Operation) time.Duration {
	if op.Result.Outcome == check.Pending {
		return 1<<63 - 1
	}
	return op.Return
}

// Parted finds the first position at which one audited server holds a
// change another audited server never applied, and says who wrote it and
// what the other holds there instead; nil when every change any audited
// server holds is held by every other (their histories may still part by
// order: check.OneHistory tells that). When both servers hold a change of
// their own at that position, the Holder is the one whose write was
// answered before the other's was sent, if either was.
func Parted(h *check.History, histories map[string][]check.Change) *Parting {
	names := sortedNames(histories)
	var first *Parting
	for i, a := range names {
		for _, b := range names[i+1:] {
			if p := parted(h, a, b, histories[a], histories[b]); p != nil && (first == nil || p.Change.Version < first.Change.Version) {
				first = p
			}
		}
	}
	return first
}

func parted(h *check.History, a, b string, ha, hb []check.Change) *Parting {
	inA, inB := changeSet(ha), changeSet(hb)
	for i := range max(len(ha), len(hb)) {
		var ca, cb *check.Change
		if i < len(ha) {
			ca = &ha[i]
		}
		if i < len(hb) {
			cb = &hb[i]
		}
		aOnly := ca != nil && !inB[ChangeID(*ca)]
		bOnly := cb != nil && !inA[ChangeID(*cb)]
		if !aOnly && !bOnly {
			continue
		}
		var p *Parting
		if aOnly {
			p = &Parting{Holder: a, Lacker: b, Change: *ca, Instead: cb, Both: bOnly}
		} else {
			p = &Parting{Holder: b, Lacker: a, Change: *cb, Instead: ca}
		}
		p.Write = writer(h, p.Change)
		if p.Instead != nil {
			p.InsteadWrite = writer(h, *p.Instead)
		}
		if p.Both && !p.Lost() && p.InsteadWrite != nil && p.Write != nil && answered(*p.InsteadWrite) < p.Write.Call {
			change, instead := *p.Instead, p.Change
			p.Holder, p.Lacker, p.Change, p.Instead = p.Lacker, p.Holder, change, &instead
			p.Write, p.InsteadWrite = p.InsteadWrite, p.Write
		}
		p.Change.Version = int64(i + 1)
		return p
	}
	return nil
}

// ChangeID names a change by what it does: its key and the value it set
// (the scenes write unique values), wherever it stands; or a deletion of
// its key at its position, for two servers that each deleted the same
// object made two changes.
func ChangeID(c check.Change) string {
	if c.Deleted {
		return fmt.Sprint(c.Key, " deleted at ", c.Version)
	}
	return fmt.Sprint(c.Key, "=", c.Value)
}

func changeSet(changes []check.Change) map[string]bool {
	set := map[string]bool{}
	for _, c := range changes {
		set[ChangeID(c)] = true
	}
	return set
}

// writer is the client's write behind change c, nil if none is found: the
// one write of its value, or for a deletion the acknowledged deletion of
// its key at its position, failing that the first deletion of the key sent
// after the deleted value was written.
func writer(h *check.History, c check.Change) *check.Operation {
	ops := h.Operations()
	var set *check.Operation
	for i := range ops {
		op := &ops[i]
		if op.Input.Key != c.Key || !op.Input.Kind.Mutates() {
			continue
		}
		if !c.Deleted && op.Input.Kind != check.KindDelete && fmt.Sprint(op.Input.Value) == fmt.Sprint(c.Value) {
			return op
		}
		if c.Deleted && op.Input.Kind == check.KindDelete && op.Acknowledged() && op.Result.Version == c.Version {
			return op
		}
		if op.Input.Kind != check.KindDelete && fmt.Sprint(op.Input.Value) == fmt.Sprint(c.Value) {
			set = op
		}
	}
	if !c.Deleted || set == nil {
		return nil
	}
	for i := range ops {
		if op := &ops[i]; op.Input.Key == c.Key && op.Input.Kind == check.KindDelete && op.Call > set.Call && op.Result.Outcome != check.Refused {
			return op
		}
	}
	return nil
}

// TellWrite tells a client's write, not nil, and its answer: "controller-a's update
// deployments/web=133 (sent to server-1 at 1200ms, answered yes at
// 1250ms)".
func TellWrite(op *check.Operation) string {
	var answer string
	switch {
	case op.Result.Outcome == check.Pending:
		answer = "never answered"
	case op.Indefinite():
		answer = "the client gave up waiting at " + fmtTime(op.Return)
	case op.Acknowledged():
		answer = "answered yes at " + fmtTime(op.Return)
	default:
		answer = fmt.Sprintf("answered %s at %s", op.Result.Outcome, fmtTime(op.Return))
	}
	to := ""
	if op.Server != "" {
		to = " to " + op.Server
	}
	return fmt.Sprintf("%s's %s (sent%s at %s, %s)", op.Client, op.Input, to, fmtTime(op.Call), answer)
}

// During tells the faults that were in force when op was sent ("while cut
// link server-1 ↔ server-2 (from 1100ms to 4900ms)"), or else those that
// first that began while it was in flight (", in flight when ... began at
// 1300ms");
// "" when none was either.
func (s *Scene) During(op *check.Operation) string {
	if op == nil {
		return ""
	}
	var at, began []string
	for _, f := range s.Faults {
		switch {
		case f.Kind == sim.FaultSkew:
		case f.Start <= op.Call && (f.Open || f.Last() >= op.Call):
			until := ""
			if !f.Open {
				until = " to " + fmtTime(f.Last())
			}
			at = append(at, fmt.Sprintf("%s (from %s%s)", f.Desc, fmtTime(f.Start), until))
		case f.Start > op.Call && f.Start <= answered(*op) && len(began) == 0:
			began = append(began, fmt.Sprintf("%s began at %s", f.Desc, fmtTime(f.Start)))
		}
	}
	switch {
	case len(at) > 0:
		return " while " + strings.Join(at, " and ")
	case len(began) > 0:
		return ", in flight when " + strings.Join(began, " and ")
	}
	return ""
}

// LostCopy judges the audited histories for a lost copy (Parted, Lost): a
// change one server holds, and had answered, that the other never applied,
// told by what happened: which write, on which server, answered when,
// under which faults, and what the other server holds in its place. It
// returns the violation "lost-copy" of clause, or nil. A server that holds
// one change twice is left to NumberedTwice and AppliedTwice.
func LostCopy(s *Scene, clause course.Clause) *suite.Failure {
	for _, h := range s.Histories {
		for range Repeats(h) {
			return nil // one change applied twice: NumberedTwice and AppliedTwice tell it
		}
	}
	p := Parted(s.History, s.Histories)
	if p == nil || !p.Lost() {
		return nil
	}
	at := s.AuditedAt
	if p.Write != nil {
		at = p.Write.Call
	}
	var instead string
	switch {
	case p.Instead == nil:
		instead = fmt.Sprintf("when the suite read them at %s, %s's history ended at rv %d", fmtTime(s.AuditedAt), p.Lacker, p.Change.Version-1)
	case p.Both:
		instead = fmt.Sprintf("at rv %d it holds %s instead, %s", p.Change.Version, tellChange(*p.Instead), TellWrite(p.InsteadWrite))
		switch {
		case p.Write == nil || p.InsteadWrite == nil:
		case p.Write.Acknowledged():
			instead += ", sent after that yes"
		default:
			instead += fmt.Sprintf(", sent after %s had stopped waiting", p.Write.Client)
		}
	default:
		instead = fmt.Sprintf("at rv %d it holds %s, which %s holds at another position", p.Change.Version, tellChange(*p.Instead), p.Holder)
	}
	what := TellWrite(p.Write)
	if p.Write == nil {
		what = tellChange(p.Change) + ", which no client's write asked for,"
	}
	rule := "A change must be on the other server before anyone is told yes, sent again until it is there and applied there at its position: " +
		"a copy lost, or dropped on a retry, parts the two histories for good"
	if op := p.Write; op != nil && op.Result.Outcome != check.OK && !op.Indefinite() {
		rule = fmt.Sprintf("%s answered %s no (%s) and kept the change in its history: a definite no must mean the change is nowhere; "+
			"a change a server keeps must be sent again until the other server holds it, and a client it cannot answer yes is told it does not know (a timeout)",
			p.Holder, op.Client, op.Result.Outcome)
	}
	story := fmt.Sprintf("%s took %s as rv %d%s, and %s never applied it: %s. %s",
		p.Holder, what, p.Change.Version, s.During(p.Write), p.Lacker, instead, rule)
	v := check.OneHistory(s.Histories)
	details := ""
	if v != nil {
		details = v.Details
	}
	return &suite.Failure{Name: "lost-copy", Clause: clause, At: at, Story: story, Details: details + "\nfaults:\n" + s.Describe()}
}

// tellChange tells a change without its position: "deployments/web=5",
// "the deletion of deployments/batch".
func tellChange(c check.Change) string {
	if c.Deleted {
		return "the deletion of " + c.Key
	}
	return fmt.Sprintf("%s=%v", c.Key, c.Value)
}
