package kube_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Every node of a world runs in one Go process, so an error value the
// harness hands out is shared by all of them unless it is a copy. Were
// ErrTimeout a pointer, a server that rewrote the one it answered with would
// rewrite it for every node and for the suite: the next client to time out
// would read "OK (200)", and a judge that asked errors.Is(err,
// kube.ErrTimeout) would no longer recognise a timeout.
func TestAnAPIErrorIsACopyWhoeverChangesIt(t *testing.T) {
	w := sim.New(1)
	defer w.Close()
	w.AddNode("server-1", func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			err := kube.ErrTimeout
			err.Reason, err.Code, err.Message = "OK", 200, "all is well" // the server's copy
			return nil, kube.ErrTimeout
		})
	})
	var first, second error
	w.AddNode("client", func(p *sim.Proc) {
		_, first = p.Call("server-1", kube.GetRequest{Key: "deployments/web"}, time.Second)
		// The client takes the error apart both ways and changes what it holds.
		var value kube.StatusError
		require.True(t, errors.As(first, &value))
		value.Reason = "OK"
		var pointer *kube.StatusError
		require.True(t, errors.As(first, &pointer))
		pointer.Reason, pointer.Code = "OK", 200
		_, second = p.Call("server-1", kube.GetRequest{Key: "deployments/web"}, time.Second)
	})
	require.NoError(t, w.Run(time.Minute))

	// What every node and the judge see next is the API's Timeout, as written.
	const text = "Timeout (504): the request did not finish in time; it may or may not have taken effect"
	for _, err := range []error{first, second, kube.ErrTimeout} {
		assert.EqualError(t, err, text)
		assert.ErrorIs(t, err, kube.ErrTimeout)
	}
}

// errors.As finds an API error with either target, and errors.Is matches a
// specific error to its kind's sentinel, wrapped or not.
func TestAnAPIErrorIsFoundAsAValueOrAPointer(t *testing.T) {
	err := kube.Conflict("deployments/web", 4, 5)
	wrapped := errors.Join(errors.New("while scaling"), err)

	var value kube.StatusError
	require.True(t, errors.As(wrapped, &value))
	assert.Equal(t, kube.StatusError{Code: 409, Reason: "Conflict", Message: "operation on deployments/web cannot be fulfilled: the object has been modified " +
		"(you had resourceVersion 4, it is now 5); please apply your changes to the latest version and try again"}, value)
	var pointer *kube.StatusError
	require.True(t, errors.As(wrapped, &pointer))
	assert.Equal(t, value, *pointer)

	assert.ErrorIs(t, wrapped, kube.ErrConflict)
	assert.NotErrorIs(t, wrapped, kube.ErrGone)
	// An error another package made as a pointer is found the same way.
	var fromPointer kube.StatusError
	require.True(t, errors.As(error(&kube.StatusError{Code: 429, Reason: "TooManyRequests"}), &fromPointer))
	assert.ErrorIs(t, &fromPointer, kube.ErrTooManyRequests)
}

// The sentinels' texts are the ones the book's captures and the suites'
// stories print.
func TestTheAPIErrorsReadAsBefore(t *testing.T) {
	for err, text := range map[error]string{
		kube.ErrNotFound:        "NotFound (404): the object does not exist",
		kube.ErrAlreadyExists:   "AlreadyExists (409): the object already exists",
		kube.ErrConflict:        "Conflict (409): the object has been modified; please apply your changes to the latest version and try again",
		kube.ErrGone:            "Gone (410): too old resource version: the history no longer holds it; relist",
		kube.ErrTooManyRequests: "TooManyRequests (429): storage is (re)initializing",
		kube.ErrUnavailable:     "Unavailable (500): storage is unreachable",
		kube.ErrTimeout:         "Timeout (504): the request did not finish in time; it may or may not have taken effect",
		kube.NotFound("pods/a"): "NotFound (404): pods/a not found",
		kube.Gone(3, 7):         "Gone (410): too old resource version: 3 (oldest retained: 7); relist",
		kube.Unavailable("x"):   "Unavailable (500): storage unavailable: x",
	} {
		assert.EqualError(t, err, text)
	}
}
