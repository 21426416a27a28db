package check_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
)

// ms is a virtual time in milliseconds since the world started.
func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// done records an operation that returned r.
func done(h *check.History, client, server string, in check.Input, call, ret int, r check.Result) check.OpID {
	id := h.Call(client, server, in, ms(call))
	h.Return(id, r, ms(ret))
	return id
}

// timedOut records an operation whose client gave up without an answer.
func timedOut(h *check.History, client, server string, in check.Input, call, gaveUp int) check.OpID {
	id := h.Call(client, server, in, ms(call))
	h.Timeout(id, ms(gaveUp))
	return id
}

// webIsThree is the opening of most stories: kubectl created
// deployments/web with 3 replicas through server-1, at resourceVersion 1.
func webIsThree() *check.History {
	h := check.NewHistory()
	done(h, "kubectl", "server-1", check.Create("deployments/web", 3), 0, 5, check.Acked(1))
	return h
}

// found asserts that v is the violation name of clause, and logs it whole
// as a learner would read it.
func found(t *testing.T, v *check.Violation, name string, clause course.Clause) {
	t.Helper()
	require.NotNil(t, v)
	t.Log("\n" + v.Error() + "\n" + v.Details)
	assert.Equal(t, name, v.Name)
	assert.Equal(t, clause, v.Clause)
}
