package ex06suite

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/suite"
)

// twoSequencers judges histories that part because both servers gave out
// positions: at one position each holds a change of its own, and neither
// ever applied the other's (scene.Parted, Both). With one sequencer that
// cannot be, however late a copy: the sequencer holds every change it
// decided, so a change only the other holds was decided there. It tells the two writes, where each was sent and
// under which faults, and then why two servers ordered: each ordered the
// writes of its own objects (a split by key), or one took its write while
// the servers' link was slow, lossy or cut (a follower that steps in).
func twoSequencers(w *world) *suite.Failure {
	if scene.NumberedTwice(w.Histories) != nil {
		return nil
	}
	p := scene.Parted(w.History, w.Histories)
	if p == nil || !p.Both {
		return nil
	}
	gave := func(server string, c check.Change, op *check.Operation) string {
		what := fmt.Sprintf("%s=%v", c.Key, c.Value)
		if c.Deleted {
			what = "the deletion of " + c.Key
		}
		if op != nil {
			what = scene.TellWrite(op) + w.During(op)
		}
		return fmt.Sprintf("%s gave it to %s", server, what)
	}
	sides := []string{gave(p.Holder, p.Change, p.Write), gave(p.Lacker, *p.Instead, p.InsteadWrite)}
	first, second := p.Holder, p.Lacker
	if second < first {
		first, second = second, first
		sides[0], sides[1] = sides[1], sides[0]
	}
	story := fmt.Sprintf("%s and %s both gave out rv %d: %s, and %s; neither ever applied the other's change. %s",
		first, second, p.Change.Version, sides[0], sides[1], whyTwo(w, p))
	at := w.AuditedAt
	if p.Write != nil && p.InsteadWrite != nil {
		at = max(p.Write.Call, p.InsteadWrite.Call)
	}
	details := ""
	if v := check.OneHistory(w.Histories); v != nil {
		details = v.Details + "\n"
	}
	return &suite.Failure{Name: "two-sequencers", Clause: course.DurableAgreement, At: at, Story: story,
		Details: details + aloneDetails(w.Histories) + "faults:\n" + w.Describe()}
}

// whyTwo says why two servers ordered writes, from what each alone holds:
// the objects split between them, or a write one took while the servers'
// link was failing.
func whyTwo(w *world, p *scene.Parting) string {
	only := alone(w.Histories)
	a, b := only[p.Holder], only[p.Lacker]
	const one = "Positions are one sequence over every object, so one server, the sequencer, must give every write its place, " +
		"and a write that cannot reach it is not accepted"
	if len(a) >= splitAtLeast && len(b) >= splitAtLeast && !slices.ContainsFunc(keysOf(a), func(k string) bool { return slices.Contains(keysOf(b), k) }) {
		return fmt.Sprintf("Of the changes only one server holds, %s's %d are all to %s and %s's %d all to %s: each server ordered the writes to objects of its own. %s",
			p.Holder, len(a), strings.Join(keysOf(a), ", "), p.Lacker, len(b), strings.Join(keysOf(b), ", "), one)
	}
	var stepped []string
	for _, side := range []struct {
		server string
		op     *check.Operation
	}{{p.Holder, p.Write}, {p.Lacker, p.InsteadWrite}} {
		if side.op != nil && side.op.Server == side.server && w.During(side.op) != "" {
			stepped = append(stepped, side.server)
		}
	}
	const steps = "a server that orders a write without the other, whatever its reason (the other slow or out of reach, or a kind of write it thinks it may decide alone), " +
		"hands out the positions the other is handing out too"
	switch len(stepped) {
	case 1:
		return fmt.Sprintf("%s ordered the write sent to it itself, while the servers' link was failing: %s. %s", stepped[0], steps, one)
	case 2:
		return fmt.Sprintf("Each write was sent to the server that holds it alone, while the servers' link was failing, and each server ordered the write it was sent: %s. %s", steps, one)
	}
	return "Two servers that each hand out positions, in turn or at once, give one position to two changes. " + one
}

// splitAtLeast is how many changes each server must hold alone, all to
// objects the other holds none of alone, before whyTwo calls it a split by
// object rather than chance.
const splitAtLeast = 3

// alone lists, for each audited server, the changes it holds and no other
// audited server does.
func alone(histories map[string][]check.Change) map[string][]check.Change {
	out := map[string][]check.Change{}
	for server, own := range histories {
		others := map[string]bool{}
		for other, h := range histories {
			if other != server {
				for _, c := range h {
					others[scene.ChangeID(c)] = true
				}
			}
		}
		for _, c := range own {
			if !others[scene.ChangeID(c)] {
				out[server] = append(out[server], c)
			}
		}
	}
	return out
}

// keysOf lists the keys of changes, sorted, each once.
func keysOf(changes []check.Change) []string {
	var keys []string
	for _, c := range changes {
		keys = append(keys, c.Key)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// aloneDetails is the details' list of the changes each server alone
// holds.
func aloneDetails(histories map[string][]check.Change) string {
	only := alone(histories)
	var b strings.Builder
	b.WriteString("changes only one server holds:\n")
	for _, server := range slices.Sorted(maps.Keys(histories)) {
		var cs []string
		for _, c := range only[server] {
			cs = append(cs, c.String())
		}
		fmt.Fprintf(&b, "  %s: %s\n", server, strings.Join(cs, ", "))
	}
	return b.String()
}
