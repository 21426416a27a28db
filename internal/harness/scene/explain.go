package scene

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// List lists kind through api, a Latest read, and records it as reads of
// keys: the recording client records each item the list holds as a read of
// its key, and List adds a read that found nothing for each of keys the list
// does not hold, at the same call and return times. A list that misses an
// object every client was told exists is then a stale read, as a Get would
// be. api should be pinned to one server, which the records name.
func (s *Scene) List(p *sim.Proc, api *kube.Client, kind string, keys ...string) (kube.List, error) {
	call := p.Now()
	l, err := api.List(kind, kube.ReadOptions{ResourceVersion: kube.Latest})
	if err != nil {
		return l, err
	}
	held := map[string]bool{}
	for _, o := range l.Items {
		held[o.Key()] = true
	}
	server := ""
	if srv := api.Servers(); len(srv) == 1 {
		server = string(srv[0])
	}
	for _, key := range keys {
		if !held[key] {
			id := s.History.Call(api.Name(), server, check.ListItem(kind, key), call)
			s.History.Return(id, check.Fail(check.NotFound), p.Now())
		}
	}
	return l, nil
}

// AppliedTwice finds a write that the one history holds twice (the same key
// set to the same value at two positions, every server agreeing: the scenes
// write unique values), such as a write sent to the server that orders
// writes a second time after its answer was lost. It returns the violation
// "write-applied-twice" of clause 1, naming the client's operation, or nil.
func AppliedTwice(h *check.History, final []check.Change) *check.Violation {
	for first, i := range Repeats(final) {
		c := final[i]
		var writers []check.Operation
		for _, op := range h.Operations() {
			if op.Input.Kind.Mutates() && op.Input.Key == c.Key && op.Input.Value != nil && fmt.Sprint(op.Input.Value) == fmt.Sprint(c.Value) {
				writers = append(writers, op)
			}
		}
		if len(writers) != 1 {
			continue // not one client's write: the value came from somewhere else
		}
		op := writers[0]
		who := fmt.Sprintf("%s's %s (sent to %s at %s, %s)", op.Client, op.Input, op.Server, fmtTime(op.Call), op.Result.Outcome)
		return &check.Violation{Clause: course.OneHistory, Name: "write-applied-twice", At: c.At,
			Story: fmt.Sprintf("the servers agree on one history, but it holds %s=%v twice, at positions %d and %d: %s was applied as two changes",
				c.Key, c.Value, first+1, i+1, who)}
	}
	return nil
}

// Repeats yields each change of changes that sets a key to a value an
// earlier change already set it to (the scenes write unique values, so
// such a change is one change held twice): the position of the first,
// then its own (from 0).
func Repeats(changes []check.Change) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		seen := map[string]int{}
		for i, c := range changes {
			if c.Deleted {
				continue
			}
			k := fmt.Sprint(c.Key, "=", c.Value)
			first, twice := seen[k]
			if !twice {
				seen[k] = i
				continue
			}
			if !yield(first, i) {
				return
			}
		}
	}
}

// NumberedTwice finds, among servers whose histories are not prefixes of
// one, a server whose history holds the same change (the same key set to
// the same value: the scenes write unique values) at two positions, and
// returns the violation "divergent-history" whose story starts with that
// double numbering, or nil.
func NumberedTwice(histories map[string][]check.Change) *check.Violation {
	if check.OneHistory(histories) == nil {
		return nil // every server holds the same repeat: one history, written twice
	}
	for _, id := range sortedNames(histories) {
		for first, i := range Repeats(histories[id]) {
			c := histories[id][i]
			v := check.OneHistory(histories)
			v.Story = fmt.Sprintf("%s numbered one change twice: it holds %s=%v at position %d and again at position %d, "+
				"so its history and the others' part (%s)", id, c.Key, c.Value, first+1, i+1, v.Story)
			v.Servers = []string{id}
			return v
		}
	}
	return nil
}

// sortedNames lists m's servers in order.
func sortedNames(m map[string][]check.Change) []string { return slices.Sorted(maps.Keys(m)) }

// Impossible is one sentence saying why no single order explains a
// linearizability violation: the operation it contradicts had finished
// before the culprit began, so every order puts it first, and there the
// culprit's answer cannot be. It is empty when the violation names no such
// pair.
func Impossible(ops []check.Operation, v *check.Violation) string {
	if v == nil || len(v.Ops) < 2 {
		return ""
	}
	c, w := ops[v.Ops[0]], ops[v.Ops[1]]
	if !w.Precedes(c) {
		return ""
	}
	what := ""
	switch {
	case c.Input.Kind == check.KindRead && c.Result.Outcome == check.OK:
		what = fmt.Sprintf("%s is no longer %v", c.Input.Key, c.Result.Value)
	case c.Input.Kind == check.KindRead && c.Result.Outcome == check.NotFound:
		what = fmt.Sprintf("%s exists", c.Input.Key)
	case c.Input.Kind == check.KindCompareAndSet && c.Result.Outcome == check.OK:
		what = fmt.Sprintf("%s is no longer at %s", c.Input.Key, versionOf(c.Input))
	}
	began := fmt.Sprintf("before %s's %s began at %s", c.Client, c.Input.Verb(), fmtTime(c.Call))
	if fmtTime(w.Return) == fmtTime(c.Call) {
		// One client's next call, at the instant its last one returned.
		began = fmt.Sprintf("and only then did %s's %s begin", c.Client, c.Input.Verb())
	}
	why := fmt.Sprintf("That is impossible in one history: %s's %s ended at %s, %s, so every order puts it first",
		w.Client, w.Input.Verb(), fmtTime(w.Return), began)
	if what == "" {
		return why + ", and none that does explains the later answer."
	}
	return why + ", and after it " + what + "."
}

func versionOf(in check.Input) string {
	if !in.ByValue && in.IfVersion != 0 {
		return fmt.Sprintf("rv %d", in.IfVersion)
	}
	return "the version it expected"
}

func fmtTime(d time.Duration) string { return suite.FormatTime(d.Round(100 * time.Microsecond)) }
