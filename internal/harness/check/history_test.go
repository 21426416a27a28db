package check_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/sim"
)

func TestHistoryRecordsInCallOrder(t *testing.T) {
	h := check.NewHistory()
	read := h.Call("controller-a", "server-2", check.Read("deployments/web"), ms(400))
	write := h.Call("controller-b", "server-1", check.Write("deployments/web", 5), ms(401))
	h.Return(write, check.Acked(2), ms(405))
	h.Return(read, check.Found(3, 1), ms(412))
	lost := h.Call("controller-b", "server-1", check.Write("deployments/web", 6), ms(500))
	h.Timeout(lost, ms(700))
	h.Call("kubectl", "server-1", check.Read("deployments/web"), ms(800))

	ops := h.Operations()
	require.Len(t, ops, 4)
	assert.Equal(t, 4, h.Len())
	for i, op := range ops {
		assert.Equal(t, check.OpID(i), op.ID, "IDs are given in call order")
	}
	assert.Equal(t, "#0 controller-a read deployments/web via server-2 [400ms, 412ms] → 3 (rv 1)", ops[0].String())
	assert.Equal(t, "#1 controller-b write deployments/web=5 via server-1 [401ms, 405ms] → ok (rv 2)", ops[1].String())
	assert.Equal(t, "#2 controller-b write deployments/web=6 via server-1 [500ms, 700ms] → timed out", ops[2].String())
	assert.Equal(t, "#3 kubectl read deployments/web via server-1 [800ms, …] → pending", ops[3].String())

	assert.True(t, ops[1].Acknowledged())
	assert.False(t, ops[0].Acknowledged(), "a read changes nothing")
	assert.True(t, ops[2].Indefinite())
	assert.True(t, ops[3].Indefinite(), "still pending: indefinite")
	assert.True(t, ops[0].Completed())
	assert.False(t, ops[2].Completed())

	// Operations is a copy.
	ops[0].Client = "someone-else"
	assert.Equal(t, "controller-a", h.Operations()[0].Client)
}

func TestHistoryNormalizesValues(t *testing.T) {
	type replicas int32
	h := check.NewHistory()
	done(h, "kubectl", "server-1", check.Write("deployments/web", replicas(5)), 0, 5, check.Acked(1))
	done(h, "kubectl", "server-1", check.Read("deployments/web"), 10, 15, check.Found(uint8(5), 1))
	done(h, "kubectl", "server-1", check.Write("configmaps/web", "nginx:1.25"), 20, 25, check.Acked(2))
	done(h, "kubectl", "server-1", check.Read("configmaps/web"), 30, 35, check.Found("nginx:1.25", 2))
	assert.True(t, check.Linearizable(h, 0).OK(), "5 is 5 however it is spelled")
}

func TestHistoryMisuse(t *testing.T) {
	h := check.NewHistory()
	id := done(h, "kubectl", "server-1", check.Read("deployments/web"), 10, 20, check.Fail(check.NotFound))
	assert.Panics(t, func() { h.Return(id, check.Acked(1), ms(30)) }, "an operation ends once")
	assert.Panics(t, func() { h.Timeout(check.OpID(7), ms(30)) }, "no such operation")
	late := h.Call("kubectl", "server-1", check.Read("deployments/web"), ms(50))
	assert.Panics(t, func() { h.Return(late, check.Acked(1), ms(40)) }, "returns before its call")
	assert.Panics(t, func() { check.Write("deployments/web", []int{5}) }, "not comparable")
}

func TestNames(t *testing.T) {
	assert.Equal(t, "compare-and-set", check.KindCompareAndSet.String())
	assert.Equal(t, "not-found", check.NotFound.String())
	assert.Equal(t, "undecided", check.VerdictUndecided.String())
	assert.Equal(t, "update deployments/web to 8 if rv=3", check.UpdateIfVersion("deployments/web", 8, 3).String())
	assert.Equal(t, "delete deployments/batch if rv=3", check.DeleteIfVersion("deployments/batch", 3).String())
	assert.Equal(t, "update deployments/web to 8 if value=5", check.UpdateIfValue("deployments/web", 8, 5).String())
	assert.Equal(t, "partition server-1 | server-2 from 2000ms to 4000ms",
		check.Fault{Kind: sim.FaultPartition, Desc: "partition server-1 | server-2", Start: ms(2000), End: ms(4000)}.String())
	assert.Equal(t, "crash server-1 at 3100ms", check.Fault{Kind: sim.FaultCrash, Desc: "crash server-1", Nodes: []sim.NodeID{"server-1"}, Start: ms(3100)}.String())
	assert.Equal(t, "rv 3 deployments/web=5", check.Change{Version: 3, Key: "deployments/web", Value: 5}.String())
	assert.Equal(t, "delete pods/web-x7k2", check.Change{Key: "pods/web-x7k2", Deleted: true}.String())
}
