package check

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// workload records a history of a correct store: clients each run ops
// operations one after another over keys keys; each operation takes effect
// at a point inside its interval, and the store answers as a single copy
// would. Everything comes from seed.
func workload(seed uint64, clients, ops, keys int) *History {
	rng := rand.New(rand.NewPCG(seed, 1))
	type planned struct {
		client          int
		in              Input
		call, lin, ret  time.Duration
		result          Result
		timedOut, never bool
	}
	var plan []*planned
	for c := range clients {
		now := time.Duration(rng.IntN(10)) * time.Millisecond
		for range ops {
			p := &planned{client: c}
			key := fmt.Sprintf("deployments/d%d", rng.IntN(keys))
			switch rng.IntN(4) {
			case 0, 1:
				p.in = Read(key)
			case 2:
				p.in = Write(key, rng.IntN(1000))
			default:
				p.in = UpdateIfVersion(key, rng.IntN(1000), int64(rng.IntN(3*ops)))
			}
			p.call = now
			p.lin = now + time.Duration(1+rng.IntN(20))*time.Millisecond
			p.ret = p.lin + time.Duration(1+rng.IntN(20))*time.Millisecond
			p.timedOut = rng.IntN(20) == 0
			p.never = p.timedOut && rng.IntN(2) == 0
			now = p.ret + time.Duration(rng.IntN(5))*time.Millisecond
			plan = append(plan, p)
		}
	}
	// Apply in linearization order to one copy of the store.
	byLin := slices.Clone(plan)
	slices.SortStableFunc(byLin, func(a, b *planned) int { return int(a.lin - b.lin) })
	store := map[string]keyState{}
	version := int64(0)
	for _, p := range byLin {
		if p.never {
			continue
		}
		s := store[p.in.Key]
		switch p.in.Kind {
		case KindRead:
			if s.exists {
				p.result = Found(s.value, s.version)
			} else {
				p.result = Fail(NotFound)
			}
		case KindWrite:
			version++
			store[p.in.Key] = keyState{exists: true, value: p.in.Value, version: version, exact: true}
			p.result = Acked(version)
		case KindCompareAndSet:
			switch {
			case !s.exists:
				p.result = Fail(NotFound)
			case s.version != p.in.IfVersion:
				p.result = Fail(Conflict)
			default:
				version++
				store[p.in.Key] = keyState{exists: true, value: p.in.Value, version: version, exact: true}
				p.result = Acked(version)
			}
		}
	}
	slices.SortStableFunc(plan, func(a, b *planned) int { return int(a.call - b.call) })
	h := NewHistory()
	for _, p := range plan {
		id := h.Call(fmt.Sprintf("client-%d", p.client), "server-1", p.in, p.call)
		if p.timedOut {
			h.Timeout(id, p.ret)
		} else {
			h.Return(id, p.result, p.ret)
		}
	}
	return h
}

// staler makes one read in the middle of h return an older value than it
// did, as a lagging server would.
func staler(h *History) *History {
	ops := h.Operations()
	out := NewHistory()
	mutated := false
	for _, op := range ops[len(ops)/2:] {
		if op.Input.Kind == KindRead && op.Result.Outcome == OK && op.Result.Version > 1 {
			op.Result = Found(-1, op.Result.Version-1)
			ops[op.ID] = op
			mutated = true
			break
		}
	}
	if !mutated {
		return nil
	}
	for _, op := range ops {
		id := out.Call(op.Client, op.Server, op.Input, op.Call)
		out.Return(id, op.Result, op.Return)
	}
	return out
}

// Checking per key gives the same verdict as checking the whole store at
// once, on correct histories and on histories with a stale read.
func TestPartitioningKeepsVerdicts(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		h := workload(seed, 4, 6, 3)
		keyed, whole := linearizable(h, 0, true), linearizable(h, 0, false)
		require.Equal(t, VerdictLinearizable, keyed.Verdict, "seed %d: a correct store: %v", seed, keyed.Violation)
		require.Equal(t, keyed.Verdict, whole.Verdict, "seed %d", seed)

		if bad := staler(h); bad != nil {
			keyed, whole := linearizable(bad, 0, true), linearizable(bad, 0, false)
			assert.Equal(t, VerdictIllegal, keyed.Verdict, "seed %d: a read of a value never written", seed)
			assert.Equal(t, keyed.Verdict, whole.Verdict, "seed %d", seed)
		}
	}
}

func TestWorkloadsOfCorrectStoresPass(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		l := Linearizable(workload(seed, 8, 40, 8), 0)
		require.True(t, l.OK(), "seed %d: %v", seed, l.Violation)
	}
}

// BenchmarkLinearizable shows what checking per key buys: the same history
// of 8 clients over 8 keys, checked per key and as one store.
func BenchmarkLinearizable(b *testing.B) {
	h := workload(7, 8, 25, 8)
	b.Run("per-key", func(b *testing.B) {
		for b.Loop() {
			if l := linearizable(h, time.Minute, true); !l.OK() {
				b.Fatal(l.Violation)
			}
		}
	})
	b.Run("one-partition", func(b *testing.B) {
		for b.Loop() {
			if l := linearizable(h, time.Minute, false); !l.OK() {
				b.Fatal(l.Violation)
			}
		}
	})
}
