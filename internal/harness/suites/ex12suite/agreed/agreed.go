// Package agreed is the agreed log of chapter 12, given: one history of
// entries that every API server reads in the same order. It is what chapters
// 8 and 11 build (a log a majority agrees on), kept on one node that never
// fails, so that chapter 12 needs neither: here the order is settled, and the
// question is what the servers do with it.
//
// A server proposes an entry with Propose and learns its index; it reads the
// entries in order with Read, from any index, waiting for new ones. Every
// server reads the same entry at the same index, so a server that decides
// what each entry does from the entries before it (and nothing else) decides
// the same as every other server.
//
// The log stores whatever value it is given; it knows nothing of objects,
// versions or conditions. A proposal whose answer is lost (a Timeout) may or
// may not be in the log, and may still arrive: the log keeps every copy of a
// proposal the network delivers twice.
package agreed

import (
	"fmt"
	"time"

	"onehistory/internal/harness/sim"
)

// Node is the node that keeps the log. The hidden suite boots it with Serve.
const Node sim.NodeID = "log"

// Timeout bounds one call to the log: longer than a round trip over the
// slowest link of the chapter.
const Timeout = 1500 * time.Millisecond

// Entry is one entry of the log: its index (1, 2, 3, ...) and the value
// proposed.
type Entry struct {
	Index int64
	Value any
}

// String is "#7 update deployments/web{...}".
func (e Entry) String() string { return fmt.Sprintf("#%d %v", e.Index, e.Value) }

// The messages the log understands.
type (
	// ProposeRequest appends Value; the reply is its index (an int64).
	ProposeRequest struct{ Value any }
	// ReadRequest asks for the entries after index After, waiting up to
	// Wait for at least one; the reply is an []Entry, empty when none came.
	ReadRequest struct {
		After int64
		Wait  time.Duration
	}
)

// String is "PROPOSE <value>".
func (r ProposeRequest) String() string { return fmt.Sprintf("PROPOSE %v", r.Value) }

// String is "READ after 7".
func (r ReadRequest) String() string { return fmt.Sprintf("READ after %d", r.After) }

// Propose appends value to the log and returns its index. An error means
// no answer came in time: the entry may or may not be in the log, and may
// still be appended later.
func Propose(p *sim.Proc, value any) (int64, error) {
	reply, err := p.Call(Node, ProposeRequest{Value: value}, Timeout)
	if err != nil {
		return 0, err
	}
	return reply.(int64), nil
}

// Read returns the entries after index after, in order, waiting up to wait
// for at least one; none when none came in time. An error means the log did
// not answer in time: read again.
func Read(p *sim.Proc, after int64, wait time.Duration) ([]Entry, error) {
	reply, err := p.Call(Node, ReadRequest{After: after, Wait: wait}, wait+Timeout)
	if err != nil {
		return nil, err
	}
	entries, _ := reply.([]Entry)
	return entries, nil
}

// Last returns the index of the last entry in the log now: a server that
// has applied every entry up to it has seen every write acknowledged before
// it asked.
func Last(p *sim.Proc) (int64, error) {
	entries, err := Read(p, -1, 0)
	if err != nil {
		return 0, err
	}
	if len(entries) == 0 {
		return 0, nil
	}
	return entries[0].Index, nil
}

// Serve runs the log on its node: the hidden suite's boot function for Node.
// A ReadRequest with After -1 is answered with the last entry alone (Last).
func Serve(p *sim.Proc) {
	l := &log{grew: sim.Cond{Name: "log grew"}}
	p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
		switch r := req.(type) {
		case ProposeRequest:
			l.entries = append(l.entries, Entry{Index: int64(len(l.entries)) + 1, Value: r.Value})
			l.grew.Broadcast()
			return int64(len(l.entries)), nil
		case ReadRequest:
			if r.After < 0 {
				if len(l.entries) == 0 {
					return []Entry{}, nil
				}
				return []Entry{l.entries[len(l.entries)-1]}, nil
			}
			deadline := p.Now() + r.Wait
			for int64(len(l.entries)) <= r.After && p.Now() < deadline {
				l.grew.WaitTimeout(p, deadline-p.Now())
			}
			if int64(len(l.entries)) <= r.After {
				return []Entry{}, nil
			}
			return append([]Entry(nil), l.entries[r.After:]...), nil
		}
		return nil, fmt.Errorf("the agreed log does not understand %T", req)
	})
}

// log is the log's state on its node.
type log struct {
	entries []Entry
	grew    sim.Cond
}
