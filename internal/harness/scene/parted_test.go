package scene_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// audited is a finished scene, by hand: the clients' history and what the
// auditor read from each server at 15s.
func audited(h *check.History, one, two []check.Change, faults ...sim.Fault) *scene.Scene {
	return &scene.Scene{History: h, Histories: map[string][]check.Change{"server-1": one, "server-2": two},
		AuditedAt: 15 * time.Second, Faults: faults}
}

func set(rv int64, key string, value int) check.Change {
	return check.Change{Version: rv, Key: key, Value: int64(value)}
}

func write(h *check.History, client, server, key string, value int, call, ret time.Duration, rv int64) {
	id := h.Call(client, server, check.Write(key, value), call)
	h.Return(id, check.Acked(rv), ret)
}

const (
	web, api = "deployments/web", "deployments/api"
	ms       = time.Millisecond
)

// A change server-1 said yes to and server-2 never applied, while the link
// lost messages, is a lost copy, told by the write, its answer and the
// fault; so is one server-2 holds nothing in place of.
func TestALostCopyIsToldByItsWrite(t *testing.T) {
	h := check.NewHistory()
	write(h, "kubectl", "server-1", web, 3, 0, 10*ms, 1)
	write(h, "controller-a", "server-1", web, 5, 400*ms, 405*ms, 2)
	write(h, "controller-b", "server-2", api, 7, 500*ms, 520*ms, 2)
	lossy := sim.Fault{Kind: sim.FaultSlow, Desc: "slow link server-1 ↔ server-2 (5–100ms, 30% lost)", Start: 300 * ms, End: 900 * ms}
	s := audited(h, []check.Change{set(1, web, 3), set(2, web, 5)}, []check.Change{set(1, web, 3), set(2, api, 7)}, lossy)

	f := scene.LostCopy(s, course.AgreementFirst)
	require.NotNil(t, f)
	assert.Equal(t, "lost-copy", f.Name)
	assert.Equal(t, course.AgreementFirst, f.Clause)
	assert.Equal(t, 400*ms, f.At)
	assert.Contains(t, f.Story, "server-1 took controller-a's write deployments/web=5 (sent to server-1 at 400ms, answered yes at 405ms) as rv 2 "+
		"while slow link server-1 ↔ server-2 (5–100ms, 30% lost) (from 300ms to 900ms), and server-2 never applied it: "+
		"at rv 2 it holds deployments/api=7 instead, controller-b's write deployments/api=7 (sent to server-2 at 500ms, answered yes at 520ms), sent after that yes")

	s = audited(h, []check.Change{set(1, web, 3), set(2, web, 5)}, []check.Change{set(1, web, 3)})
	f = scene.LostCopy(s, course.AgreementFirst)
	require.NotNil(t, f)
	assert.Contains(t, f.Story, "server-2 never applied it: when the suite read them at 15000ms, server-2's history ended at rv 1")
}

// Two writes in flight at once, each numbered by the server it reached,
// part the histories without a lost copy: Parted says so, and LostCopy
// leaves it to the chapter. Histories that hold the same changes, in
// whatever order, and one history, are no parting.
func TestTwoServersNumberingAtOnceIsNoLostCopy(t *testing.T) {
	h := check.NewHistory()
	write(h, "kubectl", "server-1", web, 3, 0, 10*ms, 1)
	write(h, "controller-a", "server-1", web, 5, 400*ms, 480*ms, 2)
	write(h, "controller-b", "server-2", api, 7, 401*ms, 481*ms, 2)
	s := audited(h, []check.Change{set(1, web, 3), set(2, web, 5)}, []check.Change{set(1, web, 3), set(2, api, 7)})
	p := scene.Parted(s.History, s.Histories)
	require.NotNil(t, p)
	assert.True(t, p.Both)
	assert.False(t, p.Lost())
	assert.Nil(t, scene.LostCopy(s, course.AgreementFirst))

	swapped := audited(h, []check.Change{set(1, web, 3), set(2, web, 5), set(3, api, 7)}, []check.Change{set(1, web, 3), set(2, api, 7), set(3, web, 5)})
	assert.Nil(t, scene.Parted(swapped.History, swapped.Histories))
	one := audited(h, []check.Change{set(1, web, 3), set(2, web, 5)}, []check.Change{set(1, web, 3), set(2, web, 5)})
	assert.Nil(t, scene.LostCopy(one, course.AgreementFirst))
}
