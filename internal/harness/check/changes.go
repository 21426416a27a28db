package check

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/course"
)

// Change is one accepted change in a server's history: the key set to a value,
// or deleted.
type Change struct {
	Version int64 // its resourceVersion (its position in the history), 0 if not tracked
	Key     string
	Value   any           // the value set; ignored when Deleted
	Deleted bool          // the change deletes Key
	At      time.Duration // when the server accepted it, 0 if not known
	// By are the writes that may have made the change, as their clients
	// recorded them: one when the records tell, several when they cannot
	// tell which, none when no record fits. Only Counter's stories read it.
	By []Writer
	// Unchanged are the acknowledged writes answered with this change's
	// version that made no change of their own: each wrote the value
	// already stored, so whatever increment it carried is in no change.
	// Only Counter's stories read it.
	Unchanged []Writer
}

// String is "rv 3 deployments/web=5" or "rv 4 delete deployments/web".
func (c Change) String() string {
	var b strings.Builder
	if c.Version != 0 {
		fmt.Fprintf(&b, "rv %d ", c.Version)
	}
	if c.Deleted {
		return b.String() + "delete " + c.Key
	}
	return b.String() + c.Key + "=" + formatValue(c.Value)
}

// Equal reports whether c and d are the same change: same version, key,
// value (normalized, as in Input) and deletion. At is not compared.
func (c Change) Equal(d Change) bool {
	return c.Version == d.Version && c.Key == d.Key && c.Deleted == d.Deleted &&
		(c.Deleted || sameValue(c.Value, d.Value))
}

// State applies changes in order and returns the final state: each key's last
// value, deleted keys absent. Values are normalized.
func State(changes []Change) map[string]any {
	s := map[string]any{}
	for _, c := range changes {
		if c.Deleted {
			delete(s, c.Key)
		} else {
			s[c.Key] = normalize(c.Value)
		}
	}
	return s
}

// Durable checks that every change acknowledged in h (a write,
// compare-and-set, create or delete that returned OK) is in final, the
// history that survived. A write is found by its key and value, so a workload
// should write values that are unique per key (a counter, an operation id); a
// delete is found by its key. Unacknowledged changes (timed out, refused) may
// be missing.
//
// It returns nil, or the violation "lost-write" of clause 2
// (course.DurableAgreement) naming the first acknowledged change missing, by
// acknowledgement time, and listing all of them in Details.
func Durable(h *History, final []Change) *Violation {
	var lost []Operation
	for _, op := range h.Operations() {
		if op.Acknowledged() && !contains(final, op) {
			lost = append(lost, op)
		}
	}
	if len(lost) == 0 {
		return nil
	}
	slices.SortStableFunc(lost, func(a, b Operation) int { return cmp.Compare(a.Return, b.Return) })
	first := &lost[0]
	by := first.Server
	if by == "" {
		by = "the store"
	}
	story := fmt.Sprintf("%s acknowledged %s's %s at %s, but the final history of %d changes does not hold it",
		by, first.Client, first.Input, formatTime(first.Return), len(final))
	if len(lost) > 1 {
		story += fmt.Sprintf(" (nor %d more acknowledged changes)", len(lost)-1)
	}
	v := &Violation{Clause: course.DurableAgreement, Name: "lost-write", Story: story, At: first.Return}
	rows := [][]string{{"op", "client", "server", "change", "acknowledged"}}
	for _, op := range lost {
		v.Ops = append(v.Ops, op.ID)
		if op.Server != "" && !slices.Contains(v.Servers, op.Server) {
			v.Servers = append(v.Servers, op.Server)
		}
		rows = append(rows, []string{fmt.Sprintf("#%d", op.ID), op.Client, op.Server, op.Input.String(), formatTime(op.Return) + versionSuffix(op.Result.Version)})
	}
	v.Details = "acknowledged changes missing from the final history:\n" + table(rows)
	return v
}

func contains(final []Change, op Operation) bool {
	for _, c := range final {
		if c.Key != op.Input.Key {
			continue
		}
		if op.Input.Kind == KindDelete {
			if c.Deleted {
				return true
			}
		} else if !c.Deleted && sameValue(c.Value, op.Input.Value) {
			return true
		}
	}
	return false
}

// OneHistory checks that the servers' histories of accepted changes are
// prefixes of one sequence: no two servers accepted different changes at the
// same position (a server that lags behind holds a shorter prefix, which is
// fine). servers maps a server's name to its changes in order.
//
// It returns nil, or the violation "divergent-history" naming the first
// position where two servers differ, with every server's entries side by
// side around it in Details. Its clause is 2 (course.DurableAgreement: never
// two machines believing different histories); a caller may set another.
func OneHistory(servers map[string][]Change) *Violation {
	names := slices.Sorted(maps.Keys(servers))
	longest := 0
	for _, n := range names {
		longest = max(longest, len(servers[n]))
	}
	for i := 0; i < longest; i++ {
		var a string
		for _, b := range names {
			if i >= len(servers[b]) {
				continue
			}
			if a == "" {
				a = b
				continue
			}
			ca, cb := servers[a][i], servers[b][i]
			if ca.Equal(cb) {
				continue
			}
			return &Violation{
				Clause:  course.DurableAgreement,
				Name:    "divergent-history",
				At:      max(ca.At, cb.At),
				Servers: []string{a, b},
				Story: fmt.Sprintf("%s and %s accepted different changes at position %d: %s holds %s, %s holds %s",
					a, b, i+1, a, ca, b, cb),
				Details: sideBySide(servers, names, i),
			}
		}
	}
	return nil
}

// sideBySide is a table of every server's entries around position at.
func sideBySide(servers map[string][]Change, names []string, at int) string {
	rows := [][]string{append([]string{"", "position"}, names...)}
	for i := max(0, at-3); i <= at+3; i++ {
		row := []string{"", fmt.Sprint(i + 1)}
		held := false
		for _, n := range names {
			cell := "·"
			if i < len(servers[n]) {
				cell = servers[n][i].String()
				held = true
			}
			row = append(row, cell)
		}
		if !held {
			break
		}
		if i == at {
			row[0] = "≠"
		}
		rows = append(rows, row)
	}
	return fmt.Sprintf("the servers' histories, first difference at position %d (· = not held):\n", at+1) + table(rows)
}

// Converged checks that every server holds the same state (key → value; a
// missing key is absent) at virtual time at, once faults have healed and the
// cluster has had time to settle. State turns a history into such a map.
//
// It returns nil, or the violation "no-convergence" of clause 2
// (course.DurableAgreement) naming the first differing key (keys sorted) and
// listing every differing key per server in Details.
func Converged(states map[string]map[string]any, at time.Duration) *Violation {
	names := slices.Sorted(maps.Keys(states))
	if len(names) < 2 {
		return nil
	}
	keySet := map[string]bool{}
	for _, s := range states {
		for k := range s {
			keySet[k] = true
		}
	}
	keys := slices.Sorted(maps.Keys(keySet))
	var differ []string
	for _, k := range keys {
		for _, n := range names[1:] {
			v0, ok0 := states[names[0]][k]
			v, ok := states[n][k]
			if ok != ok0 || (ok && !sameValue(v, v0)) {
				differ = append(differ, k)
				break
			}
		}
	}
	if len(differ) == 0 {
		return nil
	}
	cell := func(server, key string) string {
		if v, ok := states[server][key]; ok {
			return formatValue(v)
		}
		return "absent"
	}
	k := differ[0]
	var parts []string
	for _, n := range names {
		parts = append(parts, cell(n, k)+" on "+n)
	}
	v := &Violation{
		Clause:  course.DurableAgreement,
		Name:    "no-convergence",
		At:      at,
		Servers: names,
		Story: fmt.Sprintf("after the faults healed, the servers still disagree on %d of %d keys at %s: %s is %s",
			len(differ), len(keys), formatTime(at), k, strings.Join(parts, ", ")),
	}
	rows := [][]string{append([]string{"key"}, names...)}
	for _, k := range differ {
		row := []string{k}
		for _, n := range names {
			row = append(row, cell(n, k))
		}
		rows = append(rows, row)
	}
	v.Details = "keys whose values differ between servers:\n" + table(rows)
	return v
}

// StaleDelete finds the first conditional delete, in the order the clients
// heard yes, that was acknowledged although its object had changed since the
// version it named (course.OneHistory): in final, the one history, the last
// change to the key before the deletion must be the one at the
// precondition's resourceVersion. A delete that is not, in final, the
// deletion of its key at the position its answer gave is another failure
// (a lost or divergent write) and is not judged here.
func StaleDelete(h *History, final []Change) *Violation {
	return staleWrite(h, final, KindDelete, "stale-delete", "deleted", "A delete with a resourceVersion must fail with Conflict once the object has changed since")
}

// StaleUpdate finds the first update conditional on a resourceVersion, in
// the order the clients heard yes, that was acknowledged although its object
// had changed since the version it named (course.OneHistory): in final, the
// one history, the last change to the key before the update must be the one
// at the precondition's resourceVersion. An update that is not, in final,
// its key set to its value at the position its answer gave is another
// failure (a lost, misnumbered or divergent write) and is not judged here.
func StaleUpdate(h *History, final []Change) *Violation {
	return staleWrite(h, final, KindCompareAndSet, "stale-update", "updated",
		"An update with a resourceVersion must fail with Conflict once the object has changed since: it was decided on a version that was no longer the latest")
}

// staleWrite is StaleDelete and StaleUpdate: the first acknowledged write of
// kind conditional on a resourceVersion, in the order the clients heard
// yes, that stands in final at the position its answer gave although the
// last change to its key before it is not at the precondition's version.
// It is told as name, the object "no longer at rv N when it was <done>",
// ending with lesson.
func staleWrite(h *History, final []Change, kind Kind, name, done, lesson string) *Violation {
	var writes []Operation
	for _, op := range h.Operations() {
		if op.Input.Kind == kind && !op.Input.ByValue && op.Input.IfVersion != 0 && op.Acknowledged() {
			writes = append(writes, op)
		}
	}
	slices.SortStableFunc(writes, func(a, b Operation) int { return cmp.Compare(a.Return, b.Return) })
	for _, op := range writes {
		lastAt, stale := staleAt(final, op)
		if !stale {
			continue
		}
		state := fmt.Sprintf("was no longer at rv %d", op.Input.IfVersion)
		if op.Input.IfVersion > lastAt {
			// A precondition from the future: the object had never been there.
			state = fmt.Sprintf("had not yet reached rv %d", op.Input.IfVersion)
			lesson = "A write with a resourceVersion succeeds only while the object is at exactly that version, neither older nor newer"
		}
		return &Violation{Clause: course.OneHistory, Name: name, At: op.Return, Ops: []OpID{op.ID}, Servers: []string{op.Server},
			Story: fmt.Sprintf("%s's %s through %s, sent at %s, was acknowledged at %s as rv %d, "+
				"but in the one history %s %s when it was %s: the last change to it before %s is %s. %s",
				op.Client, op.Input, op.Server, formatTime(op.Call), formatTime(op.Return), op.Result.Version,
				op.Input.Key, state, done, changeOf(op), numbered(final, lastAt), lesson),
			Details: keyChanges(final, op),
		}
	}
	return nil
}

// staleAt looks at the change at the position of final (counting from 1:
// its resourceVersion) that op's answer gave, which must be op's own: the
// deletion of its key, or its key set to its value. It returns the position
// of the last change to the key before it, and whether op was stale: that
// change is not at the version op's precondition named.
func staleAt(final []Change, op Operation) (lastAt int64, stale bool) {
	key, index, rv := op.Input.Key, op.Result.Version, op.Input.IfVersion
	if index < 1 || index > int64(len(final)) {
		return 0, false
	}
	c := final[index-1]
	if c.Key != key || c.Deleted != (op.Input.Kind == KindDelete) || !c.Deleted && !sameValue(c.Value, op.Input.Value) {
		return 0, false
	}
	for i := index - 2; i >= 0; i-- {
		if final[i].Key == key {
			lastAt = i + 1
			break
		}
	}
	return lastAt, lastAt != 0 && lastAt != rv
}

// changeOf names the change a conditional write made: "the deletion", "the
// update".
func changeOf(op Operation) string {
	if op.Input.Kind == KindDelete {
		return "the deletion"
	}
	return "the update"
}

// numbered is the change at position at of final, with its version.
func numbered(final []Change, at int64) Change {
	c := final[at-1]
	if c.Version == 0 {
		c.Version = at
	}
	return c
}

// keyChanges lists the changes to the key op wrote, in final, up to op's
// change, which is marked.
func keyChanges(final []Change, op Operation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the changes to %s in the one history, up to %s:\n", op.Input.Key, changeOf(op))
	for i := range final[:op.Result.Version] {
		if final[i].Key != op.Input.Key {
			continue
		}
		fmt.Fprintf(&b, "  %s", numbered(final, int64(i+1)))
		if int64(i+1) == op.Result.Version {
			what := fmt.Sprintf("delete if rv=%d", op.Input.IfVersion)
			if op.Input.Kind != KindDelete {
				what = fmt.Sprintf("update to %s if rv=%d", formatValue(op.Input.Value), op.Input.IfVersion)
			}
			fmt.Fprintf(&b, "   ← %s's %s", op.Client, what)
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
