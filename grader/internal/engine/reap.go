package engine

import (
	"bytes"
	"os/exec"
	"sync"
)

// No process outlives grading. Each test binary runs in a process group of
// its own, killed when the binary ends; but a process can leave its group
// (setsid) and so escape that kill. Where the system allows (Linux, see
// reap_linux.go), a run with Options.Reap makes the grader a child
// subreaper: a process whose parent dies is handed to the grader, not to
// the system's first process, and after each test binary ends the grader
// kills and reaps every child it did not start itself. To tell the two
// apart, every process the engine starts goes through procs, which knows
// their pids until they have been waited for.

// procs are the processes the engine has started and not yet waited for.
var procs = &started{pids: map[int]bool{}}

// started tracks the processes the engine starts.
type started struct {
	// starting is held for reading while a process starts and its pid is
	// noted, and for writing while adopted processes are swept, so that a
	// sweep never takes a child just started for an adopted one.
	starting sync.RWMutex

	mu   sync.Mutex
	pids map[int]bool
}

// start starts cmd and notes its pid.
func (s *started) start(cmd *exec.Cmd) error {
	s.starting.RLock()
	defer s.starting.RUnlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	s.mu.Lock()
	s.pids[cmd.Process.Pid] = true
	s.mu.Unlock()
	return nil
}

// wait waits for cmd, which start started, and forgets its pid once it has
// been reaped.
func (s *started) wait(cmd *exec.Cmd) error {
	err := cmd.Wait()
	s.mu.Lock()
	delete(s.pids, cmd.Process.Pid)
	s.mu.Unlock()
	return err
}

// ours reports whether pid is a process the engine started and has not yet
// waited for.
func (s *started) ours(pid int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pids[pid]
}

// output runs cmd through procs and returns its standard output, and its
// standard error too when both is set.
func output(cmd *exec.Cmd, both bool) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout = &out
	if both {
		cmd.Stderr = &out
	}
	if err := procs.start(cmd); err != nil {
		return nil, err
	}
	err := procs.wait(cmd)
	return out.Bytes(), err
}
