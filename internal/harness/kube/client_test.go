package kube_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

func TestClientTalksToAServerOverA400msLink(t *testing.T) {
	w := sim.New(1, sim.Latency(400*ms, 400*ms))
	defer w.Close()
	store := kube.NewMemStore(0)
	w.AddNode("server-1", serveStore(store))
	h := check.NewHistory()
	var got kube.Object
	var at time.Duration
	w.AddNode("kubectl", func(p *sim.Proc) {
		c := kube.NewClient(p, "server-1").Record(h)
		web, err := c.Create(deployment("web", 3))
		assert.NoError(t, err)
		web.Replicas = 5
		_, err = c.Update(web)
		assert.NoError(t, err)
		got, err = c.Get("deployments/web", kube.ReadOptions{})
		assert.NoError(t, err)
		at = p.Now()
	})
	require.NoError(t, w.Run(time.Minute))

	// Three round trips of 800ms each.
	assert.Equal(t, 2400*ms, at)
	assert.Equal(t, kube.Object{Kind: "deployments", Name: "web", Replicas: 5, ResourceVersion: 2}, got)

	// The history holds the three operations as porcupine reads them.
	ops := h.Operations()
	require.Len(t, ops, 3)
	assert.Equal(t, check.Create("deployments/web", 3), ops[0].Input)
	assert.Equal(t, check.Acked(1), ops[0].Result)
	assert.Equal(t, check.UpdateIfVersion("deployments/web", 5, 1), ops[1].Input)
	assert.Equal(t, check.Found(5, 2), ops[2].Result)
	assert.Equal(t, "kubectl", ops[2].Client)
	assert.Equal(t, "server-1", ops[2].Server)
	assert.Equal(t, 1600*ms, ops[2].Call)
	assert.True(t, check.Linearizable(h, 0).OK())
	assert.Nil(t, check.Durable(h, store.Changes()))

	// The timeline tells the story, one note per operation.
	var notes []string
	for _, ev := range w.Trace().Events() {
		if ev.Kind == sim.EvNote {
			notes = append(notes, ev.Text)
		}
	}
	assert.Equal(t, []string{
		"CREATE deployments/web replicas=3 @server-1 → rv=1",
		"UPDATE deployments/web replicas=5 if rv=1 @server-1 → rv=2",
		"GET deployments/web @server-1 → replicas=5 rv=2",
	}, notes)
}

// A Noted client writes the suite's note of each request, with what it
// asked and what it heard, in place of its own.
func TestClientANotedClientWritesTheSuitesNoteInPlaceOfItsOwn(t *testing.T) {
	w := sim.New(1, sim.Latency(ms, ms))
	defer w.Close()
	w.AddNode("server-1", serveStore(kube.NewMemStore(0)))
	w.AddNode("kubectl", func(p *sim.Proc) {
		c := kube.NewClient(p, "server-1").Noted(func(r kube.Request) string {
			return fmt.Sprintf("%s asked %s of %s, err %v", r.Client, r.Ask, r.Server, r.Err)
		})
		_, _ = c.Create(deployment("web", 3))
		_, _ = c.Quiet().Get("deployments/web", kube.ReadOptions{})
		_, _ = c.Delete("deployments/api", 0)
	})
	require.NoError(t, w.Run(time.Minute))

	var notes []string
	for _, ev := range w.Trace().Events() {
		if ev.Kind == sim.EvNote {
			notes = append(notes, ev.Text)
		}
	}
	assert.Equal(t, []string{
		"kubectl asked CREATE deployments/web{replicas=3 rv=0} of server-1, err <nil>",
		"kubectl asked DELETE deployments/api of server-1, err NotFound (404): deployments/api not found",
	}, notes, "the quiet read writes nothing")
}

// A delete conditional on a resourceVersion is recorded with its
// precondition, and its Conflict as a conflict: the checker holds a
// conditional delete to its version as it holds a conditional update.
func TestClientRecordsADeletesPrecondition(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", serveStore(kube.NewMemStore(0)))
	h := check.NewHistory()
	w.AddNode("kubectl", func(p *sim.Proc) {
		c := kube.NewClient(p, "server-1").Record(h)
		_, err := c.Create(deployment("batch", 3))
		require.NoError(t, err)
		_, err = c.Delete("deployments/batch", 7)
		assert.ErrorIs(t, err, kube.ErrConflict)
		_, err = c.Delete("deployments/batch", 1)
		assert.NoError(t, err)
	})
	require.NoError(t, w.Run(time.Minute))
	ops := h.Operations()
	require.Len(t, ops, 3)
	assert.Equal(t, check.DeleteIfVersion("deployments/batch", 7), ops[1].Input)
	assert.Equal(t, check.Conflict, ops[1].Result.Outcome)
	assert.Equal(t, check.DeleteIfVersion("deployments/batch", 1), ops[2].Input)
	assert.Equal(t, check.Acked(2), ops[2].Result)
	assert.True(t, check.Linearizable(h, 0).OK())
}

func TestClientATimeoutIsIndefiniteAndACrashedServerIsUnavailable(t *testing.T) {
	w := sim.New(1, sim.Latency(400*ms, 400*ms))
	defer w.Close()
	store := kube.NewMemStore(0)
	w.AddNode("server-1", serveStore(store))
	w.AddNode("server-2", serveStore(kube.NewMemStore(0)))
	h := check.NewHistory()
	w.AddNode("kubectl", func(p *sim.Proc) {
		c := kube.NewClient(p, "server-1", "server-2").Record(h)

		// A 500ms timeout over a 400ms link: the request arrives and is
		// handled, but the answer comes too late. The write happened; the
		// client cannot know.
		_, err := c.Pin("server-1").WithTimeout(500 * ms).Create(deployment("web", 3))
		assert.ErrorIs(t, err, kube.ErrTimeout)

		w.Crash("server-2")
		_, err = c.Pin("server-2").Get("deployments/web", kube.ReadOptions{})
		assert.ErrorIs(t, err, kube.ErrUnavailable, "a crashed server refuses the connection")
		assert.Contains(t, err.Error(), "server-2 is down")
	})
	require.NoError(t, w.Run(time.Minute))

	assert.Len(t, store.Changes(), 1, "the timed-out create did happen")
	ops := h.Operations()
	require.Len(t, ops, 2)
	assert.Equal(t, check.Indefinite, ops[0].Result.Outcome, "a timeout is indefinite")
	assert.Equal(t, check.Refused, ops[1].Result.Outcome, "a refused connection had no effect")
}

func TestClientSpreadsRequestsOverServersAndPinSticksToOne(t *testing.T) {
	w := sim.New(7)
	defer w.Close()
	for _, s := range []sim.NodeID{"server-1", "server-2", "server-3"} {
		w.AddNode(s, serveStore(kube.NewMemStore(0)))
	}
	h := check.NewHistory()
	w.AddNode("dashboard", func(p *sim.Proc) {
		c := kube.NewClient(p, "server-1", "server-2", "server-3")
		rr := c.RoundRobin().Named("round-robin").Record(h)
		for i := 0; i < 3; i++ {
			_, _ = rr.Get("deployments/web", kube.ReadOptions{})
		}
		for i := 0; i < 3; i++ {
			_, _ = c.Pin("server-2").Named("pinned").Record(h).Get("deployments/web", kube.ReadOptions{})
		}
	})
	require.NoError(t, w.Run(time.Minute))
	var servers []string
	for _, op := range h.Operations() {
		servers = append(servers, op.Client+"@"+op.Server)
		assert.Equal(t, check.NotFound, op.Result.Outcome)
	}
	assert.Equal(t, "round-robin@server-1 round-robin@server-2 round-robin@server-3 pinned@server-2 pinned@server-2 pinned@server-2",
		strings.Join(servers, " "))
}

func TestClientAnAnyReadIsNotRecordedALatestListIsOneReadPerItem(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", serveStore(kube.NewMemStore(0)))
	h := check.NewHistory()
	w.AddNode("kubectl", func(p *sim.Proc) {
		c := kube.NewClient(p, "server-1")
		_, _ = c.Create(pod("web-1", "deployments/web"))
		_, _ = c.Create(pod("web-2", "deployments/web"))
		rec := c.Record(h)
		l, err := rec.List("pods", kube.ReadOptions{ResourceVersion: kube.Any})
		assert.NoError(t, err)
		assert.Len(t, l.Items, 2)
		_, _ = rec.List("pods", kube.ReadOptions{})
	})
	require.NoError(t, w.Run(time.Minute))
	ops := h.Operations()
	require.Len(t, ops, 2)
	assert.Equal(t, check.ListItem("pods", "pods/web-1"), ops[0].Input)
	assert.Equal(t, check.Found("deployments/web", 1), ops[0].Result)
}

func TestClientAServerThatAnswersTheWrongThingIsABugNotASuccess(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	// A learner's server that says "ok" where the stored object was due.
	w.AddNode("server-1", func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) { return "ok", nil })
	})
	h := check.NewHistory()
	w.AddNode("kubectl", func(p *sim.Proc) {
		_, err := kube.NewClient(p, "server-1").Record(h).Create(deployment("web", 5))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "the server answered with string where a kube.Object was due")
	})
	require.NoError(t, w.Run(time.Minute))
	ops := h.Operations()
	require.Len(t, ops, 1)
	assert.Equal(t, check.Indefinite, ops[0].Result.Outcome, "nobody knows what such a server did")
}

// A suite that hands a recording client to a chapter's code (a controller's
// Reconcile) judges that code by what the client records. Whatever the code
// does with the client, it keeps recording there, under the name the suite
// gave it: a controller that could stop recording, or record as kubectl,
// could delete pods blind and leave no trace of it in the history its judge
// reads.
func TestClientARecordingClientKeepsRecordingWhateverItIsTurnedInto(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", serveStore(kube.NewMemStore(0)))
	suite, mine := check.NewHistory(), check.NewHistory()
	w.AddNode("controller", func(p *sim.Proc) {
		handed := kube.NewClient(p, "server-1").Named("controller").Record(suite) // as the suite builds it
		// The chapter's code, trying every setting on what it was handed.
		_, _ = handed.Record(nil).Create(pod("web-1", "deployments/web"))
		_, _ = handed.Named("kubectl").Create(pod("web-2", "deployments/web"))
		_, _ = handed.Quiet().Pin("server-1").WithTimeout(time.Second).Delete("pods/web-1", 0)
		p.Go("worker", func(p *sim.Proc) {
			_, _ = handed.For(p).RoundRobin().Get("pods/web-2", kube.ReadOptions{})
		})
		// Its own history, under its own name, as well as the suite's.
		_, _ = handed.Named("me").Record(mine).Delete("pods/web-2", 0)
	})
	require.NoError(t, w.Run(time.Minute))

	var ops []string
	for _, op := range suite.Operations() {
		ops = append(ops, op.Client+" "+op.Input.String())
	}
	assert.Equal(t, []string{
		"controller create pods/web-1=deployments/web",
		"controller create pods/web-2=deployments/web",
		"controller delete pods/web-1",
		"controller delete pods/web-2",
		"controller read pods/web-2",
	}, ops, "every operation, under the suite's name for the client")
	require.Len(t, mine.Operations(), 1)
	assert.Equal(t, "me", mine.Operations()[0].Client)
}

// The request log keeps what the checkers' history leaves out: reads that
// asked for any state, lists as one request, watches, and a request that
// found its server down, each with its times and its answer.
func TestTheRequestLogKeepsEveryKindOfRequestWithItsAnswer(t *testing.T) {
	w := sim.New(1, sim.Latency(10*ms, 10*ms))
	defer w.Close()
	w.AddNode("server-1", serveStore(kube.NewMemStore(0)))
	w.AddNode("server-2", func(p *sim.Proc) {})
	var log kube.Requests
	w.AddNode("kubectl", func(p *sim.Proc) {
		c := kube.NewClient(p, "server-1").Named("kubectl").Log(&log).Named("someone-else")
		_, _ = c.Create(deployment("web", 3))
		_, _ = c.Get("deployments/web", kube.ReadOptions{ResourceVersion: kube.Any})
		_, _ = c.List("deployments", kube.ReadOptions{})
		_, _ = c.Watch("deployments", 0, 0)
		_, _ = c.Pin("server-2").Get("deployments/web", kube.ReadOptions{})
	})
	require.NoError(t, w.Run(time.Minute))

	all := log.All()
	require.Len(t, all, 5)
	assert.Equal(t, "kubectl", all[1].Client, "a log keeps the name the client had when it began to log")
	assert.Equal(t, kube.GetRequest{Key: "deployments/web", Opts: kube.ReadOptions{ResourceVersion: kube.Any}}, all[1].Ask)
	assert.False(t, all[1].Latest())
	assert.Equal(t, 20*ms, all[1].Call)
	assert.Equal(t, 40*ms, all[1].Return)
	assert.Equal(t, int64(1), all[1].Reply.(kube.Object).ResourceVersion)
	assert.True(t, all[2].Latest())
	assert.Len(t, all[2].Reply.(kube.List).Items, 1)
	assert.Len(t, all[3].Reply.([]kube.Event), 1)
	assert.Len(t, kube.Of[kube.WatchRequest](&log), 1)
	assert.True(t, all[4].Refused)
	assert.ErrorIs(t, all[4].Err, kube.ErrUnavailable)
}

// A server that answers with the wrong type has a bug, and the client
// returns an error: the log keeps that error, as the client returned it,
// beside the answer the server gave.
func TestTheRequestLogKeepsTheErrorOfAnAnswerOfTheWrongType(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			return &kube.Object{Kind: "deployments", Name: "web"}, nil
		})
	})
	var log kube.Requests
	var got error
	w.AddNode("kubectl", func(p *sim.Proc) {
		_, got = kube.NewClient(p, "server-1").Log(&log).Get("deployments/web", kube.ReadOptions{})
	})
	require.NoError(t, w.Run(time.Minute))

	require.Error(t, got)
	all := log.All()
	require.Len(t, all, 1)
	assert.Equal(t, got, all[0].Err)
	assert.IsType(t, &kube.Object{}, all[0].Reply)
}
