package sim_test

import (
	"reflect"
	"testing"

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
