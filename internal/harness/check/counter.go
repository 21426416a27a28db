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
	prev := initial
	for i, c := range mine {
		v, ok := counterValue(c)
		if !ok || !deltas[v-prev] {
			return &Violation{Clause: course.OneHistory, Name: "lost-update", At: changeAt(c),
				Story: lostStory(key, initial, mine, i, prev, v, ok), Details: counterDetails(key, initial, incs, mine, i)}
		}
		if v-initial > acked+unknown {
			return &Violation{
				Clause: course.OneHistory, Name: "double-apply", At: changeAt(c),
				Story: fmt.Sprintf("%s made %s %d, %d above its start %d, but the clients were told of increments worth %d and did not know the outcome of %d more: %s",
					describeChange(c), key, v, v-initial, initial, acked, unknown, twice(incs, mine[:i+1])),
				Details: counterDetails(key, initial, incs, mine, i),
			}
		}
		prev = v
	}
	if prev-initial < acked {
		return &Violation{
			Clause: course.OneHistory, Name: "lost-update", At: lastAck,
			Story: fmt.Sprintf("the clients were told increments of %s worth %d took effect (the last at %s), but the history took it only from %d to %d: increments worth %d are in no change%s",
				key, acked, formatTime(lastAck), initial, prev, acked-(prev-initial), missing(incs, mine)),
			Details: counterDetails(key, initial, incs, mine, -1),
		}
	}
	if !reachable(prev-initial-acked, incs) {
		return &Violation{
			Clause: course.OneHistory, Name: "lost-update", At: changeAt(mine[len(mine)-1]),
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

// Writer is a write that may have made a change of a counter, as its
// client recorded it: who sent it, when, what its client was told, and the
// read it was computed from.
type Writer struct {
	Client string
	Sent   time.Duration // when the write was sent
	Told   time.Duration // when its client was told it was made; 0 if it never was
	// The read the write was computed from (its client's last read of the
	// counter before it sent the write): when it was answered, at which
	// version, and the value it returned. ReadAt is 0 when there was none.
	ReadAt      time.Duration
	ReadVersion int64
	ReadValue   any
}

// sentTold is "sent at 1040ms, told done at 1293.3ms", or, for a write its
// client was never told the outcome of, "sent at 1040ms, never told done".
func (w Writer) sentTold() string {
	if w.Told == 0 {
		return fmt.Sprintf("sent at %s, never told done", formatTime(w.Sent))
	}
	return fmt.Sprintf("sent at %s, told done at %s", formatTime(w.Sent), formatTime(w.Told))
}

// changeAt is when a change was made, as near as the records tell: when
// the server accepted it, else when its writer was told it was made, else
// when its write was sent (0 when nothing tells).
func changeAt(c Change) time.Duration {
	if c.At != 0 {
		return c.At
	}
	if len(c.By) == 1 {
		if c.By[0].Told != 0 {
			return c.By[0].Told
		}
		return c.By[0].Sent
	}
	return 0
}

// describeChange names a change by its writer and its time: "writer-2's
// write at rv 4 (sent at 1040ms, told done at 1293.3ms)", "the change at
// rv 4 (made by one of writer-1's write sent at 90ms or writer-3's ...,
// which the records cannot tell apart)", "the change at rv 4 at 110ms" or
// "the change at rv 4 (made at an unknown time)".
func describeChange(c Change) string {
	rv := "a change"
	if c.Version != 0 {
		rv = fmt.Sprintf("the change at rv %d", c.Version)
	}
	switch {
	case len(c.By) == 1:
		w := c.By[0]
		at := "at " + rv[len("the change at "):]
		if c.Version == 0 {
			at = "of the counter"
		}
		return fmt.Sprintf("%s's write %s (%s)", w.Client, at, w.sentTold())
	case c.At != 0:
		return fmt.Sprintf("%s at %s", rv, formatTime(c.At))
	}
	return fmt.Sprintf("%s (%s)", rv, madeBy(c))
}

// madeBy is what the records tell of a change whose writer they cannot
// name: "made by one of ..., which the records cannot tell apart", or
// "made at an unknown time".
func madeBy(c Change) string {
	if len(c.By) > 1 {
		return fmt.Sprintf("made by one of %s, which the records cannot tell apart", candidates(c.By))
	}
	return "made at an unknown time"
}

// readFrom tells the read a change's write was computed from, when its one
// writer recorded one: " (writer-2's read of deployments/web at rv 1,
// value 0, answered at 1020ms)".
func readFrom(key string, c Change) string {
	if len(c.By) != 1 || c.By[0].ReadAt == 0 {
		return ""
	}
	w := c.By[0]
	return fmt.Sprintf(" (%s's read of %s at rv %d, value %s, answered at %s)",
		w.Client, key, w.ReadVersion, formatValue(w.ReadValue), formatTime(w.ReadAt))
}

// lostStory tells a change of the counter that adds no increment: who
// wrote it, from which read, and whose accepted change it erased.
func lostStory(key string, initial int64, mine []Change, i int, prev, v int64, ok bool) string {
	c := mine[i]
	if !ok {
		return fmt.Sprintf("%s deleted the counter %s while it stood at %d%s", describeChange(c), key, prev, erased(key, initial, mine, i))
	}
	return fmt.Sprintf("%s set %s to %d over %d: no increment adds %d, so the write was computed from an older read%s%s",
		describeChange(c), key, v, prev, v-prev, readFrom(key, c), erased(key, initial, mine, i))
}

// erased names what the change at mine[i] overwrote: the change before it,
// with its writer, or the counter's start.
func erased(key string, initial int64, mine []Change, i int) string {
	if i == 0 {
		return fmt.Sprintf(", over %s's start %d", key, initial)
	}
	p := mine[i-1]
	pv, _ := counterValue(p)
	if len(p.By) == 1 {
		w := p.By[0]
		told := "which the history had accepted"
		if w.Told != 0 {
			told = fmt.Sprintf("which %s had been told was made", w.Client)
		}
		return fmt.Sprintf(", and it erased %s's increment at rv %d (to %d, %s), %s", w.Client, p.Version, pv, w.sentTold(), told)
	}
	name := "the change"
	if p.Version != 0 {
		name = fmt.Sprintf("the change at rv %d", p.Version)
	}
	when := madeBy(p)
	if p.At != 0 && len(p.By) == 0 {
		when = "at " + formatTime(p.At)
	}
	return fmt.Sprintf(", and it erased %s to %d (%s), an increment the history had accepted", name, pv, when)
}

// twice tells which increment took effect more than once, when the
// records tell: two changes written by one client inside one increment it
// asked for.
func twice(incs []Increment, mine []Change) string {
	const unknown = "an increment took effect twice, or one its client was told failed took effect"
	for _, inc := range incs {
		var in []Change
		for _, c := range mine {
			if len(c.By) == 1 && c.By[0].Client == inc.Client && c.By[0].Sent >= inc.Call && (inc.Return == 0 || c.By[0].Sent <= inc.Return) {
				in = append(in, c)
			}
		}
		if len(in) < 2 {
			continue
		}
		a, b := in[0], in[1]
		what := "was told it was made at " + formatTime(inc.Return)
		switch inc.Outcome {
		case Indefinite, Pending:
			what = "did not know its outcome"
		case OK:
		default:
			what = fmt.Sprintf("was told it failed (%s) at %s", inc.Outcome, formatTime(inc.Return))
		}
		return fmt.Sprintf("%s's one increment of %d, asked at %s, took effect twice: its write at rv %d (%s) and again at rv %d (%s); its client %s",
			inc.Client, inc.Delta, formatTime(inc.Call), a.Version, a.By[0].sentTold(), b.Version, b.By[0].sentTold(), what)
	}
	return unknown
}

// writtenBy is a change's writer as the details' table gives it:
// "writer-2, sent at 1040ms, told done at 1293.3ms".
func writtenBy(c Change) string {
	switch len(c.By) {
	case 0:
		return "no recorded write"
	case 1:
		return c.By[0].Client + ", " + c.By[0].sentTold()
	}
	return candidates(c.By)
}

// candidates are the writes that may have made one change, by client:
// "writer-1's writes sent at 837.9ms and 2837.9ms or writer-3's sent at
// 900ms, none told done".
func candidates(ws []Writer) string {
	var clients []string
	sent := map[string][]string{}
	for _, w := range ws {
		if _, ok := sent[w.Client]; !ok {
			clients = append(clients, w.Client)
		}
		sent[w.Client] = append(sent[w.Client], formatTime(w.Sent))
	}
	var alts []string
	for _, c := range clients {
		if len(sent[c]) == 1 {
			alts = append(alts, fmt.Sprintf("%s's write sent at %s", c, sent[c][0]))
			continue
		}
		alts = append(alts, fmt.Sprintf("%s's writes sent at %s", c, strings.Join(sent[c], ", ")))
	}
	return strings.Join(alts, " or ") + ", none told done"
}

// missing names the acknowledged increments no change of the counter was
// written for, when the changes tell their writers: "; writer-2's increment,
// told done at 1400ms, ...".
func missing(incs []Increment, mine []Change) string {
	for _, c := range mine {
		if len(c.By) != 1 {
			return ""
		}
	}
	var out []string
	for _, inc := range incs {
		if inc.Outcome != OK {
			continue
		}
		found := false
		for _, c := range mine {
			if w := c.By[0]; w.Client == inc.Client && w.Sent >= inc.Call && w.Sent <= inc.Return {
				found = true
			}
		}
		if !found {
			out = append(out, fmt.Sprintf("%s's increment of %d, asked at %s and told done at %s%s", inc.Client, inc.Delta, formatTime(inc.Call), formatTime(inc.Return), covered(inc, mine)))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return ": no change of the history was written for " + strings.Join(out, ", nor for ")
}

// covered tells how an acknowledged increment in no change was answered,
// when one of its client's writes inside it was answered unchanged: " (its
// write, computed from its read at rv 1, value 0, was answered unchanged
// at rv 2, which writer-2's write had already set to 1)".
func covered(inc Increment, mine []Change) string {
	for _, c := range mine {
		for _, u := range c.Unchanged {
			if u.Client != inc.Client || u.Sent < inc.Call || u.Sent > inc.Return {
				continue
			}
			read := ""
			if u.ReadAt != 0 {
				read = fmt.Sprintf(", computed from its read at rv %d, value %s,", u.ReadVersion, formatValue(u.ReadValue))
			}
			by := "a change"
			if len(c.By) == 1 {
				by = c.By[0].Client + "'s write"
			}
			return fmt.Sprintf(" (its write%s was answered unchanged at rv %d, which %s had already set to %s)", read, c.Version, by, formatValue(c.Value))
		}
	}
	return ""
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
	last := at < 0
	if last {
		at = len(mine) - 1
	}
	// The rows shown: the changes up to four before the decisive one and
	// the one after it; for a total that falls short (last), also each
	// culprit, with the change before it: a write computed from an older
	// read, or one answered unchanged, which covered an increment.
	show := map[int]bool{}
	for i := max(0, at-4); i < len(mine) && i <= at+1; i++ {
		show[i] = true
	}
	culprit := map[int]string{}
	if last {
		for i := range mine {
			if why := culpritOf(mine, i); why != "" {
				culprit[i] = why
				show[i] = true
				if i > 0 {
					show[i-1] = true
				}
			}
		}
	}
	fmt.Fprintf(&b, "%s started at %d; its changes in the agreed history", key, initial)
	if len(show) < len(mine) {
		fmt.Fprintf(&b, " (%d of %d; ⋮ marks those left out)", len(show), len(mine))
	}
	b.WriteString(":\n")
	writers := false
	for _, c := range mine {
		writers = writers || len(c.By) > 0
	}
	rows = [][]string{{"rv", "at", "value", ""}}
	if writers {
		rows = [][]string{{"rv", "value", "written by", ""}}
	}
	gap := false
	for i, c := range mine {
		if !show[i] {
			gap = true
			continue
		}
		if gap {
			rows = append(rows, []string{"⋮", "", "", ""})
			gap = false
		}
		v := formatValue(c.Value)
		if c.Deleted {
			v = "deleted"
		}
		mark := ""
		if i == at && (!last || len(culprit) == 0) {
			mark = "◀" // the decisive change, or the last when no culprit is known
		}
		if why := culprit[i]; why != "" && len(c.Unchanged) == 0 {
			mark = "◀ " + why
		}
		if writers {
			rows = append(rows, []string{fmt.Sprint(c.Version), v, writtenBy(c), mark})
		} else {
			when := "unknown"
			if c.At != 0 {
				when = formatTime(c.At)
			}
			rows = append(rows, []string{fmt.Sprint(c.Version), when, v, mark})
		}
		for _, u := range c.Unchanged {
			what := fmt.Sprintf("%s, %s: answered unchanged, no change of its own", u.Client, u.sentTold())
			if u.ReadAt != 0 {
				what += fmt.Sprintf(" (computed from its read at rv %d, value %s)", u.ReadVersion, formatValue(u.ReadValue))
			}
			if writers {
				rows = append(rows, []string{"", v, what, "◀"})
			} else {
				rows = append(rows, []string{"", "", v + " " + what, "◀"})
			}
		}
	}
	if gap {
		rows = append(rows, []string{"⋮", "", "", ""})
	}
	b.WriteString(table(rows))
	return b.String()
}

// culpritOf is why the change mine[i] covered an increment, when its
// records tell: its one writer computed it from a read older than the
// change before it ("computed from rv 8's read"), or acknowledged writes
// were answered with it and made no change of their own ("answered
// unchanged"); "" otherwise.
func culpritOf(mine []Change, i int) string {
	c := mine[i]
	if len(c.Unchanged) > 0 {
		return "answered unchanged"
	}
	if i == 0 || len(c.By) != 1 || c.By[0].ReadAt == 0 {
		return ""
	}
	if p := mine[i-1]; p.Version != 0 && c.By[0].ReadVersion < p.Version {
		return fmt.Sprintf("computed from its read at rv %d, before rv %d", c.By[0].ReadVersion, p.Version)
	}
	return ""
}
