package engine

import (
	"context"
	"os/exec"
	"sync"
	"time"
)

// A watchdog kills a started command's process group when its time limit
// runs out or grading is interrupted, and remembers whether it did: a
// build or a test binary that never ends costs its chapter, not the run.
type watchdog struct {
	cmd   *exec.Cmd
	timer *time.Timer
	stop  func() bool

	mu     sync.Mutex
	killed bool
}

// watch starts a watchdog over cmd, which has started, with limit to run.
func watch(ctx context.Context, cmd *exec.Cmd, limit time.Duration) *watchdog {
	d := &watchdog{cmd: cmd}
	d.timer = time.AfterFunc(limit, d.kill)
	d.stop = context.AfterFunc(ctx, d.kill)
	return d
}

func (d *watchdog) kill() {
	d.mu.Lock()
	d.killed = true
	d.mu.Unlock()
	killGroup(d.cmd)
}

// release ends the watch once the command has ended, and kills whatever
// it left running in its group.
func (d *watchdog) release() {
	d.timer.Stop()
	d.stop()
	killGroup(d.cmd)
}

// fired reports whether the watchdog killed the command.
func (d *watchdog) fired() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.killed
}
