package check_test

import (
	"go/build"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/sim"
)

func TestLinearizableNamesTheOperationsAndServers(t *testing.T) {
	h := webIsThree()
	write := done(h, "controller-b", "server-1", check.Write("deployments/web", 5), 400, 405, check.Acked(2))
	read := done(h, "controller-a", "server-2", check.Read("deployments/web"), 410, 412, check.Found(3, 1))

	v := check.Linearizable(h, 0).Violation
	require.NotNil(t, v)
	// The stale read first, then the acknowledged write it contradicts.
	assert.Equal(t, []check.OpID{read, write}, v.Ops)
	assert.Equal(t, []string{"server-2", "server-1"}, v.Servers)
	assert.Equal(t, "stale-read at 412ms: "+v.Story, v.Error())
}

// Keys are checked apart: a stale read of one key is found among many
// correct operations on others, and blamed on its own key only.
func TestLinearizablePartitionsPerKey(t *testing.T) {
	h := check.NewHistory()
	for i, key := range []string{"deployments/web", "deployments/api", "pods/web-x7k2"} {
		done(h, "kubectl", "server-1", check.Create(key, i), 0, 5, check.Acked(int64(i+1)))
	}
	// Interleaved, each key on its own is fine.
	done(h, "controller-a", "server-1", check.Write("deployments/web", 5), 100, 200, check.Acked(4))
	done(h, "controller-b", "server-2", check.Write("deployments/api", 9), 110, 210, check.Acked(5))
	done(h, "controller-a", "server-2", check.Read("deployments/api"), 220, 230, check.Found(9, 5))
	done(h, "controller-b", "server-1", check.Read("deployments/web"), 220, 230, check.Found(5, 4))

	l := check.Linearizable(h, 0)
	require.True(t, l.OK(), "%v", l.Violation)
	assert.Equal(t, 3, l.Keys)
	assert.Equal(t, 7, l.Checked)

	// Now pods/web-x7k2, untouched since its creation, reads stale on
	// server-2 after a delete on server-1.
	done(h, "controller-a", "server-1", check.Delete("pods/web-x7k2"), 300, 310, check.Acked(6))
	done(h, "controller-b", "server-2", check.Read("pods/web-x7k2"), 320, 330, check.Found(2, 3))
	l = check.Linearizable(h, 0)
	require.Equal(t, check.VerdictIllegal, l.Verdict)
	assert.Contains(t, l.Violation.Story, "controller-b read pods/web-x7k2=2")
	assert.Contains(t, l.Violation.Details, "pods/web-x7k2: 3 operations")
	assert.NotContains(t, l.Violation.Details, "deployments/")
}

// adversarial is a history porcupine cannot settle quickly: n writes of
// different values, all concurrent, then a read of a value none of them
// wrote. To prove it illegal the search must try every order of the writes.
func adversarial(n int) *check.History {
	h := check.NewHistory()
	for i := range n {
		done(h, "controller-"+string(rune('a'+i%26)), "server-1", check.Write("deployments/web", i), 0, 100, check.Acked(0))
	}
	done(h, "kubectl", "server-2", check.Read("deployments/web"), 200, 300, check.Found(-1, 0))
	return h
}

// Running out of time is a failure with its own name, never a pass.
func TestLinearizableUndecidedIsAFailure(t *testing.T) {
	l := check.Linearizable(adversarial(40), time.Millisecond)
	require.Equal(t, check.VerdictUndecided, l.Verdict)
	assert.False(t, l.OK())
	require.NotNil(t, l.Violation)
	assert.Equal(t, "undecided", l.Violation.Name)
	assert.Equal(t, course.OneHistory, l.Violation.Clause)
	assert.Contains(t, l.Violation.Story, "could not decide within 1ms whether 41 operations on 1 keys form one history")
	assert.Contains(t, l.Violation.Details, "deployments/web")

	// The same shape, small enough to decide, is decided.
	l = check.Linearizable(adversarial(4), 0)
	assert.Equal(t, check.VerdictIllegal, l.Verdict)
}

func TestDrawHTML(t *testing.T) {
	h := webIsThree()
	done(h, "controller-b", "server-1", check.Write("deployments/web", 5), 400, 405, check.Acked(2))
	done(h, "controller-a", "server-2", check.Read("deployments/web"), 410, 412, check.Found(3, 1))
	done(h, "controller-c", "server-1", check.Write("deployments/api", 1), 420, 425, check.Acked(3))
	l := check.Linearizable(h, 0)
	require.False(t, l.OK())

	faults := []check.Fault{
		{Kind: sim.FaultPartition, Desc: "partition server-1 | server-2", Start: ms(300), End: ms(500)},
		{Kind: sim.FaultCrash, Desc: "crash server-1", Nodes: []sim.NodeID{"server-1"}, Start: ms(450)},
		{Kind: sim.FaultSlowDisk, Desc: "disk of server-2 syncing in 40ms", Nodes: []sim.NodeID{"server-2"}, Start: ms(320), End: ms(480)},
	}
	var b strings.Builder
	require.NoError(t, l.DrawHTML(&b, faults))
	html := b.String()
	// A slow disk is shaded as slow, as the failure's picture shades it
	// (sim.FaultKind.Shade), not grey as a fault of no known kind.
	assert.Contains(t, html, "disk of server-2 syncing in 40ms")
	assert.Contains(t, html, "#e1f5fe", "the slow disk is not shaded as slow")
	assert.NotContains(t, html, "#eeeeee", "a fault is shaded as one of no known kind")
	assert.True(t, strings.HasPrefix(strings.TrimSpace(html), "<!DOCTYPE html>") || strings.Contains(html, "<html"))
	assert.Contains(t, html, "partition server-1 | server-2")
	assert.NotContains(t, html, "crash server-1", "a fault begun after the failure is trimmed away")
	assert.NotContains(t, html, "deployments/api", "another key's operations are trimmed away")
	assert.Contains(t, html, "stale-read")
	assert.Contains(t, html, "controller-a via server-2")

	// A linearizable history draws too, and the same history draws the
	// same picture.
	var again strings.Builder
	require.NoError(t, check.Linearizable(h, 0).DrawHTML(&again, faults))
	assert.Equal(t, html, again.String())
}

// check draws; it never writes a file. The code of a chapter may use
// check, and has no files but its node's simulated disk: were a drawing
// written by check, a chapter's code could write a file of its choosing on
// the machine that grades it.
func TestCheckTouchesNoDisk(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	require.NoError(t, err)
	for _, imp := range []string{"os", "os/exec", "io/ioutil", "path/filepath", "syscall"} {
		assert.NotContains(t, pkg.Imports, imp, "check's own code imports %s", imp)
	}
}

// A read that timed out returned nothing, and a refused write did nothing:
// neither is given to the checker.
func TestLinearizableLeavesOutWhatSaysNothing(t *testing.T) {
	h := webIsThree()
	timedOut(h, "controller-a", "server-2", check.Read("deployments/web"), 100, 300)
	done(h, "controller-b", "server-1", check.Write("deployments/web", 5), 100, 110, check.Fail(check.Refused))
	done(h, "controller-a", "server-2", check.Read("deployments/web"), 400, 410, check.Found(3, 1))
	l := check.Linearizable(h, 0)
	assert.True(t, l.OK())
	assert.Equal(t, 2, l.Checked)
}

// A read that returns a value before anyone wrote it is no stale read, but
// still not one history.
func TestLinearizableReadFromTheFuture(t *testing.T) {
	h := webIsThree()
	done(h, "controller-a", "server-2", check.Read("deployments/web"), 100, 110, check.Found(5, 2))
	done(h, "controller-b", "server-1", check.Write("deployments/web", 5), 200, 210, check.Acked(2))
	v := check.Linearizable(h, 0).Violation
	require.NotNil(t, v)
	assert.Equal(t, "non-linearizable", v.Name)
	assert.Contains(t, v.Story, "controller-a read deployments/web=5 (rv 2) from server-2 at 110ms, but server-1 had acknowledged deployments/web=3 (rv 1) to kubectl at 5ms")
}

// A client that is answered and asks again at the same virtual millisecond
// asked after it was answered: its read must see its own write. Porcupine
// alone would take the two for concurrent, since they meet at one instant.
func TestLinearizableAnInstantKeepsTheOrderItHappenedIn(t *testing.T) {
	h := webIsThree()
	write := done(h, "controller-a", "server-1", check.Write("deployments/web", 5), 100, 110, check.Acked(2))
	read := done(h, "controller-a", "server-2", check.Read("deployments/web"), 110, 112, check.Found(3, 1))

	v := check.Linearizable(h, 0).Violation
	require.NotNil(t, v, "a read asked after its own write was answered, at the same instant, saw the old value")
	assert.Equal(t, "stale-read", v.Name)
	assert.Equal(t, []check.OpID{read, write}, v.Ops)
	assert.Contains(t, v.Story, "controller-a read deployments/web=3 (rv 1) from server-2 at 112ms, but server-1 had acknowledged deployments/web=5 (rv 2) to controller-a at 110ms")
	assert.True(t, h.Operations()[write].Precedes(h.Operations()[read]))
}

// A read sent in the same instant, but before the write was answered, is
// concurrent with it and may see the old value.
func TestLinearizableAnInstantBeforeTheAnswerIsConcurrent(t *testing.T) {
	h := webIsThree()
	write := h.Call("controller-a", "server-1", check.Write("deployments/web", 5), ms(100))
	read := h.Call("controller-b", "server-2", check.Read("deployments/web"), ms(110))
	h.Return(write, check.Acked(2), ms(110))
	h.Return(read, check.Found(3, 1), ms(112))

	l := check.Linearizable(h, 0)
	assert.True(t, l.OK(), "%v", l.Violation)
	assert.False(t, h.Operations()[write].Precedes(h.Operations()[read]))
}

// A refusal on a stale copy is told against what it refuses: the write
// that set the version its precondition names, or failing that the read
// that saw it; never the creation every order starts from.
func TestLinearizableRefusalWitnessIsWhatItRefuses(t *testing.T) {
	// controller-a's scale to 111 is still being copied when controller-c
	// reads it through server-1, at rv 2, and then updates on condition of
	// rv 2 through server-2, whose copy lacks it.
	h := webIsThree()
	done(h, "controller-a", "server-1", check.Write("deployments/web", 111), 1900, 2000, check.Acked(2))
	read := done(h, "controller-c", "server-1", check.Read("deployments/web"), 1920, 1932, check.Found(111, 2))
	refused := done(h, "controller-c", "server-2", check.UpdateIfVersion("deployments/web", 113, 2), 1932, 1971, check.Fail(check.Conflict))

	v := check.Linearizable(h, 0).Violation
	found(t, v, "non-linearizable", course.OneHistory)
	assert.Equal(t, []check.OpID{refused, read}, v.Ops)
	assert.Contains(t, v.Story, "but controller-c had read deployments/web=111 (rv 2) from server-1 at 1932ms")

	// Once the write's yes came before the update was sent, it is the
	// witness: the write the refusal contradicts.
	h = webIsThree()
	write := done(h, "controller-a", "server-1", check.Write("deployments/web", 111), 1900, 1910, check.Acked(2))
	done(h, "controller-c", "server-1", check.Read("deployments/web"), 1920, 1932, check.Found(111, 2))
	refused = done(h, "controller-c", "server-2", check.UpdateIfVersion("deployments/web", 113, 2), 1932, 1971, check.Fail(check.Conflict))
	v = check.Linearizable(h, 0).Violation
	found(t, v, "non-linearizable", course.OneHistory)
	assert.Equal(t, []check.OpID{refused, write}, v.Ops)
	assert.Contains(t, v.Story, "but server-1 had acknowledged deployments/web=111 (rv 2) to controller-a at 1910ms")

	// A creation refused as already existing is told against the
	// deletion before it.
	h = check.NewHistory()
	done(h, "kubectl", "server-1", check.Create("deployments/batch", 1), 0, 5, check.Acked(1))
	done(h, "controller-a", "server-1", check.Write("deployments/batch", 2), 10, 15, check.Acked(2))
	deleted := done(h, "controller-a", "server-1", check.Delete("deployments/batch"), 100, 110, check.Acked(3))
	refused = done(h, "controller-b", "server-2", check.Create("deployments/batch", 5), 200, 210, check.Fail(check.AlreadyExists))
	v = check.Linearizable(h, 0).Violation
	found(t, v, "non-linearizable", course.OneHistory)
	assert.Equal(t, []check.OpID{refused, deleted}, v.Ops)

	// A deletion refused as not found, by a copy that lacks batch's second
	// creation (whose client timed out, though a list showed it), is told
	// against that list, not against batch's first creation, which a
	// deletion acknowledged since took away.
	h = check.NewHistory()
	done(h, "kubectl", "server-1", check.Create("deployments/batch", 1), 0, 5, check.Acked(1))
	done(h, "controller-a", "server-1", check.Delete("deployments/batch"), 100, 110, check.Acked(2))
	done(h, "controller-a", "server-1", check.Create("deployments/batch", 7), 200, 4200, check.Fail(check.Indefinite))
	listed := done(h, "dashboard", "server-1", check.ListItem("deployments", "deployments/batch"), 300, 310, check.Found(7, 3))
	refused = done(h, "controller-b", "server-2", check.Delete("deployments/batch"), 400, 410, check.Fail(check.NotFound))
	v = check.Linearizable(h, 0).Violation
	found(t, v, "non-linearizable", course.OneHistory)
	assert.Equal(t, []check.OpID{refused, listed}, v.Ops)
	assert.Contains(t, v.Story, "but dashboard's list of deployments from server-1 had shown deployments/batch=7 (rv 3) at 310ms")

	// A refusal that holds (the version had moved on) is no violation.
	h = webIsThree()
	done(h, "controller-a", "server-1", check.Write("deployments/web", 111), 1900, 1910, check.Acked(2))
	done(h, "controller-b", "server-1", check.Write("deployments/web", 112), 1915, 1925, check.Acked(3))
	done(h, "controller-c", "server-2", check.UpdateIfVersion("deployments/web", 113, 2), 1932, 1971, check.Fail(check.Conflict))
	assert.True(t, check.Linearizable(h, 0).OK())
}

// A key a list showed, or did not hold, is told as that list, not as a
// read of the key.
func TestLinearizableTellsAListAsAList(t *testing.T) {
	h := webIsThree()
	done(h, "controller-b", "server-1", check.Write("deployments/web", 5), 400, 405, check.Acked(2))
	done(h, "dashboard", "server-2", check.ListItem("deployments", "deployments/web"), 410, 412, check.Found(3, 1))
	v := check.Linearizable(h, 0).Violation
	found(t, v, "stale-read", course.OneHistory)
	assert.Contains(t, v.Story, "dashboard's list of deployments from server-2 at 412ms showed deployments/web=3 (rv 1), but server-1 had acknowledged")
	assert.Contains(t, v.Details, "list deployments (deployments/web)")

	h = webIsThree()
	done(h, "dashboard", "server-2", check.ListItem("deployments", "deployments/web"), 410, 412, check.Fail(check.NotFound))
	v = check.Linearizable(h, 0).Violation
	found(t, v, "stale-read", course.OneHistory)
	assert.Contains(t, v.Story, "dashboard's list of deployments from server-2 at 412ms held no deployments/web")
}
