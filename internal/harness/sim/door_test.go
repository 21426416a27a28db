package sim_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"onehistory/internal/harness/sim"
)

// The door a node's code goes through is its *Proc. What the Proc hands
// out is what a node has: its own time, randomness, network and disk.
// These tests read the types themselves, so that a method that would let
// a node step outside (the whole world, an oracle of its disk) fails here
// the day someone adds it, whatever an analyzer says.

// noMethods asserts that the method set of v's type holds none of names.
func noMethods(t *testing.T, v any, why string, names ...string) {
	t.Helper()
	typ := reflect.TypeOf(v)
	for _, name := range names {
		_, has := typ.MethodByName(name)
		assert.False(t, has, "%s has a method %s: %s", typ, name, why)
	}
}

// A process has no way to the world it runs in: with the world, a server
// could read another node's disk, crash its peers or stop the run.
func TestAProcOffersNoWorld(t *testing.T) {
	noMethods(t, (*sim.Proc)(nil), "a node's code would hold every node's memory, disk and faults", "World")
	for i := 0; i < reflect.TypeOf((*sim.Proc)(nil)).NumMethod(); i++ {
		m := reflect.TypeOf((*sim.Proc)(nil)).Method(i)
		for j := 0; j < m.Type.NumOut(); j++ {
			assert.NotEqual(t, reflect.TypeOf((*sim.World)(nil)), m.Type.Out(j), "(*sim.Proc).%s returns the world", m.Name)
		}
	}
}

// A process draws from the world's generator but cannot reseed it: with
// Seed, one node could choose every later delay, loss and torn write of
// every node, and every seed would replay the kind world it picked.
func TestAProcsRandomnessCannotBeReseeded(t *testing.T) {
	var r *sim.Rand
	noMethods(t, r, "a node could reseed the whole world's randomness", "Seed", "Source")
	typ := reflect.TypeOf(r)
	for i := 0; i < typ.NumMethod(); i++ {
		m := typ.Method(i)
		for j := 0; j < m.Type.NumOut(); j++ {
			out := m.Type.Out(j)
			assert.NotEqual(t, "math/rand", out.PkgPath(), "(*sim.Rand).%s hands out %s", m.Name, out)
			if out.Kind() == reflect.Pointer {
				assert.NotEqual(t, "math/rand", out.Elem().PkgPath(), "(*sim.Rand).%s hands out %s", m.Name, out)
			}
		}
	}
}

// What a process draws is what the world's generator gives at that point
// of the run: the numbers a seed gives are the same whether a process or
// the harness draws them.
func TestAProcDrawsFromTheWorldsGenerator(t *testing.T) {
	draw := func(seed int64, byProc bool) (got []int64) {
		w := sim.New(seed)
		defer w.Close()
		w.AddNode("client", func(p *sim.Proc) {
			for range 3 {
				p.Sleep(ms)
				if byProc {
					got = append(got, p.Rand().Int63(), int64(p.Rand().Intn(1000)), int64(p.Rand().Float64()*1e6))
				} else {
					got = append(got, w.Rand().Int63(), int64(w.Rand().Intn(1000)), int64(w.Rand().Float64()*1e6))
				}
			}
		})
		assert.NoError(t, w.Run(time.Second))
		return got
	}
	for seed := int64(1); seed <= 5; seed++ {
		assert.Equal(t, draw(seed, false), draw(seed, true), "seed %d", seed)
	}
	assert.NotEqual(t, draw(1, true), draw(2, true))
}

// A node's disk tells it what a real disk would: what its files hold. It
// does not tell how much of the unsynced tail a crash kept: a store that
// could ask would never need to find a torn record on its own. The world
// tells the harness (World.DiskLosses).
func TestADiskKeepsNoOracleOfItsCrashes(t *testing.T) {
	loss := reflect.TypeOf(sim.Loss{})
	for _, v := range []any{(*sim.Disk)(nil), (*sim.File)(nil)} {
		noMethods(t, v, "it would tell a recovering node what its crash tore", "Losses")
		typ := reflect.TypeOf(v)
		for i := 0; i < typ.NumMethod(); i++ {
			m := typ.Method(i)
			for j := 0; j < m.Type.NumOut(); j++ {
				out := m.Type.Out(j)
				assert.False(t, out == loss || (out.Kind() == reflect.Slice && out.Elem() == loss),
					"%s.%s hands out what a crash did", typ, m.Name)
			}
		}
	}
}

// Nor does printing the disk tell it: fmt prints a struct's unexported
// fields, so the record of what a crash tore is kept where nothing a node
// holds leads.
func TestPrintingADiskTellsNothingOfItsCrashes(t *testing.T) {
	w := sim.New(3, sim.DiskTearsAtEdges())
	defer w.Close()
	var printed []string
	w.AddNode("server-1", func(p *sim.Proc) {
		f := p.Disk().Open("wal")
		printed = append(printed, fmt.Sprintf("%+v %+v %#v", p.Disk(), f, p))
		f.Append([]byte("a record that will not be synced"))
		p.Sleep(time.Second)
	})
	w.At(10*time.Millisecond, func() { w.Crash("server-1") })
	w.At(20*time.Millisecond, func() { w.Restart("server-1") })
	assert.NoError(t, w.Run(time.Second))
	if assert.NotEmpty(t, w.DiskLosses("server-1"), "the crash tore something") {
		for _, text := range printed {
			assert.NotContains(t, text, "Unsynced")
			assert.NotContains(t, text, "Kept")
		}
	}
}

// The network's errors are constants, so this compiles: no code can change
// what every node's Call returns (were they variables, one node could set
// ErrTimeout to nil, and every timeout of every node would read as an
// answer).
const _, _, _ = sim.ErrTimeout, sim.ErrNodeDown, sim.ErrUnreachable

func TestTheNetworksErrorsReadAsBefore(t *testing.T) {
	assert.EqualError(t, sim.ErrTimeout, "sim: call timed out (outcome unknown)")
	assert.EqualError(t, sim.ErrNodeDown, "sim: target node is down (connection refused)")
	assert.EqualError(t, sim.ErrUnreachable, "sim: target node serves no requests")
}
