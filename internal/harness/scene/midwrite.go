package scene

import (
	"fmt"
	"time"

	"onehistory/internal/harness/sim"
)

// CrashMidWrite crashes Node at the first moment from From on when File on
// its disk holds bytes appended and not yet synced (a crash then loses or
// tears them), and restarts it For later. It looks every millisecond for
// up to Within (default one second); if the moment never comes, it crashes
// the node at the end of that window anyway, so the fault always happens.
//
// It aims at the point a random crash seldom hits: between a write and its
// sync, where "durable before sent" and "durable before acknowledged" are
// decided.
type CrashMidWrite struct {
	Node      sim.NodeID
	File      string
	From, For time.Duration
	Within    time.Duration
}

func (f CrashMidWrite) String() string {
	return fmt.Sprintf("crash %s mid-write (unsynced bytes in %s) after %s, restart %s later", f.Node, f.File, millis(f.From), millis(f.For))
}

func (f CrashMidWrite) inject(s *Scene) {
	w := s.W
	within := f.Within
	if within <= 0 {
		within = time.Second
	}
	deadline := f.From + within
	var look func()
	look = func() {
		if !w.Up(f.Node) {
			return
		}
		file := w.Disk(f.Node).Open(f.File)
		if file.Size() > file.Synced() || w.Now() >= deadline {
			w.Crash(f.Node)
			w.After(f.For, func() {
				if !w.Up(f.Node) {
					w.Restart(f.Node)
				}
			})
			return
		}
		w.After(time.Millisecond, look)
	}
	w.At(f.From, look)
}
