package check

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"onehistory/internal/harness/course"
)

// DefaultTimeBound is the wall-clock time Linearizable gives porcupine when
// the caller passes no bound. It is the one wall-clock time in the harness
// that is allowed to matter, and it only bounds the search: running out of it
// is the failure "undecided", never a pass.
const DefaultTimeBound = 5 * time.Second

// Verdict is the outcome of a linearizability check.
type Verdict int

// The verdicts.
const (
	// VerdictLinearizable: there is one order of all the operations,
	// consistent with their real-time order, that the store could have
	// produced one at a time.
	VerdictLinearizable Verdict = iota + 1
	// VerdictIllegal: there is no such order.
	VerdictIllegal
	// VerdictUndecided: the search ran out of its time bound. This is a
	// failure.
	VerdictUndecided
)

// String is "linearizable", "illegal" or "undecided".
func (v Verdict) String() string {
	switch v {
	case VerdictLinearizable:
		return "linearizable"
	case VerdictIllegal:
		return "illegal"
	case VerdictUndecided:
		return "undecided"
	}
	return fmt.Sprintf("verdict(%d)", int(v))
}

// Linearization is the result of Linearizable: the verdict, the violation
// told as a story, and what DrawHTML needs to draw the history.
type Linearization struct {
	Verdict   Verdict
	Violation *Violation // nil when Verdict is VerdictLinearizable
	Keys      int        // keys checked, each on its own
	Checked   int        // operations given to the checker (see Linearizable)

	model  porcupine.Model
	info   porcupine.LinearizationInfo
	ops    []Operation // the whole history, by ID
	stamps stamps      // the times porcupine was given
}

// OK reports whether the history was found linearizable.
func (l *Linearization) OK() bool { return l.Verdict == VerdictLinearizable }

// Linearizable checks that h's operations form one history: that there is a
// single order of them, consistent with real time (an operation that returned
// before another was called comes first), in which a key-value store with
// versions and compare-and-set, applying them one at a time, gives every
// client the answer it got. Keys are checked independently, which is exact for
// this model and much faster.
//
// Operations that ended Refused are left out: they had no effect and returned
// no state. A read that timed out is left out: it returned nothing. A write
// that timed out (or is still pending) is indefinite: it may take effect at
// any point after its call, or never. Operations still pending count as timed
// out.
//
// bound limits the wall-clock time of the search (DefaultTimeBound if zero or
// negative). If it runs out, the result is VerdictUndecided with the
// violation "undecided": a failure, not a pass. Violations name clause 1
// (course.OneHistory); a caller may set another.
func Linearizable(h *History, bound time.Duration) *Linearization {
	return linearizable(h, bound, true)
}

func linearizable(h *History, bound time.Duration, byKey bool) *Linearization {
	return linearizeOps(h.Operations(), nil, bound, byKey)
}

// linearizeOps checks ops (the whole history, by ID), or only those keep
// accepts when keep is set.
func linearizeOps(ops []Operation, keep func(Operation) bool, bound time.Duration, byKey bool) *Linearization {
	if bound <= 0 {
		bound = DefaultTimeBound
	}
	history, st, end := porcupineHistory(ops, keep)
	model := kvModel(byKey)
	l := &Linearization{model: model, ops: ops, stamps: st, Checked: len(history)}

	parts := [][]porcupine.Operation{history}
	if byKey {
		parts = partitionByKey(history)
	}
	keys := map[string]bool{}
	for _, op := range history {
		keys[op.Input.(Input).Key] = true
	}
	l.Keys = len(keys)

	result, info := porcupine.CheckOperationsVerbose(model, history, bound)
	l.info = info
	partials := info.PartialLinearizations()
	for _, p := range partials {
		// porcupine gathers them from a map: order them, so that the same
		// history tells the same story and draws the same picture.
		slices.SortFunc(p, func(a, b []int) int {
			if c := cmp.Compare(len(b), len(a)); c != 0 {
				return c
			}
			return slices.Compare(a, b)
		})
	}

	switch result {
	case porcupine.Ok:
		l.Verdict = VerdictLinearizable
		return l
	case porcupine.Illegal:
		l.Verdict = VerdictIllegal
	default:
		l.Verdict = VerdictUndecided
	}

	// Partition i could not be linearized (or was not finished) when its
	// longest partial linearization leaves operations out.
	var stuck []stuckKey
	for i, part := range parts {
		var longest []int
		if i < len(partials) && len(partials[i]) > 0 {
			longest = partials[i][0]
		}
		if len(longest) < len(part) {
			stuck = append(stuck, newStuckKey(ops, part, longest))
		}
	}
	if l.Verdict == VerdictUndecided {
		l.Violation = undecided(stuck, len(history), l.Keys, bound, end)
		return l
	}
	slices.SortStableFunc(stuck, func(a, b stuckKey) int {
		return cmp.Compare(a.culpritReturn(), b.culpritReturn())
	})
	if len(stuck) == 0 { // cannot happen: porcupine said Illegal
		l.Violation = &Violation{Clause: course.OneHistory, Name: "non-linearizable", At: end,
			Story: "the checker found no single order of the operations, but named no operation"}
		return l
	}
	l.Violation = stuck[0].story(ops)
	if len(stuck) > 1 {
		var more []string
		for _, s := range stuck[1:] {
			more = append(more, s.key)
		}
		l.Violation.Details += fmt.Sprintf("\nother keys with no single history: %s\n", strings.Join(more, ", "))
	}
	return l
}

// porcupineHistory turns the recorded operations into porcupine's, leaving
// out those that say nothing (Refused; reads that timed out) and giving
// indefinite operations a return time after everything else. end is the last
// time in the history.
//
// Porcupine takes two operations that meet at one instant, one returning
// as the other is called, for concurrent. In a world that runs one process
// at a time they are not: a client that gets its answer and asks again at
// the same virtual millisecond asked after it was answered, and a read it
// then makes must see its own write. So the times given to porcupine are
// stamps (see stamps) that keep the order in which the History heard of
// the calls and returns of one instant.
func porcupineHistory(ops []Operation, keep func(Operation) bool) ([]porcupine.Operation, stamps, time.Duration) {
	var end time.Duration
	for _, op := range ops {
		if keep == nil || keep(op) {
			end = max(end, op.Call, op.Return)
		}
	}
	kept := make([]Operation, 0, len(ops))
	for _, op := range ops {
		if informative(op) && (keep == nil || keep(op)) {
			kept = append(kept, op)
		}
	}
	st := newStamps(kept, end)
	clients := map[string]int{}
	out := make([]porcupine.Operation, 0, len(kept))
	for _, op := range kept {
		id, ok := clients[op.Client]
		if !ok {
			id = len(clients)
			clients[op.Client] = id
		}
		ret := st.of(op.Return, op.returnSeq)
		r := op.Result
		if op.Indefinite() {
			ret = st.of(end+1, 0)
			r.Outcome = Indefinite
		}
		out = append(out, porcupine.Operation{
			ClientId: id,
			Input:    op.Input,
			Call:     st.of(op.Call, op.callSeq),
			Output:   r,
			Return:   ret,
			Metadata: opMeta{id: op.ID, client: op.Client, server: op.Server},
		})
	}
	return out, st, end
}

// stamps are the times porcupine is given: a virtual time, spread out by
// room, plus the rank, among the calls and returns recorded at that very
// instant, of the one stamped.
type stamps struct {
	room int64
	rank map[[2]int64]int64 // (time, order recorded) → rank within the instant
}

// newStamps ranks the calls and returns of ops within each instant, in the
// order the History recorded them.
func newStamps(ops []Operation, end time.Duration) stamps {
	byInstant := make(map[time.Duration][]int, 2*len(ops))
	add := func(at time.Duration, seq int) { byInstant[at] = append(byInstant[at], seq) }
	for _, op := range ops {
		add(op.Call, op.callSeq)
		if !op.Indefinite() {
			add(op.Return, op.returnSeq)
		}
	}
	st := stamps{room: 1, rank: make(map[[2]int64]int64, 2*len(ops))}
	for at, seqs := range byInstant {
		slices.Sort(seqs)
		for i, seq := range seqs {
			st.rank[[2]int64{int64(at), int64(seq)}] = int64(i)
		}
		st.room = max(st.room, int64(len(seqs)))
	}
	if int64(end)+1 > math.MaxInt64/st.room {
		panic(fmt.Sprintf("check: a history of %s with %d events at one instant is too long to stamp", end, st.room))
	}
	return st
}

// of is the stamp of the call or return recorded seq-th at virtual time at;
// seq 0 stamps the beginning of the instant, before anything recorded in it.
func (st stamps) of(at time.Duration, seq int) int64 {
	return int64(at)*st.room + st.rank[[2]int64{int64(at), int64(seq)}]
}

// informative reports whether an operation constrains the history. Outcomes
// an operation of its kind cannot have (a Conflict from a read) are treated
// as Refused.
func informative(op Operation) bool {
	o := op.Result.Outcome
	switch {
	case o == Refused:
		return false
	case op.Indefinite():
		return op.Input.Kind != KindRead
	case o == OK:
		return true
	}
	switch op.Input.Kind {
	case KindDelete:
		return o == NotFound || o == Conflict && op.Input.IfVersion != 0
	case KindRead, KindWrite:
		return o == NotFound
	case KindCreate:
		return o == AlreadyExists || o == Conflict
	case KindCompareAndSet:
		return o == Conflict || o == NotFound
	}
	return false
}

// stuckKey is one key whose operations could not be put in one order.
type stuckKey struct {
	key     string
	all     []OpID // the key's operations given to porcupine, in call order
	order   []OpID // the longest order found that explains a prefix of them
	culprit *Operation
}

func newStuckKey(ops []Operation, part []porcupine.Operation, longest []int) stuckKey {
	var s stuckKey
	in := map[int]bool{}
	for _, i := range longest {
		in[i] = true
		s.order = append(s.order, part[i].Metadata.(opMeta).id)
	}
	for i, p := range part {
		id := p.Metadata.(opMeta).id
		s.all = append(s.all, id)
		if in[i] {
			continue
		}
		// The first operation the order could not take: the earliest to
		// return, for it had to be placed before its return.
		op := &ops[id]
		if s.culprit == nil || lessByReturn(op, s.culprit) {
			s.culprit = op
		}
	}
	s.key = s.culprit.Input.Key
	return s
}

func effectiveReturn(op *Operation) time.Duration {
	if op.Indefinite() {
		return 1<<63 - 1
	}
	return op.Return
}

func lessByReturn(a, b *Operation) bool {
	if ra, rb := effectiveReturn(a), effectiveReturn(b); ra != rb {
		return ra < rb
	}
	if a.Call != b.Call {
		return a.Call < b.Call
	}
	return a.ID < b.ID
}

func (s stuckKey) culpritReturn() time.Duration {
	if s.culprit == nil {
		return 1<<63 - 1
	}
	return effectiveReturn(s.culprit)
}

// story tells why the culprit cannot be placed: what it saw, and the earlier
// operation (the witness) it contradicts.
func (s stuckKey) story(ops []Operation) *Violation {
	c := s.culprit
	v := &Violation{Clause: course.OneHistory, Name: "non-linearizable", At: c.Return, Ops: []OpID{c.ID}}
	w := s.witness(ops)
	what := tellOp(c)
	var but string
	switch {
	case c.Input.Kind == KindRead && c.Result.Outcome == OK && !everWritten(ops, c.Input.Key, c.Result.Value):
		v.Name = "impossible-read"
		but = fmt.Sprintf("but no client ever wrote %s=%s", c.Input.Key, formatValue(c.Result.Value))
		if w := deniedWrite(ops, c.Input.Key, c.Result.Value); w != nil {
			but = fmt.Sprintf("but the only write of %s=%s, %s's%s sent at %s, was answered %s at %s: a promise that it had no effect. "+
				"A server that cannot be sure nothing happened (its own call may have got through) must answer that it does not know, a timeout",
				c.Input.Key, formatValue(c.Result.Value), w.Client, onServer("through", w), formatTime(w.Call), w.Result.Outcome, formatTime(w.Return))
			v.Ops = append(v.Ops, w.ID)
		}
	case w != nil:
		but = "but " + tellWitness(w)
		if c.Input.Kind == KindRead && s.heldBefore(ops, c) {
			v.Name = "stale-read"
		}
	default:
		but = fmt.Sprintf("but no order of the operations on %s explains it", c.Input.Key)
	}
	if (c.Input.Kind == KindCompareAndSet || c.Input.Kind == KindDelete && c.Input.IfVersion != 0) && c.Result.Outcome == OK {
		v.Name = "stale-update"
	}
	if w != nil {
		v.Ops = append(v.Ops, w.ID)
	}
	v.Story = what + ", " + but
	for _, id := range v.Ops {
		if srv := ops[id].Server; srv != "" && !slices.Contains(v.Servers, srv) {
			v.Servers = append(v.Servers, srv)
		}
	}
	v.Details = s.details(ops)
	return v
}

// witness is the operation the culprit most plainly contradicts. For a
// refusal on the key's state, it is the one that showed the state refused
// (refuted). Otherwise it is in the longest order: the latest one to return
// before the culprit was called, preferring one that saw or set a different
// value; failing that, the last change in the order.
func (s stuckKey) witness(ops []Operation) *Operation {
	c := s.culprit
	if w := s.refuted(ops); w != nil {
		return w
	}
	cv, cExists, cObserved := observed(c)
	var best, bestDiffering *Operation
	for _, id := range s.order {
		op := &ops[id]
		if op.Input.Key != c.Input.Key || !op.Precedes(*c) {
			continue
		}
		if best == nil || op.Return >= best.Return {
			best = op
		}
		v, exists, ok := observed(op)
		differs := ok && cObserved && (exists != cExists || (exists && !sameValue(v, cv)))
		if !cObserved {
			differs = op.Input.Kind.Mutates()
		}
		if differs && (bestDiffering == nil || op.Return >= bestDiffering.Return) {
			bestDiffering = op
		}
	}
	if bestDiffering != nil {
		return bestDiffering
	}
	if best != nil {
		return best
	}
	for i := len(s.order) - 1; i >= 0; i-- {
		if op := &ops[s.order[i]]; op.Input.Key == c.Input.Key && op.Input.Kind.Mutates() {
			return op
		}
	}
	return nil
}

// refuted is, for a culprit refused on the key's state (a conflict with
// its precondition, a creation of what exists, a change of what is gone),
// the operation that showed the state the refusal denies: the latest
// acknowledged write, returned before the refusal was sent, that set the
// version (or value) the precondition names, deleted the key, or made it
// present; failing that, the latest read that saw that state; failing
// that, the latest acknowledged change of the key before it. One that
// showed the state is passed over when a later operation, before the
// refusal, showed the opposite (an early creation, since deleted, is no
// witness against a NotFound). It is nil for any other
// culprit, or when no operation on the key came before it.
func (s stuckKey) refuted(ops []Operation) (w *Operation) {
	c := s.culprit
	in := c.Input
	var shows func(op *Operation) bool
	switch o := c.Result.Outcome; {
	case o == Conflict && in.Kind == KindCompareAndSet && in.ByValue:
		shows = func(op *Operation) bool {
			v, exists, seen := observed(op)
			return seen && exists && sameValue(v, in.IfValue)
		}
	case o == Conflict && (in.Kind == KindCompareAndSet || in.Kind == KindDelete) && in.IfVersion != 0:
		shows = func(op *Operation) bool {
			_, exists, seen := observed(op)
			return seen && exists && op.Result.Version == in.IfVersion
		}
	case o == AlreadyExists && in.Kind == KindCreate:
		shows = func(op *Operation) bool {
			_, exists, seen := observed(op)
			return seen && !exists
		}
	case o == NotFound && in.Kind.Mutates() && in.Kind != KindCreate:
		shows = func(op *Operation) bool {
			_, exists, seen := observed(op)
			return seen && exists
		}
	default:
		return nil
	}
	var before []*Operation // the key's operations every order puts before the culprit
	for _, id := range s.all {
		if op := &ops[id]; op.ID != c.ID && op.Precedes(*c) {
			before = append(before, op)
		}
	}
	// An operation that showed the state is no witness once another, after
	// it in every order and before the culprit, showed the opposite: a
	// creation followed by a deletion says nothing against a NotFound.
	superseded := func(op *Operation) bool {
		for _, x := range before {
			if _, _, seen := observed(x); seen && !shows(x) && op.Precedes(*x) {
				return true
			}
		}
		return false
	}
	var wrote, read, latest *Operation
	later := func(best, op *Operation) *Operation {
		if best == nil || op.Return >= best.Return {
			return op
		}
		return best
	}
	for _, op := range before {
		switch {
		case op.Acknowledged() && shows(op) && !superseded(op):
			wrote = later(wrote, op)
		case shows(op) && !superseded(op):
			read = later(read, op)
		}
		if op.Acknowledged() {
			latest = later(latest, op)
		}
	}
	return cmp.Or(wrote, read, latest)
}

// observed is the value an operation saw or set, if it did either.
func observed(op *Operation) (value any, exists, ok bool) {
	if op.Result.Outcome != OK {
		if op.Result.Outcome == NotFound && op.Input.Kind == KindRead {
			return nil, false, true
		}
		return nil, false, false
	}
	switch op.Input.Kind {
	case KindRead:
		return op.Result.Value, true, true
	case KindDelete:
		return nil, false, true
	}
	return op.Input.Value, true, true
}

// everWritten reports whether any operation that may have taken effect
// (acknowledged or indefinite) wrote value to key.
func everWritten(ops []Operation, key string, value any) bool {
	for _, op := range ops {
		if op.Input.Key == key && sets(&op) && sameValue(op.Input.Value, value) &&
			(op.Acknowledged() || op.Indefinite()) {
			return true
		}
	}
	return false
}

// deniedWrite is a write of value to key whose client was told it had no
// effect (Refused, Conflict, ...): the one place a value no acknowledged or
// timed-out write set can have come from.
func deniedWrite(ops []Operation, key string, value any) *Operation {
	for i := range ops {
		op := &ops[i]
		if op.Input.Key == key && sets(op) && sameValue(op.Input.Value, value) && !op.Indefinite() && op.Result.Outcome != OK {
			return op
		}
	}
	return nil
}

func sets(op *Operation) bool {
	k := op.Input.Kind
	return k == KindWrite || k == KindCreate || k == KindCompareAndSet
}

// heldBefore reports whether what the read culprit saw is an older state of
// its key: a value set by an operation in the order found, or absence (every
// key starts absent). That makes it a stale read.
func (s stuckKey) heldBefore(ops []Operation, c *Operation) bool {
	if c.Result.Outcome == NotFound {
		return true
	}
	for _, id := range s.order {
		op := &ops[id]
		if op.Input.Key == c.Input.Key && sets(op) && sameValue(op.Input.Value, c.Result.Value) {
			return true
		}
	}
	return false
}

func onServer(prep string, op *Operation) string {
	if op.Server == "" {
		return ""
	}
	return " " + prep + " " + op.Server
}

// tellOp tells what the culprit did, as the first half of a sentence.
func tellOp(op *Operation) string {
	in, r, at := op.Input, op.Result, formatTime(op.Return)
	switch {
	case in.List != "" && r.Outcome == OK:
		return fmt.Sprintf("%s's list of %s%s at %s showed %s=%s%s", op.Client, in.List, onServer("from", op), at, in.Key, formatValue(r.Value), versionSuffix(r.Version))
	case in.List != "" && r.Outcome == NotFound:
		return fmt.Sprintf("%s's list of %s%s at %s held no %s", op.Client, in.List, onServer("from", op), at, in.Key)
	case in.Kind == KindRead && r.Outcome == OK:
		return fmt.Sprintf("%s read %s=%s%s%s at %s", op.Client, in.Key, formatValue(r.Value), versionSuffix(r.Version), onServer("from", op), at)
	case in.Kind == KindRead && r.Outcome == NotFound:
		return fmt.Sprintf("%s found no %s%s at %s", op.Client, in.Key, onServer("on", op), at)
	case in.Kind == KindCompareAndSet && r.Outcome == OK:
		return fmt.Sprintf("%s's update of %s to %s if %s succeeded%s at %s", op.Client, in.Key, formatValue(in.Value), in.precondition(), onServer("on", op), at)
	case in.Kind == KindCompareAndSet && r.Outcome == Conflict:
		return fmt.Sprintf("%s's update of %s to %s if %s was refused as a conflict%s at %s", op.Client, in.Key, formatValue(in.Value), in.precondition(), onServer("by", op), at)
	case in.Kind == KindDelete && in.IfVersion != 0 && r.Outcome == OK:
		return fmt.Sprintf("%s's delete of %s if %s succeeded%s at %s", op.Client, in.Key, in.precondition(), onServer("on", op), at)
	case in.Kind == KindDelete && in.IfVersion != 0 && r.Outcome == Conflict:
		return fmt.Sprintf("%s's delete of %s if %s was refused as a conflict%s at %s", op.Client, in.Key, in.precondition(), onServer("by", op), at)
	case in.Kind == KindDelete && r.Outcome == OK:
		return fmt.Sprintf("%s deleted %s%s at %s", op.Client, in.Key, onServer("on", op), at)
	case r.Outcome == OK:
		return fmt.Sprintf("%s's %s was acknowledged%s%s at %s", op.Client, in, onServer("by", op), versionSuffix(r.Version), at)
	}
	return fmt.Sprintf("%s's %s got %s%s at %s", op.Client, in, r.Outcome, onServer("from", op), at)
}

// tellWitness tells what the witness did, as the second half of a sentence.
func tellWitness(op *Operation) string {
	in, r, at := op.Input, op.Result, formatTime(op.Return)
	by := op.Server
	if by == "" {
		by = "the store"
	}
	switch {
	case op.Indefinite():
		return fmt.Sprintf("every order that explains the earlier operations already holds %s's %s%s (which timed out at %s)", op.Client, in, onServer("via", op), at)
	case in.List != "" && r.Outcome == OK:
		return fmt.Sprintf("%s's list of %s%s had shown %s=%s%s at %s", op.Client, in.List, onServer("from", op), in.Key, formatValue(r.Value), versionSuffix(r.Version), at)
	case in.List != "" && r.Outcome == NotFound:
		return fmt.Sprintf("%s's list of %s%s had held no %s at %s", op.Client, in.List, onServer("from", op), in.Key, at)
	case in.Kind == KindRead && r.Outcome == OK:
		return fmt.Sprintf("%s had read %s=%s%s%s at %s", op.Client, in.Key, formatValue(r.Value), versionSuffix(r.Version), onServer("from", op), at)
	case in.Kind == KindRead && r.Outcome == NotFound:
		return fmt.Sprintf("%s had found no %s%s at %s", op.Client, in.Key, onServer("on", op), at)
	case in.Kind == KindDelete && r.Outcome == OK:
		return fmt.Sprintf("%s had acknowledged %s's delete of %s at %s", by, op.Client, in.Key, at)
	case r.Outcome == OK:
		return fmt.Sprintf("%s had acknowledged %s=%s%s to %s at %s", by, in.Key, formatValue(in.Value), versionSuffix(r.Version), op.Client, at)
	}
	return fmt.Sprintf("%s's %s had got %s%s at %s", op.Client, in, r.Outcome, onServer("from", op), at)
}

// maxDetailRows bounds the table of a key's operations.
const maxDetailRows = 40

// details is the key's operations in call order: where each stands in the
// longest order found, and the culprit marked.
func (s stuckKey) details(ops []Operation) string {
	pos := map[OpID]int{}
	for i, id := range s.order {
		pos[id] = i + 1
	}
	rows := [][]string{{"order", "op", "client", "server", "operation", "called", "returned", "result"}}
	from, to := 0, len(s.all)
	if to > maxDetailRows {
		at := slices.Index(s.all, s.culprit.ID)
		from = max(0, at-maxDetailRows/2)
		to = min(len(s.all), from+maxDetailRows)
	}
	for _, id := range s.all[from:to] {
		op := &ops[id]
		mark := ""
		switch {
		case id == s.culprit.ID:
			mark = "✗"
		case pos[id] > 0:
			mark = fmt.Sprint(pos[id])
		}
		ret := formatTime(op.Return)
		if op.Result.Outcome == Pending {
			ret = "…"
		}
		rows = append(rows, []string{mark, fmt.Sprintf("#%d", id), op.Client, op.Server, op.Input.String(), formatTime(op.Call), ret, op.resultString()})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d operations; the longest single order found explains %d of them (column order), and cannot take #%d (✗):\n",
		s.key, len(s.all), len(s.order), s.culprit.ID)
	if from > 0 || to < len(s.all) {
		fmt.Fprintf(&b, "  (operations %d to %d of %d, around #%d)\n", from+1, to, len(s.all), s.culprit.ID)
	}
	b.WriteString(table(rows))
	return b.String()
}

// undecided is the violation for a search that ran out of time.
func undecided(stuck []stuckKey, n, keys int, bound time.Duration, end time.Duration) *Violation {
	v := &Violation{
		Clause: course.OneHistory,
		Name:   "undecided",
		At:     end,
		Story: fmt.Sprintf("the linearizability checker could not decide within %s whether %d operations on %d keys form one history; a run that cannot be decided does not pass",
			bound, n, keys),
	}
	rows := [][]string{{"key", "operations", "longest order found"}}
	for _, s := range stuck {
		rows = append(rows, []string{s.key, fmt.Sprint(len(s.all)), fmt.Sprint(len(s.order))})
	}
	v.Details = "keys not decided (many concurrent writes to one key make the search long; spread the workload over more keys or shorten the run):\n" + table(rows)
	return v
}
