package ex12

import (
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suites/ex12suite/agreed"
)

// You do not need to change this file. It is an API server on top of the
// agreed log: it puts every write into the log (store.go decides how), and
// applies the log's entries, in the log's order, to its own history, which
// it serves reads and watches from. Your work is in store.go and update.go.

// writeTimeout bounds how long a server waits for a write's entry to be
// applied before it answers Timeout: the entry may still be in the log, so
// the answer is indefinite.
const writeTimeout = 3 * time.Second

// Serve runs one API server on p's node: the hidden suite calls it as the
// boot function of every server. self is this server; servers lists every
// server, in the same order on each. Every server accepts reads and writes.
// A watch from ResourceVersion 0 returns the server's whole history: that is
// how the hidden suite compares the servers.
func Serve(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
	s := &server{self: self, applied: newHistory(), results: map[int64]outcome{}, caught: sim.Cond{Name: "log applied"}}
	p.Go("apply", s.applyLog)
	p.Serve(s.handle)
}

// server is one API server.
type server struct {
	self    sim.NodeID
	applied *history          // the log's entries up to index, applied in order
	index   int64             // the index of the last entry of the log applied
	results map[int64]outcome // what each entry applied came to, by index
	caught  sim.Cond          // broadcast whenever index moves
}

// outcome is what one entry of the log came to when it was applied: the
// object as it stood after it (for a delete: as it was, numbered as the
// deletion), or the API error that refused it.
type outcome struct {
	obj kube.Object
	err error
}

// handle answers one request from a client.
func (s *server) handle(p *sim.Proc, from sim.NodeID, req any) (any, error) {
	switch r := req.(type) {
	case kube.GetRequest:
		if err := s.fresh(p, r.Opts); err != nil {
			return kube.Object{}, err
		}
		return s.applied.get(r.Key)
	case kube.ListRequest:
		if err := s.fresh(p, r.Opts); err != nil {
			return kube.List{}, err
		}
		return s.applied.list(r.Kind), nil
	case kube.WatchRequest:
		return s.applied.watch(p, r.Kind, r.ResourceVersion, r.Wait), nil
	case kube.CreateRequest:
		return s.write(p, Write{Op: Create, Object: r.Object})
	case kube.UpdateRequest:
		return s.write(p, Write{Op: Update, Object: r.Object})
	case kube.DeleteRequest:
		kind, name := kube.SplitKey(r.Key)
		return s.write(p, Write{Op: Delete, Object: kube.Object{Kind: kind, Name: name, ResourceVersion: r.ResourceVersion}})
	}
	return nil, kube.Unavailable("unknown request")
}

// applyLog applies the log's entries in order, as they come, for as long
// as the server runs. A server that restarts has an empty history and
// applies the log again from its first entry: every server that applies the
// same entries in the same order holds the same history.
func (s *server) applyLog(p *sim.Proc) {
	for {
		entries, err := agreed.Read(p, s.index, time.Second)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.Index != s.index+1 {
				break
			}
			w, _ := e.Value.(Write)
			obj, err := s.apply(w)
			s.index = e.Index
			s.results[e.Index] = outcome{obj: obj, err: err}
			s.caught.Broadcast()
		}
	}
}

// outcome waits until the entry at index has been applied and returns what
// it came to, or Timeout when it has not been applied within writeTimeout.
func (s *server) outcome(p *sim.Proc, index int64) (kube.Object, error) {
	deadline := p.Now() + writeTimeout
	for s.index < index {
		if p.Now() >= deadline {
			return kube.Object{}, kube.ErrTimeout
		}
		s.caught.WaitTimeout(p, deadline-p.Now())
	}
	r := s.results[index]
	delete(s.results, index)
	return r.obj, r.err
}

// fresh makes a Latest read wait until the server has applied every entry
// the log held when the read arrived, so that it reflects every write
// acknowledged before it; an Any read is served from what is applied now.
func (s *server) fresh(p *sim.Proc, opts kube.ReadOptions) error {
	if opts.ResourceVersion != kube.Latest {
		return nil
	}
	last, err := agreed.Last(p)
	if err != nil {
		return kube.ErrTimeout
	}
	deadline := p.Now() + writeTimeout
	for s.index < last {
		if p.Now() >= deadline {
			return kube.ErrTimeout
		}
		s.caught.WaitTimeout(p, deadline-p.Now())
	}
	return nil
}
