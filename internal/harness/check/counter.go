package check

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/course"
)

// Increment is one increment of a counter that a client asked for, with the
// outcome its client reported: OK (it took effect), Indefinite (the client
// could not tell: a timeout it could not resolve by reading), or a definite
// failure such as Conflict or Refused (it did not take effect).
type Increment struct {
	Client  string
	Delta   int64 // how much it adds; positive
	Outcome Outcome
	Call    time.Duration // when the client began it
	Return  time.Duration // when the client reported its outcome
}

// Counter checks a counter kept under key against the increments clients
// asked of it. changes is the agreed history (every key's changes, in
// order); the counter's values in it must be integers, starting from
// initial. It checks, in this order:
//
//   - every change of key adds the Delta of some increment to the value
//     before it: a change that does not (6 written over 6, a deletion) was
//     computed from an older read and erased an increment ("lost-update");
//   - the increments that took effect are at most those told OK plus those
//     whose outcome is unknown: no increment applied twice, and none told
//     failed that took effect ("double-apply");
//   - they are at least those told OK: the final value is the acknowledged
//     increments plus some subset of the indefinite ones ("lost-update").
//
// Both violations break clause 1 (course.OneHistory): the history is no
// longer one sequence of the changes the clients were told of.
func Counter(key string, initial int64, incs []Increment, changes []Change) *Violation {
	deltas := map[int64]bool{}
	var acked, unknown, failed int64
	var lastAck time.Duration
	for _, inc := range incs {
		deltas[inc.Delta] = true
		switch {
		case inc.Outcome == OK:
			acked += inc.Delta
			lastAck = max(lastAck, inc.Return)
		case inc.Outcome == Indefinite || inc.Outcome == Pending:
			unknown += inc.Delta
		default:
			failed += inc.Delta
		}
	}
	var mine []Change
	for _, c := range changes {
		if c.Key == key {
			mine = append(mine, c)
		}
	}
	prev, prevAt := initial, time.Duration(0)
	for i, c := range mine {
		v, ok := counterValue(c)
		if !ok || !deltas[v-prev] {
			what := "deleted it"
			if ok {
				what = fmt.Sprintf("set %s to %d over %d", key, v, prev)
			}
			story := fmt.Sprintf("%s at %s %s: no increment adds %d, so the write was computed from an older read and erased an increment the history had accepted",
				describeChange(c), formatTime(c.At), what, v-prev)
			if !ok {
				story = fmt.Sprintf("%s at %s deleted the counter %s while it stood at %d", describeChange(c), formatTime(c.At), key, prev)
			}
			if prevAt > 0 {
				story += fmt.Sprintf(" (it became %d at %s)", prev, formatTime(prevAt))
			}
			return &Violation{Clause: course.OneHistory, Name: "lost-update", At: c.At, Story: story, Details: counterDetails(key, initial, incs, mine, i)}
		}
		if v-initial > acked+unknown {
			return &Violation{
				Clause: course.OneHistory, Name: "double-apply", At: c.At,
				Story: fmt.Sprintf("%s at %s made %s %d, %d above its start %d, but the clients were told of increments worth %d and did not know the outcome of %d more: an increment took effect twice, or one its client was told failed took effect",
					describeChange(c), formatTime(c.At), key, v, v-initial, initial, acked, unknown),
				Details: counterDetails(key, initial, incs, mine, i),
			}
		}
		prev, prevAt = v, c.At
	}
	if prev-initial < acked {
		return &Violation{
			Clause: course.OneHistory, Name: "lost-update", At: lastAck,
			Story: fmt.Sprintf("the clients were told increments of %s worth %d took effect (the last at %s), but the history took it only from %d to %d: increments worth %d are in no change",
				key, acked, formatTime(lastAck), initial, prev, acked-(prev-initial)),
			Details: counterDetails(key, initial, incs, mine, -1),
		}
	}
	if !reachable(prev-initial-acked, incs) {
		return &Violation{
			Clause: course.OneHistory, Name: "lost-update", At: prevAt,
			Story: fmt.Sprintf("%s went from %d to %d: %d more than the increments told OK, which no set of the increments whose outcome is unknown adds up to",
				key, initial, prev, prev-initial-acked),
			Details: counterDetails(key, initial, incs, mine, -1),
		}
	}
	return nil
}

// counterValue is a change's value as an integer, if it is one and the
// change is not a deletion.
func counterValue(c Change) (int64, bool) {
	if c.Deleted {
		return 0, false
	}
	v, ok := normalize(c.Value).(int64)
	return v, ok
}

func describeChange(c Change) string {
	if c.Version != 0 {
		return fmt.Sprintf("the change at rv %d", c.Version)
	}
	return "a change"
}

// reachable reports whether some subset of the increments whose outcome is
// unknown adds up to want.
func reachable(want int64, incs []Increment) bool {
	if want < 0 {
		return false
	}
	sums := map[int64]bool{0: true}
	for _, inc := range incs {
		if inc.Outcome != Indefinite && inc.Outcome != Pending {
			continue
		}
		for _, s := range slices.Collect(maps.Keys(sums)) {
			if s+inc.Delta <= want {
				sums[s+inc.Delta] = true
			}
		}
	}
	return sums[want]
}

// counterDetails tells the increments each client asked for and how they
// ended, then the counter's changes around the decisive one (at; -1 for the
// last ones).
func counterDetails(key string, initial int64, incs []Increment, mine []Change, at int) string {
	type tally struct{ asked, ok, unknown, failed int }
	by := map[string]*tally{}
	var clients []string
	for _, inc := range incs {
		t := by[inc.Client]
		if t == nil {
			t = &tally{}
			by[inc.Client] = t
			clients = append(clients, inc.Client)
		}
		t.asked++
		switch {
		case inc.Outcome == OK:
			t.ok++
		case inc.Outcome == Indefinite || inc.Outcome == Pending:
			t.unknown++
		default:
			t.failed++
		}
	}
	slices.Sort(clients)
	rows := [][]string{{"client", "increments asked", "told done", "outcome unknown", "told failed"}}
	for _, c := range clients {
		t := by[c]
		rows = append(rows, []string{c, fmt.Sprint(t.asked), fmt.Sprint(t.ok), fmt.Sprint(t.unknown), fmt.Sprint(t.failed)})
	}
	var b strings.Builder
	b.WriteString(table(rows))
	if at < 0 {
		at = len(mine) - 1
	}
	from := max(0, at-4)
	fmt.Fprintf(&b, "%s started at %d; its changes in the agreed history", key, initial)
	if from > 0 {
		fmt.Fprintf(&b, " (from the %dth)", from+1)
	}
	b.WriteString(":\n")
	rows = [][]string{{"rv", "at", "value", ""}}
	for i := from; i < len(mine) && i <= at+1; i++ {
		c := mine[i]
		v := formatValue(c.Value)
		if c.Deleted {
			v = "deleted"
		}
		mark := ""
		if i == at {
			mark = "◀"
		}
		rows = append(rows, []string{fmt.Sprint(c.Version), formatTime(c.At), v, mark})
	}
	b.WriteString(table(rows))
	return b.String()
}
