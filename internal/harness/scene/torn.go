package scene

import (
	"fmt"
	"time"

	"onehistory/internal/harness/sim"
)

// TornCrash crashes Node in the middle of a write to its disk: at the first
// moment from At on when File on Node's disk holds bytes that are not yet
// synced (a record appended, its sync in flight), so that the crash may
// keep none, part or all of that record; it restarts the node For later. If
// no write is in flight within Within (zero: a second), it crashes the node
// then anyway. It looks every tenth of a millisecond.
type TornCrash struct {
	Node    sim.NodeID
	File    string
	At, For time.Duration
	Within  time.Duration
}

func (f TornCrash) String() string {
	return fmt.Sprintf("crash %s mid-write to %s from %s, restart %s later", f.Node, f.File, ms(f.At), ms(f.For))
}

const tornPoll = 100 * time.Microsecond

func (f TornCrash) inject(s *Scene) {
	w := s.W
	within := f.Within
	if within == 0 {
		within = time.Second
	}
	var try func()
	try = func() {
		if !w.Up(f.Node) {
			return
		}
		d := w.Disk(f.Node)
		writing := false
		for _, name := range d.Files() {
			if name == f.File {
				file := d.Open(name)
				writing = file.Size() > file.Synced()
			}
		}
		if !writing && w.Now() < f.At+within {
			w.After(tornPoll, try)
			return
		}
		w.Crash(f.Node)
		w.After(f.For, func() {
			if !w.Up(f.Node) {
				w.Restart(f.Node)
			}
		})
	}
	w.At(f.At, try)
}
