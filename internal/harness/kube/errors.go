package kube

import (
	"errors"
	"fmt"

	"onehistory/internal/harness/sim"
)

// StatusError is an API error with the HTTP status kube-apiserver would give.
// Test for a kind with errors.Is: errors.Is(err, kube.ErrConflict).
//
// It is a value, not a pointer: what any code holds, a sentinel below or an
// error a server answered, is a copy of its own. Were it a pointer, one
// server that changed the Message or the Reason of the ErrConflict it was
// handed would change it for every node of the world and for the suite that
// judges them (a channel between servers that share no network, and a way to
// change what the judge takes an error for). Take its fields with errors.As:
//
//	var status kube.StatusError
//	if errors.As(err, &status) && status.Code == 429 { ... }
type StatusError struct {
	Code    int    // 404, 409, 410, 429, 500, 504
	Reason  string // "NotFound", "Conflict", ...
	Message string
}

// Error is "Reason (Code): Message": "NotFound (404): the object does not exist".
func (e StatusError) Error() string { return fmt.Sprintf("%s (%d): %s", e.Reason, e.Code, e.Message) }

// Is matches any StatusError with the same Reason, so that a specific error
// (NotFound for one key) matches the kind's sentinel (ErrNotFound).
func (e StatusError) Is(target error) bool {
	switch t := target.(type) { // the common targets, told apart without errors.As's reflection
	case StatusError:
		return t.Reason == e.Reason
	case sim.Error: // the network's errors wrap nothing
		return false
	}
	var t StatusError
	return errors.As(target, &t) && t.Reason == e.Reason
}

// As lets errors.As fill a *StatusError target as well as a StatusError
// one, with a copy, and find a *StatusError made by other code: code written
// against the pointer (var status *kube.StatusError) works as before, and
// holds a copy of its own.
func (e StatusError) As(target any) bool {
	switch t := target.(type) {
	case **StatusError:
		c := e
		*t = &c
		return true
	case *StatusError: // e is a *StatusError's value: errors.As fills a value itself
		*t = e
		return true
	}
	return false
}

// The kinds of API error. Match them with errors.Is; make specific ones with
// the functions below, which say what happened to which object. Each is a
// value: changing the copy a variable of yours holds changes nothing anyone
// else sees.
var (
	ErrNotFound      = StatusError{404, "NotFound", "the object does not exist"}
	ErrAlreadyExists = StatusError{409, "AlreadyExists", "the object already exists"}
	ErrConflict      = StatusError{409, "Conflict", "the object has been modified; please apply your changes to the latest version and try again"}
	// ErrFenced is a write refused because the lease its Fence names has
	// passed to another holder (or to a later term) since the writer
	// took it: the writer is no longer the leader it acted as.
	ErrFenced          = StatusError{409, "Fenced", "the write's lease token is no longer the lease's: another holder has taken it since"}
	ErrGone            = StatusError{410, "Gone", "too old resource version: the history no longer holds it; relist"}
	ErrTooManyRequests = StatusError{429, "TooManyRequests", "storage is (re)initializing"}
	ErrUnavailable     = StatusError{500, "Unavailable", "storage is unreachable"}
	// ErrTimeout is indefinite: the write may or may not have happened.
	ErrTimeout = StatusError{504, "Timeout", "the request did not finish in time; it may or may not have taken effect"}
)

// NotFound says key does not exist.
func NotFound(key string) error {
	return StatusError{404, "NotFound", fmt.Sprintf("%s not found", key)}
}

// AlreadyExists says key exists already.
func AlreadyExists(key string) error {
	return StatusError{409, "AlreadyExists", fmt.Sprintf("%s already exists", key)}
}

// Conflict says key is no longer at the resourceVersion the writer had read.
func Conflict(key string, want, have int64) error {
	return StatusError{409, "Conflict", fmt.Sprintf("operation on %s cannot be fulfilled: the object has been modified (you had resourceVersion %d, it is now %d); please apply your changes to the latest version and try again", key, want, have)}
}

// Fenced says a write to key carried fence, but the lease is now at token
// have, held by holder.
func Fenced(key string, fence Fence, have int64, holder string) error {
	return StatusError{409, "Fenced", fmt.Sprintf("write to %s fenced off: it carries token %d of %s, but the lease is at token %d, held by %q", key, fence.Token, fence.LeaseKey, have, holder)}
}

// Gone says the history no longer holds resourceVersion rv.
func Gone(rv, oldest int64) error {
	return StatusError{410, "Gone", fmt.Sprintf("too old resource version: %d (oldest retained: %d); relist", rv, oldest)}
}

// Unavailable says the storage cannot be reached, and why.
func Unavailable(why string) error {
	return StatusError{500, "Unavailable", "storage unavailable: " + why}
}
