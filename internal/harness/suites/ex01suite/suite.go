// Package ex01suite is the hidden suite of chapter 1, "One memory": the one
// API server's store must be a history. Its three checks:
//
//   - reconnect: the controller's informer is cut off from the API server
//     while kubectl deletes a pod; once it is back, its cache must say the
//     pod is gone. A store that keeps only the present cannot tell it.
//   - history: a probe compares every answer of the store with the
//     reference history, operation by operation: the next resourceVersion
//     for each accepted change, Conflict for a stale precondition, a watch
//     from any retained version replaying exactly the changes after it, Gone
//     for a version older than that.
//   - two-controllers: a ReplicaSet controller and a dashboard, each cut
//     off at random while kubectl scales and deletes, must end with the same
//     answer as the store, and with exactly the desired pods.
//
// Points and hints are in the chapter's registry entry
// (internal/harness/course/ex01.go).
//
// In every check an auditor stands between server-1 and the store (audit.go):
// it asks the reference history each question the store is asked, at the
// same instant, and a check reports the most specific wrong answer it found
// (a stale precondition accepted, a deletion delivered as a modification, a
// watch answered only when its wait ran out) before the symptom its scene
// shows. The history probe aims preconditions on both sides of the stored
// version and watches at the edge of the retained window, and now and then
// accepts more changes than the store retains in one instant on server-1
// itself, while the watcher is parked.
//
// The informers resume their watch from their last version after a
// failure and list again only on Gone, as client-go's reflector does
// (kube.Informer): that is what makes the store's history matter, since a
// relist after every partition would hide a missing history. two-controllers
// uses kube.ReplicaSetController as it is, with a periodic resync added (see
// controllers.go).
package ex01suite

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

const ms = time.Millisecond

// server is the one API server's node.
const server sim.NodeID = "server-1"

// Run runs the hidden suite of chapter ex01 against a learner's store
// constructor: New(retain) must return an empty store that keeps, for
// watches, the last retain accepted changes.
func Run[S kube.Storage](t *testing.T, newStore func(retain int) S) {
	mk := func(retain int) kube.Storage { return newStore(retain) }
	suite.Run(t, "ex01", map[string]suite.CheckFunc{
		"reconnect":       func(t *testing.T) { reconnect(t, mk) },
		"history":         func(t *testing.T) { history(t, mk) },
		"two-controllers": func(t *testing.T) { twoControllers(t, mk) },
	})
}

// runFailure reports a run that could not finish (a deadlock, a panic, a
// process stuck outside the world) as the failure it is.
func runFailure(t *testing.T, w *sim.World, seed int64, err error, cols []sim.NodeID) {
	t.Helper()
	f := suite.RunFailure(err)
	if f.At == 0 {
		f.At = w.Now()
	}
	f.Clause, f.Seed = course.OneHistory, seed
	f.Timeline = w.Timeline(sim.TimelineOptions{Columns: cols, Focus: f.At, MaxRows: 40})
	suite.Report(t, f)
}

// errKind names the API error err matches, for stories: "Conflict",
// "NotFound", "OK" for nil.
func errKind(err error) string {
	if err == nil {
		return "OK"
	}
	for _, k := range []*kube.StatusError{kube.ErrNotFound, kube.ErrAlreadyExists, kube.ErrConflict, kube.ErrGone,
		kube.ErrTooManyRequests, kube.ErrUnavailable, kube.ErrTimeout} {
		if errors.Is(err, k) {
			return k.Reason
		}
	}
	return fmt.Sprintf("error %q", err.Error())
}

// events prints a watch reply: "[ADDED pods/web-1 rv=4, DELETED pods/web-2 rv=5]".
func events(evs []kube.Event) string {
	s := "["
	for i, ev := range evs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %s rv=%d", ev.Type, ev.Object.Key(), ev.Object.ResourceVersion)
	}
	return s + "]"
}

// sortedStrings sorts xs in place and returns it.
func sortedStrings(xs []string) []string {
	slices.Sort(xs)
	return xs
}
