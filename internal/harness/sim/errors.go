package sim

import (
	"fmt"
	"strings"
	"time"
)

// Error is an error of the simulated network, one of the constants below.
// They are constants, not variables, so that no code can change what
// every node's Call returns.
type Error string

// Error is the error's text: "sim: call timed out (outcome unknown)".
func (e Error) Error() string { return string(e) }

// Errors a Call can return. ErrTimeout is indefinite: the request may or may
// not have been handled; the other two are definite: it was not.
const (
	// ErrTimeout: no reply arrived within the call's timeout. The request may
	// have been lost, delayed, or handled with its reply lost: the caller
	// cannot tell which, and must treat the outcome as unknown.
	ErrTimeout Error = "sim: call timed out (outcome unknown)"
	// ErrNodeDown: the target node was crashed when the request arrived
	// (the simulated connection was refused); the request was not handled.
	ErrNodeDown Error = "sim: target node is down (connection refused)"
	// ErrUnreachable: the target node is up but serves no requests (it has
	// not called Serve since it booted); the request was not handled.
	ErrUnreachable Error = "sim: target node serves no requests"
)

// MisuseError reports a world used the wrong way: an unknown node, a negative
// duration, the restart of a running node, a process used from a goroutine
// the world did not start. The simulator panics with it; Run returns it when
// the panic happens inside the run.
type MisuseError struct {
	What string
}

// Error is "sim: misuse: " and what was misused.
func (e *MisuseError) Error() string { return "sim: misuse: " + e.What }

func misuse(format string, args ...any) {
	panic(&MisuseError{What: fmt.Sprintf(format, args...)})
}

// Blocked describes one process that could not go on.
type Blocked struct {
	Proc string // "server-1/handle#12"
	Wait string // what it waits for: "Cond.Wait(commit)", "Mutex.Lock(state)"
}

// DeadlockError ends a run in which every process is blocked and nothing is
// pending: no message in flight, no timer, nothing that could ever wake them.
type DeadlockError struct {
	At      time.Duration
	Blocked []Blocked
}

// Error names the time and each blocked process with what it waits in.
func (e *DeadlockError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sim: deadlock at %s: every process is blocked and nothing is pending:", FormatTime(e.At))
	for _, x := range e.Blocked {
		fmt.Fprintf(&b, "\n  %s waits in %s", x.Proc, x.Wait)
	}
	return b.String()
}

// PanicError ends a run in which a process panicked.
type PanicError struct {
	Proc  string
	At    time.Duration
	Value any
	Stack string
}

// Error names the process, the time, the value it panicked with and its stack.
func (e *PanicError) Error() string {
	return fmt.Sprintf("sim: process %s panicked at %s: %v\n%s", e.Proc, FormatTime(e.At), e.Value, e.Stack)
}

// StuckError ends a run in which a process kept the world waiting for longer
// than the watchdog allows in wall-clock time: it blocked outside the world
// (a sync.Mutex held across a call, a bare channel, time.Sleep) or spun in a
// loop without ever calling the world. Its goroutine cannot be stopped; the
// world is unusable afterwards.
type StuckError struct {
	Proc  string
	At    time.Duration
	After time.Duration // wall-clock time waited
}

// Error names the stuck process and says what keeps a process from yielding.
func (e *StuckError) Error() string {
	return fmt.Sprintf("sim: process %s did not yield for %s of wall time at virtual %s: it is blocked outside the world "+
		"(a sync.Mutex held across a call, a bare channel, time.Sleep) or spinning in a loop without calling the world",
		e.Proc, e.After, FormatTime(e.At))
}
