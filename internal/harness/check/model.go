package check

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
)

// keyState is the model's state of one key. The model is partitioned per key
// (a history is linearizable if and only if each key's history is), so a
// state is one value, not a map.
//
// Why a version may be inexact: a write that timed out, or whose
// acknowledgement did not report a version, moved the key to a version we
// never saw. The model then remembers only a lower bound (the true version is
// at least version) and becomes exact again at the next operation that
// reports one. For example: write 5 → ok (rv 3); write 7 → timed out; read →
// 7 (rv 9). After the timeout the state is "7, rv ≥ 3"; the read makes it
// "7, rv 9".
type keyState struct {
	exists  bool
	value   any
	version int64
	exact   bool // false: version is a lower bound
}

// opMeta travels with each porcupine operation, to find our operation again
// and to label it in the visualization.
type opMeta struct {
	id             OpID
	client, server string
}

// kvModel is the porcupine model of the store: a key-value map with
// versions, compare-and-set, create and delete, partitioned per key.
//
// It is nondeterministic only where the history does not say what happened:
// a compare-and-set that timed out against a key whose version is inexact
// may have succeeded or failed. A timed-out operation is given a return time
// after every other operation, so that it may take effect at any point after
// its call, or (by taking effect last) never.
func kvModel(partition bool) porcupine.Model {
	if !partition {
		return wholeModel()
	}
	m := porcupine.NondeterministicModel{
		Init: func() []any { return []any{keyState{exact: true}} },
		Step: func(state, input, output any) []any {
			next := step(state.(keyState), input.(Input), output.(Result))
			out := make([]any, len(next))
			for i, s := range next {
				out[i] = s
			}
			return out
		},
		Equal: func(a, b any) bool { return a.(keyState) == b.(keyState) },
		Hash:  func(s any) uint64 { return hashState(s.(keyState)) },
		DescribeOperation: func(input, output any) string {
			op := Operation{Input: input.(Input), Result: output.(Result)}
			return fmt.Sprintf("%s → %s", op.Input, op.resultString())
		},
		DescribeState: func(s any) string { return describeState(s.(keyState)) },
		DescribeOperationMetadata: func(info any) string {
			m, ok := info.(opMeta)
			if !ok {
				return ""
			}
			if m.server == "" {
				return fmt.Sprintf("#%d %s", m.id, m.client)
			}
			return fmt.Sprintf("#%d %s via %s", m.id, m.client, m.server)
		},
	}
	m.Partition = partitionByKey
	return m.ToModel()
}

// partitionByKey splits a history into one history per key, keys sorted, so
// that partition i is always the same key for the same history.
func partitionByKey(history []porcupine.Operation) [][]porcupine.Operation {
	byKey := map[string][]porcupine.Operation{}
	var keys []string
	for _, op := range history {
		k := op.Input.(Input).Key
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], op)
	}
	slices.Sort(keys)
	out := make([][]porcupine.Operation, len(keys))
	for i, k := range keys {
		out[i] = byKey[k]
	}
	return out
}

// step returns every state the key may be in after the operation in → r
// took effect in state s; none if it cannot have happened in s.
func step(s keyState, in Input, r Result) []keyState {
	if r.Outcome == Indefinite || r.Outcome == Pending {
		return stepIndefinite(s, in)
	}
	switch in.Kind {
	case KindRead:
		switch r.Outcome {
		case OK:
			if s.exists && sameValue(s.value, r.Value) && versionMatches(s, r.Version) {
				return []keyState{observe(s, r.Version)}
			}
		case NotFound:
			if !s.exists {
				return []keyState{s}
			}
		}
	case KindWrite:
		switch r.Outcome {
		case OK:
			if newVersionOK(s, in.Value, r.Version) {
				return []keyState{set(s, in.Value, r.Version)}
			}
		case NotFound: // an update without precondition of an absent object
			if !s.exists {
				return []keyState{s}
			}
		}
	case KindCreate:
		switch r.Outcome {
		case OK:
			if !s.exists && newVersionOK(s, in.Value, r.Version) {
				return []keyState{set(s, in.Value, r.Version)}
			}
		case AlreadyExists, Conflict:
			if s.exists {
				return []keyState{s}
			}
		}
	case KindDelete:
		mayHold, mayFail := deletable(s, in)
		switch r.Outcome {
		case OK:
			base := s
			if in.IfVersion != 0 {
				base.version, base.exact = in.IfVersion, true
			}
			if mayHold && (r.Version == 0 || r.Version > base.version || (!base.exact && r.Version >= base.version)) {
				return []keyState{deleted(base, r.Version)}
			}
		case Conflict: // only a conditional delete is refused as a conflict
			if in.IfVersion != 0 && mayFail {
				return []keyState{s}
			}
		case NotFound:
			if !s.exists {
				return []keyState{s}
			}
		}
	case KindCompareAndSet:
		mayHold, mayFail := precondition(s, in)
		switch r.Outcome {
		case OK:
			if mayHold {
				base := s
				if !in.ByValue {
					base.version, base.exact = in.IfVersion, true
				}
				if newVersionOK(base, in.Value, r.Version) {
					return []keyState{set(base, in.Value, r.Version)}
				}
			}
		case Conflict:
			if mayFail {
				return []keyState{s}
			}
		case NotFound:
			if !s.exists {
				return []keyState{s}
			}
		}
	}
	return nil
}

// stepIndefinite is the effect of an operation whose outcome is unknown,
// taking effect now. (Not taking effect at all is the same as taking effect
// after everything else, which its infinite return time allows.)
func stepIndefinite(s keyState, in Input) []keyState {
	switch in.Kind {
	case KindWrite:
		return []keyState{set(s, in.Value, 0)}
	case KindCreate:
		if !s.exists {
			return []keyState{set(s, in.Value, 0)}
		}
	case KindDelete:
		var out []keyState
		mayHold, mayFail := deletable(s, in)
		if mayHold {
			out = append(out, deleted(s, 0))
		}
		if mayFail {
			out = append(out, s)
		}
		return out
	case KindCompareAndSet:
		var out []keyState
		mayHold, mayFail := precondition(s, in)
		if mayHold {
			base := s
			if !in.ByValue {
				base.version = in.IfVersion
			}
			out = append(out, set(base, in.Value, 0))
		}
		if mayFail {
			out = append(out, s)
		}
		return out
	}
	return []keyState{s}
}

// precondition says whether a compare-and-set's precondition may hold and
// whether it may fail in s (both, when s's version is inexact).
func precondition(s keyState, in Input) (mayHold, mayFail bool) {
	switch {
	case !s.exists:
		return false, true
	case in.ByValue:
		holds := sameValue(s.value, in.IfValue)
		return holds, !holds
	case s.exact:
		return s.version == in.IfVersion, s.version != in.IfVersion
	default:
		return in.IfVersion >= s.version, true
	}
}

// deletable says whether a delete may succeed and whether it may fail in s:
// an unconditional one succeeds exactly when the key exists, a conditional
// one (IfVersion set) as its precondition allows.
func deletable(s keyState, in Input) (mayHold, mayFail bool) {
	if in.IfVersion == 0 {
		return s.exists, !s.exists
	}
	return precondition(s, in)
}

// versionMatches says whether a read reporting version v is possible in s.
func versionMatches(s keyState, v int64) bool {
	switch {
	case v == 0:
		return true
	case s.exact:
		return v == s.version
	default:
		return v >= s.version
	}
}

// newVersionOK says whether a write of value acknowledged with version v is
// possible in s: versions grow with every change; a write that changes
// nothing may keep the version.
func newVersionOK(s keyState, value any, v int64) bool {
	switch {
	case v == 0:
		return true
	case !s.exact:
		return v >= s.version
	case v > s.version:
		return true
	default:
		return v == s.version && s.exists && sameValue(s.value, value)
	}
}

// observe makes s's version exact, if the operation reported one.
func observe(s keyState, v int64) keyState {
	if v != 0 {
		s.version, s.exact = v, true
	}
	return s
}

// set is s after value was written, creating version v (0: unknown).
func set(s keyState, value any, v int64) keyState {
	s.exists, s.value = true, value
	if v != 0 {
		s.version, s.exact = v, true
	} else {
		s.exact = false
	}
	return s
}

// deleted is s after the key was deleted at version v (0: unknown).
func deleted(s keyState, v int64) keyState {
	s = set(s, nil, v)
	s.exists = false
	return s
}

func describeState(s keyState) string {
	if !s.exists {
		return "absent"
	}
	switch {
	case s.exact && s.version == 0:
		return formatValue(s.value)
	case s.exact:
		return fmt.Sprintf("%s (rv %d)", formatValue(s.value), s.version)
	case s.version == 0:
		return formatValue(s.value) + " (rv ?)"
	}
	return fmt.Sprintf("%s (rv ≥%d)", formatValue(s.value), s.version)
}

// hashState hashes what Equal compares; values other than int64, string and
// bool (rare) do not contribute, which keeps equal states' hashes equal.
func hashState(s keyState) uint64 {
	h := uint64(s.version) * 0x9e3779b97f4a7c15
	if s.exists {
		h ^= 1
	}
	if s.exact {
		h ^= 2
	}
	switch v := s.value.(type) {
	case int64:
		h ^= uint64(v) * 0xff51afd7ed558ccd
	case string:
		f := fnv.New64a()
		f.Write([]byte(v))
		h ^= f.Sum64()
	case bool:
		if v {
			h ^= 4
		}
	}
	return h
}

// wholeModel is the same store as one state for all keys (a map), checked
// without partitioning. It exists to measure, and to test, what partitioning
// per key buys: the same verdicts, much faster.
func wholeModel() porcupine.Model {
	keyed := kvModel(true)
	m := porcupine.NondeterministicModel{
		Init: func() []any { return []any{map[string]keyState{}} },
		Step: func(state, input, output any) []any {
			s, in := state.(map[string]keyState), input.(Input)
			ks, ok := s[in.Key]
			if !ok {
				ks = keyState{exact: true}
			}
			var out []any
			for _, n := range step(ks, in, output.(Result)) {
				next := maps.Clone(s)
				next[in.Key] = n
				out = append(out, next)
			}
			return out
		},
		Equal: func(a, b any) bool { return maps.Equal(a.(map[string]keyState), b.(map[string]keyState)) },
		Hash: func(state any) uint64 {
			var h uint64
			for k, s := range state.(map[string]keyState) {
				f := fnv.New64a()
				f.Write([]byte(k))
				h ^= f.Sum64() * (hashState(s) | 1)
			}
			return h
		},
		DescribeOperation: keyed.DescribeOperation,
		DescribeState: func(state any) string {
			s := state.(map[string]keyState)
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(s)) {
				parts = append(parts, k+"="+describeState(s[k]))
			}
			return "{" + strings.Join(parts, ", ") + "}"
		},
		DescribeOperationMetadata: keyed.DescribeOperationMetadata,
	}
	return m.ToModel()
}
