package ex06suite

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// unheldDelete finds acknowledged deletions the final history does not
// hold: more yeses to deleting a key than deletions of it in the history.
// check.Durable asks a weaker question of a deletion (is the key deleted
// anywhere?), which a yes to the deletion of an object already gone passes
// as soon as anyone deletes the object once. (Every value written is new,
// so Durable's question is already exact for the other writes.) It returns
// nil, or the violation "lost-write" naming the first of those deletions
// whose resourceVersion, its position in the one history, is not a
// deletion of its key.
func unheldDelete(h *check.History, final []check.Change) *check.Violation {
	at := map[int64]check.Change{}
	held := map[string]int{}
	for _, c := range final {
		at[c.Version] = c
		if c.Deleted {
			held[c.Key]++
		}
	}
	acked := map[string][]check.Operation{}
	var keys []string
	for _, op := range h.Operations() {
		if op.Acknowledged() && op.Input.Kind == check.KindDelete {
			if acked[op.Input.Key] == nil {
				keys = append(keys, op.Input.Key)
			}
			acked[op.Input.Key] = append(acked[op.Input.Key], op)
		}
	}
	for _, key := range keys {
		ops := acked[key]
		if len(ops) <= held[key] {
			continue
		}
		slices.SortStableFunc(ops, func(a, b check.Operation) int { return cmp.Compare(a.Return, b.Return) })
		first, claimed := ops[0], map[int64]bool{}
		for _, op := range ops {
			if c, ok := at[op.Result.Version]; !ok || !c.Deleted || c.Key != key || claimed[op.Result.Version] {
				first = op
				break
			}
			claimed[op.Result.Version] = true
		}
		var where string
		switch c, ok := at[first.Result.Version]; {
		case first.Result.Version == 0:
			where = "rv 0, a position no change has"
		case !ok:
			where = fmt.Sprintf("rv %d, a position the final history does not reach", first.Result.Version)
		default:
			where = fmt.Sprintf("rv %d, where the final history holds %s", first.Result.Version, c)
		}
		story := fmt.Sprintf("%s acknowledged %s's %s at %s as %s. Clients were told yes to %d deletions of %s, but the final history of %d changes holds %d: "+
			"a yes to a deletion is a deletion in the one history, and an object already gone cannot be deleted again",
			first.Server, first.Client, first.Input, suite.FormatTime(first.Return), where, len(ops), key, len(final), held[key])
		v := &check.Violation{Clause: course.DurableAgreement, Name: "lost-write", Story: story, At: first.Return, Ops: []check.OpID{first.ID}}
		if first.Server != "" {
			v.Servers = []string{first.Server}
		}
		rows := []string{"acknowledged deletions of " + key + ":"}
		for _, op := range ops {
			rows = append(rows, "  "+op.String())
		}
		v.Details = strings.Join(rows, "\n")
		return v
	}
	return nil
}

// unansweredAnyRead judges a server that was up and did not answer the
// auditor's kube.Any read: such a read is answered from what the server
// holds, stale if need be, and must not wait on another server, least of
// all on a sequencer that is gone.
func unansweredAnyRead(w *world) *suite.Failure {
	if w.Err != nil {
		return nil // scene.Ran tells it
	}
	for _, u := range w.Unread {
		if !errors.Is(u.Err, sim.ErrTimeout) {
			continue
		}
		who := string(u.Server)
		if c, ok := sequencerLost(w.Scene); ok {
			who = fmt.Sprintf("%s, the server left once %s (the sequencer) was lost for good at %s,", u.Server, server1, suite.FormatTime(c.At))
		}
		story := fmt.Sprintf("once the clients had stopped, the suite asked %s for %s with kube.Any (resourceVersion \"0\") and got no answer in %s",
			who, u.Key, requestTimeout)
		return &suite.Failure{Name: "unanswered-read", Clause: course.OneHistory, At: w.AuditedAt,
			Story:   story + ": an Any read is answered from what the server holds, stale if need be, and must not wait on another server",
			Details: "faults:\n" + w.Describe()}
	}
	return nil
}

// misnumberedYes judges that every acknowledged scale or creation was told
// the position it holds in the one history (scene.MisnumberedYes): a
// follower that answers from its own copy, where a later change may
// already stand, tells its client another write's result.
func misnumberedYes(w *world) *suite.Failure { return scene.MisnumberedYes(w.Scene) }

// misnumberedDelete judges that every acknowledged deletion was told its
// place in the one history, as every other yes is (misnumberedYes): the
// object as it was, at the resourceVersion of the deletion. A yes at rv 0,
// or at a position that holds another change, tells the client nothing it
// can order its next request by. A deletion the final history does not
// reach is lostWrite's to judge.
func misnumberedDelete(w *world) *suite.Failure {
	final := w.Longest()
	for _, op := range w.History.Operations() {
		if !op.Acknowledged() || op.Input.Kind != check.KindDelete || op.Result.Version > int64(len(final)) {
			continue
		}
		held := "the one history holds no change at rv 0"
		if v := op.Result.Version; v >= 1 {
			c := final[v-1]
			if c.Deleted && c.Key == op.Input.Key {
				continue
			}
			held = fmt.Sprintf("at rv %d the one history holds %s", v, c)
		}
		for _, c := range final {
			if c.Deleted && c.Key == op.Input.Key {
				held += fmt.Sprintf(" (it holds a deletion of %s at rv %d)", c.Key, c.Version)
				break
			}
		}
		story := fmt.Sprintf("%s answered %s's %s (sent at %s) with yes and rv %d at %s, but %s: the answer gave the deletion no place in the "+
			"one history. A server answers a delete as it answers every write, with what the sequencer decided: the object as it was, "+
			"at the deletion's resourceVersion",
			op.Server, op.Client, op.Input, suite.FormatTime(op.Call), op.Result.Version, suite.FormatTime(op.Return), held)
		return &suite.Failure{Name: "misnumbered-yes", Clause: course.OneHistory, At: op.Return, Story: story, Details: op.String()}
	}
	return nil
}
