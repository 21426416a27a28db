package engine

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// prctl options (linux/prctl.h).
const (
	prSetChildSubreaper = 36
	prGetChildSubreaper = 37
)

// reaper counts the runs that want this process to be a child subreaper:
// it is one while any does, and stops being one when the last ends, unless
// it already was before the first.
var reaper struct {
	sync.Mutex
	runs    int
	already bool // the process was a subreaper before the engine made it one
	on      bool
}

// adopt makes this process a child subreaper for the length of a run, and
// returns the function that ends it (after a last sweep). Without the
// system's support it does nothing.
func adopt() func() {
	reaper.Lock()
	defer reaper.Unlock()
	if reaper.runs == 0 {
		var was int32
		_, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prGetChildSubreaper, uintptr(unsafe.Pointer(&was)), 0)
		reaper.already = e == 0 && was != 0
		_, _, e = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
		reaper.on = e == 0
	}
	reaper.runs++
	return func() {
		sweep(0)
		reaper.Lock()
		defer reaper.Unlock()
		reaper.runs--
		if reaper.runs == 0 && reaper.on && !reaper.already {
			syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0)
			reaper.on = false
		}
	}
}

// reaping reports whether the engine made this process a child subreaper.
func reaping() bool {
	reaper.Lock()
	defer reaper.Unlock()
	return reaper.on
}

// sweepLimit bounds one sweep: a process that keeps forking faster than the
// sweep kills its children is left to the next sweep.
var sweepLimit = 2 * time.Second

// sweep kills and reaps every child of this process that the engine did not
// start: processes adopted because their parent died. group, when not 0, is
// the process group of a test binary that has just ended: the sweep goes on
// until no process is left in it, so that what its last members leave is
// adopted, and swept, too.
func sweep(group int) {
	if !reaping() {
		return
	}
	procs.starting.Lock()
	defer procs.starting.Unlock()
	deadline := time.Now().Add(sweepLimit)
	for {
		adopted := adoptedChildren()
		for _, pid := range adopted {
			// A process that left its group leads a group of its own
			// (setsid, setpgid): whatever else is in it goes too.
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, pid := range adopted {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
		groupGone := group == 0 || errors.Is(syscall.Kill(-group, 0), syscall.ESRCH)
		if len(adopted) == 0 && groupGone || time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// adoptedChildren lists this process's children that the engine did not
// start, from /proc/self/task/*/children, or, on a kernel without those
// files, from every process's stat.
func adoptedChildren() []int {
	var pids []int
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	for i, task := range tasks {
		data, err := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
		if err != nil {
			if i == 0 && errors.Is(err, os.ErrNotExist) {
				return adoptedByStat()
			}
			continue
		}
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil && !procs.ours(pid) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// adoptedByStat finds this process's children that the engine did not
// start by reading every process's parent from /proc/PID/stat.
func adoptedByStat() []int {
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...": comm may hold spaces and parentheses.
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 {
			if ppid, err := strconv.Atoi(fields[1]); err == nil && ppid == self && !procs.ours(pid) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}
