package check_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
)

func TestDurable(t *testing.T) {
	// The chapter 2 story: server-1 acknowledged the scale-up to 5, then
	// crashed before the change reached its disk.
	h := webIsThree()
	done(h, "controller-b", "server-1", check.UpdateIfVersion("deployments/web", 5, 1), 400, 405, check.Acked(2))
	timedOut(h, "controller-a", "server-1", check.Write("deployments/web", 6), 500, 700)
	done(h, "controller-a", "server-1", check.Write("deployments/web", 7), 800, 810, check.Fail(check.Refused))
	done(h, "kubectl", "server-1", check.Read("deployments/web"), 900, 910, check.Found(3, 1))

	survived := []check.Change{{Version: 1, Key: "deployments/web", Value: 3}}
	v := check.Durable(h, survived)
	found(t, v, "lost-write", course.DurableAgreement) // the acknowledged 5 is gone
	assert.Equal(t, ms(405), v.At)
	assert.Equal(t, "server-1 acknowledged controller-b's update deployments/web to 5 if rv=1 at 405ms, but the final history of 1 changes does not hold it", v.Story)
	assert.Equal(t, []check.OpID{1}, v.Ops, "only the acknowledged write: the timed-out and refused ones may be lost")
	assert.Equal(t, []string{"server-1"}, v.Servers)

	// With 5 in the final history, nothing acknowledged is lost: the
	// timed-out 6 and the refused 7 were never promised.
	survived = append(survived, check.Change{Version: 2, Key: "deployments/web", Value: 5})
	assert.Nil(t, check.Durable(h, survived))
}

func TestDurableDeletes(t *testing.T) {
	h := webIsThree()
	done(h, "kubectl", "server-1", check.Delete("deployments/web"), 100, 110, check.Acked(2))
	final := []check.Change{{Version: 1, Key: "deployments/web", Value: 3}}
	v := check.Durable(h, final)
	require.NotNil(t, v)
	assert.Contains(t, v.Story, "kubectl's delete deployments/web")
	assert.Nil(t, check.Durable(h, append(final, check.Change{Version: 2, Key: "deployments/web", Deleted: true})))
}

func TestOneHistory(t *testing.T) {
	web := func(rv int64, replicas int) check.Change {
		return check.Change{Version: rv, Key: "deployments/web", Value: replicas, At: ms(int(rv) * 100)}
	}
	tests := []struct {
		name     string
		servers  map[string][]check.Change
		story    string
		servers2 []string
	}{
		{
			name: "a server that lags holds a prefix",
			servers: map[string][]check.Change{
				"server-1": {web(1, 3), web(2, 5), web(3, 4)},
				"server-2": {web(1, 3), web(2, 5)},
				"server-3": {},
			},
		},
		{
			// The chapter 6 story: both servers said yes, each to a
			// different client, at the same position.
			name: "both servers accepted a different change at position 3",
			servers: map[string][]check.Change{
				"server-1": {web(1, 3), web(2, 5), web(3, 4)},
				"server-2": {web(1, 3), web(2, 5), web(3, 8), web(4, 9)},
			},
			story:    "server-1 and server-2 accepted different changes at position 3: server-1 holds rv 3 deployments/web=4, server-2 holds rv 3 deployments/web=8",
			servers2: []string{"server-1", "server-2"},
		},
		{
			name: "the third server went its own way",
			servers: map[string][]check.Change{
				"server-1": {web(1, 3), web(2, 5)},
				"server-2": {web(1, 3)},
				"server-3": {web(1, 3), {Version: 2, Key: "deployments/web", Deleted: true}},
			},
			story:    "server-1 and server-3 accepted different changes at position 2: server-1 holds rv 2 deployments/web=5, server-3 holds rv 2 delete deployments/web",
			servers2: []string{"server-1", "server-3"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := check.OneHistory(tt.servers)
			if tt.story == "" {
				assert.Nil(t, v)
				return
			}
			found(t, v, "divergent-history", course.DurableAgreement)
			assert.Equal(t, tt.story, v.Story)
			assert.Equal(t, tt.servers2, v.Servers)
			assert.Contains(t, v.Details, "≠")
		})
	}
}

func TestOneHistoryTable(t *testing.T) {
	v := check.OneHistory(map[string][]check.Change{
		"server-1": {{Version: 1, Key: "deployments/web", Value: 3}, {Version: 2, Key: "deployments/web", Value: 5}},
		"server-2": {{Version: 1, Key: "deployments/web", Value: 3}, {Version: 2, Key: "deployments/web", Value: 8}},
	})
	require.NotNil(t, v)
	assert.Equal(t, ""+
		"the servers' histories, first difference at position 2 (· = not held):\n"+
		"     position  server-1                server-2\n"+
		"     1         rv 1 deployments/web=3  rv 1 deployments/web=3\n"+
		"  ≠  2         rv 2 deployments/web=5  rv 2 deployments/web=8\n", v.Details)
}

func TestConverged(t *testing.T) {
	healed := ms(9000)
	same := map[string]map[string]any{
		"server-1": {"deployments/web": 5, "pods/web-x7k2": "Running"},
		"server-2": {"deployments/web": int64(5), "pods/web-x7k2": "Running"},
	}
	assert.Nil(t, check.Converged(same, healed))
	assert.Nil(t, check.Converged(nil, healed), "no servers, nothing to disagree about")

	// After the partition healed, server-2 still has 8 and an extra pod.
	apart := map[string]map[string]any{
		"server-1": {"deployments/web": 5, "pods/web-x7k2": "Running"},
		"server-2": {"deployments/web": 8, "pods/web-x7k2": "Running", "pods/web-q9z1": "Running"},
		"server-3": {"deployments/web": 5, "pods/web-x7k2": "Running"},
	}
	v := check.Converged(apart, healed)
	found(t, v, "no-convergence", course.DurableAgreement)
	assert.Equal(t, healed, v.At)
	assert.Equal(t, "after the faults healed, the servers still disagree on 2 of 3 keys at 9000ms: deployments/web is 5 on server-1, 8 on server-2, 5 on server-3", v.Story)
	assert.Contains(t, v.Details, "pods/web-q9z1    absent    Running   absent")
}

func TestState(t *testing.T) {
	s := check.State([]check.Change{
		{Version: 1, Key: "deployments/web", Value: 3},
		{Version: 2, Key: "pods/web-x7k2", Value: "Pending"},
		{Version: 3, Key: "deployments/web", Value: 5},
		{Version: 4, Key: "pods/web-x7k2", Deleted: true},
	})
	assert.Equal(t, map[string]any{"deployments/web": int64(5)}, s)
}

// A delete that named web's rv 1 after web changed at rv 3 is stale, and
// told with the changes to web up to it; one that named rv 3 is not; a
// delete whose answer points where the one history holds no deletion is
// another failure, not judged here.
func TestAStaleDeleteIsTheOneThatMissedAChange(t *testing.T) {
	final := []check.Change{
		{Version: 1, Key: "deployments/web", Value: 3},
		{Version: 2, Key: "deployments/api", Value: 1},
		{Version: 3, Key: "deployments/web", Value: 5},
		{Version: 4, Key: "deployments/web", Deleted: true},
	}
	deleted := func(ifVersion, at int64) *check.History {
		h := check.NewHistory()
		done(h, "controller-b", "server-2", check.DeleteIfVersion("deployments/web", ifVersion), 100, 120, check.Acked(at))
		return h
	}

	v := check.StaleDelete(deleted(1, 4), final)
	require.NotNil(t, v)
	assert.Equal(t, "stale-delete", v.Name)
	assert.Equal(t, course.OneHistory, v.Clause)
	assert.Equal(t, ms(120), v.At)
	assert.Contains(t, v.Story, "controller-b's delete deployments/web if rv=1 through server-2, sent at 100ms, was acknowledged at 120ms as rv 4")
	assert.Contains(t, v.Story, "the last change to it before the deletion is")
	assert.Contains(t, v.Details, "← controller-b's delete if rv=1")

	assert.Nil(t, check.StaleDelete(deleted(3, 4), final), "rv 3 was the last change before the deletion")
	assert.Nil(t, check.StaleDelete(deleted(1, 3), final), "position 3 is not a deletion: another failure")
	assert.Nil(t, check.StaleDelete(deleted(1, 9), final), "a position past the history is a lost write")
}

// An update conditional on web's rv 1, acknowledged as rv 4 after web
// changed at rv 3, is stale, and told with the changes to web up to it;
// so is one that named a version web had not reached (rv 4, its own);
// one that named rv 3 is not; an update whose answer points at a change
// that is not its own (another key, another value) is another failure.
func TestAStaleUpdateIsTheOneThatMissedAChange(t *testing.T) {
	final := []check.Change{
		{Version: 1, Key: "deployments/web", Value: 3},
		{Version: 2, Key: "deployments/api", Value: 1},
		{Version: 3, Key: "deployments/web", Value: 5},
		{Version: 4, Key: "deployments/web", Value: 8},
	}
	updated := func(value, ifVersion, at int64) *check.History {
		h := check.NewHistory()
		done(h, "controller-b", "server-2", check.UpdateIfVersion("deployments/web", value, ifVersion), 100, 120, check.Acked(at))
		return h
	}

	v := check.StaleUpdate(updated(8, 1, 4), final)
	require.NotNil(t, v)
	assert.Equal(t, "stale-update", v.Name)
	assert.Equal(t, course.OneHistory, v.Clause)
	assert.Equal(t, ms(120), v.At)
	assert.Contains(t, v.Story, "controller-b's update deployments/web to 8 if rv=1 through server-2, sent at 100ms, was acknowledged at 120ms as rv 4, "+
		"but in the one history deployments/web was no longer at rv 1 when it was updated: the last change to it before the update is rv 3 deployments/web=5")
	assert.Contains(t, v.Details, "← controller-b's update to 8 if rv=1")

	future := check.StaleUpdate(updated(8, 4, 4), final)
	require.NotNil(t, future, "a precondition from the future is stale too")
	assert.Contains(t, future.Story, "but in the one history deployments/web had not yet reached rv 4 when it was updated: the last change to it before the update is rv 3")

	assert.Nil(t, check.StaleUpdate(updated(8, 3, 4), final), "rv 3 was the last change before the update")
	assert.Nil(t, check.StaleUpdate(updated(9, 1, 4), final), "position 4 holds another value: another failure")
	assert.Nil(t, check.StaleUpdate(updated(8, 1, 2), final), "position 2 is another key: another failure")
	assert.Nil(t, check.StaleDelete(updated(8, 1, 4), final), "an update is no delete")
}
