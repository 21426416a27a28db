package drill

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"onehistory/internal/harness/check"
)

// memServer is an API server over a map, with a switch that makes it
// refuse everything and one that makes it never answer.
type memServer struct {
	name             string
	mu               sync.Mutex
	kv               map[string]int
	rev              int64
	refuse, blackout bool
}

func (s *memServer) Name() string { return s.name }

func (s *memServer) Get(ctx context.Context, key string) (int, int64, bool, error) {
	if err := s.fail(ctx); err != nil {
		return 0, 0, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.kv[key]
	return v, s.rev, ok, nil
}

func (s *memServer) Put(ctx context.Context, key string, value int) (int64, error) {
	if err := s.fail(ctx); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rev++
	s.kv[key] = value
	return s.rev, nil
}

func (s *memServer) fail(ctx context.Context) error {
	s.mu.Lock()
	refuse, blackout := s.refuse, s.blackout
	s.mu.Unlock()
	if refuse {
		return fmt.Errorf("%w: no leader", ErrUnavailable)
	}
	if blackout {
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

// isolating makes an isolated server refuse, as a member without a leader
// does.
type isolating map[string]*memServer

func (f isolating) Isolate(s string) { f[s].mu.Lock(); f[s].refuse = true; f[s].mu.Unlock() }
func (f isolating) Rejoin(s string)  { f[s].mu.Lock(); f[s].refuse = false; f[s].mu.Unlock() }

func newCluster(limit time.Duration) (*Cluster, *memServer) {
	s := &memServer{name: "server-1", kv: map[string]int{}}
	return New([]Server{s}, isolating{"server-1": s}, limit), s
}

// A write, a refusal while isolated and a read are recorded in the drill's
// history and the cluster's, and counted, the refusal as one made during
// the fault.
func TestRequestsAreRecordedAndCounted(t *testing.T) {
	c, _ := newCluster(5 * time.Second)
	h := check.NewHistory()
	c.Client("ops", func(p *Proc) {
		api := NewClient(p, c.Servers()...).Record(h)
		if _, err := api.Put("web", 3); err != nil {
			t.Errorf("put: %v", err)
		}
		c.Isolate("server-1") // from a client, so that the test does not race the clock
		if _, err := api.Put("web", 4); !errors.Is(err, ErrUnavailable) {
			t.Errorf("put while isolated: %v; want ErrUnavailable", err)
		}
		c.Rejoin("server-1")
		if o, err := api.Get("web"); err != nil || o.Value != 3 || o.Server != "server-1" {
			t.Errorf("get: %+v, %v; want 3 from server-1", o, err)
		}
	})
	if err := c.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	ops := h.Operations()
	if len(ops) != 3 || c.History().Len() != 3 {
		t.Fatalf("recorded %d operations in the drill's history, %d in the cluster's; want 3 and 3", len(ops), c.History().Len())
	}
	if ops[0].Result != check.Acked(1) || ops[1].Result.Outcome != check.Refused || ops[2].Result != check.Found(3, 1) {
		t.Errorf("recorded %v", ops)
	}
	a := c.Activity()
	if a.Writes != 2 || a.WritesDuringFault != 1 || a.Reads != 1 || a.ReadsDuringFault != 0 || a.ReadsTo["server-1"] != 1 {
		t.Errorf("activity %+v", a)
	}
	if f := c.Faults(); len(f) != 1 || f[0].Desc != "isolate server-1" {
		t.Errorf("faults %v", f)
	}
}

// A request that gets no answer times out, and a write that timed out is
// recorded as indefinite: it may have happened.
func TestNoAnswerIsATimeoutAndTheWriteIndefinite(t *testing.T) {
	c, s := newCluster(5 * time.Second)
	s.blackout = true
	c.Client("ops", func(p *Proc) {
		api := NewClient(p, c.Servers()...).WithTimeout(20 * time.Millisecond)
		if _, err := api.Put("web", 3); !errors.Is(err, ErrTimeout) {
			t.Errorf("put: %v; want ErrTimeout", err)
		}
	})
	if err := c.Run(time.Second); err != nil {
		t.Fatal(err)
	}
	if ops := c.History().Operations(); len(ops) != 1 || !ops[0].Indefinite() {
		t.Errorf("recorded %v; want one indefinite write", ops)
	}
}

// Run is bounded: a client that does not stop at the limit makes Run
// return an error a second after it; a panicking client is named.
func TestRunIsBoundedAndNamesAPanic(t *testing.T) {
	c, _ := newCluster(100 * time.Millisecond)
	release := make(chan struct{})
	c.Client("stubborn", func(p *Proc) { <-release })
	start := time.Now()
	err := c.Run(time.Hour) // the cluster's own limit wins
	close(release)
	if err == nil || !strings.Contains(err.Error(), "still running a second after the 100ms limit") {
		t.Errorf("Run: %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Run took %s", took)
	}

	c, _ = newCluster(time.Second)
	c.Client("clumsy", func(p *Proc) { panic("oops") })
	if err := c.Run(time.Second); err == nil || !strings.Contains(err.Error(), "client clumsy panicked: oops") {
		t.Errorf("Run: %v", err)
	}
	if err := c.Run(time.Second); err == nil {
		t.Error("a second Run: no error")
	}
}
