// Package ex01suite is the hidden suite of chapter 1, "One memory": the one
// API server's store must be a history. Each check plays one world
// (reconnectWorld, probeWorld, controllersWorld, whose files tell what
// happens in each) and asks its judges in the order chapter declares them.
//
// In every world an auditor stands between server-1 and the store
// (audit.go), and each check's first judge is what it found: the store's
// most specific wrong answer, before the symptom the scene shows. The
// informers resume their watch from their last version after a failure and
// list again only on Gone, as client-go's reflector does (kube.Informer):
// that is what makes the store's history matter, since a relist after every
// partition would hide a missing history.
package ex01suite

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

const ms = time.Millisecond

// server is the one API server's node, as scene.Servers(1) names it.
const server sim.NodeID = "server-1"

// web is the deployment whose pods the scenes count.
const web = "deployments/web"

// Run runs the hidden suite of chapter ex01 against a learner's store
// constructor: New(retain) must return an empty store that keeps, for
// watches, the last retain accepted changes.
func Run[S kube.Storage](t *testing.T, newStore func(retain int) S) {
	chapter(func(retain int) kube.Storage { return newStore(retain) }).Run(t)
}

// chapter is the suite, declared, for the store constructor mk.
func chapter(mk func(retain int) kube.Storage) scene.Chapter[*world] {
	return scene.Chapter[*world]{
		ID: "ex01",
		Worlds: map[string]scene.Build[*world]{
			"reconnect":   func(seed int64) *world { return reconnectWorld(seed, mk) },
			"probe":       func(seed int64) *world { return probeWorld(seed, mk) },
			"controllers": func(seed int64) *world { return controllersWorld(seed, mk) },
		},
		Checks: []scene.Check[*world]{{
			Name:   "reconnect",
			Plays:  []scene.Play{{World: "reconnect", Seeds: scene.Random(100)}},
			Judges: []scene.Judge[*world]{wrongAnswerButMissed, deleted, caughtUp, storeListed, cacheAgrees},
		}, {
			Name:   "history",
			Plays:  []scene.Play{{World: "probe", Seeds: scene.Random(120)}},
			Judges: []scene.Judge[*world]{retained(wrongAnswer), retained(probeAnswered), retained(watcherFollowed)},
			Sum:    &scene.Sum[*world]{Count: probeCounts, Judge: probedEnough},
		}, {
			Name:   "two-controllers",
			Plays:  []scene.Play{{World: "controllers", Seeds: scene.Random(100), Guard: &scene.Guard{MinCompleted: 5, MinCovered: 0.9}}},
			Judges: []scene.Judge[*world]{wrongAnswerAmidFaults, storeAnswered, readersAgree, converged},
		}},
	}
}

// world is one world of the chapter once it has run: server-1 serving the
// learner's store, which keeps the last retain accepted changes, through
// the auditor; and what the clients of the check that built it saw, in the
// one of reconnect, probe and readers that its build fills.
type world struct {
	*scene.Scene
	aud    *auditor
	retain int

	reconnect *reconnected
	probe     *probed
	readers   *readers
}

// newWorld builds the world of seed: every link takes min to max, and
// server-1 serves mk(retain) through an auditor, retain drawn from the
// seed by draw. Its timelines show every message: with one server, what
// matters is what it told each client.
func newWorld(seed int64, mk func(int) kube.Storage, min, max time.Duration, draw func(r *rand.Rand) int) *world {
	w := &world{}
	w.Scene = scene.New(seed, func(p *sim.Proc, _ sim.NodeID, _ []sim.NodeID) { p.Serve(w.aud.Serve) },
		scene.Servers(1), scene.Latency(min, max))
	w.retain = draw(w.W.Rand())
	w.aud = newAuditor(mk(w.retain), w.retain)
	w.Show(func(sim.Event) bool { return true })
	return w
}

// unrecorded is the client the scene hands its clients (Scene.API), but one
// that records nothing: for a check that judges what it is told as it is
// told, and reads no recorded history.
func (w *world) unrecorded(p *sim.Proc) *kube.Client {
	return kube.NewClient(p, w.Servers...).WithTimeout(w.Timeout)
}

// endAt ends the run at virtual time at: look takes what the clients
// hold at that instant, then ask, a process on server-1 itself (no network
// between it and the store), asks the store through the auditor, and the
// world stops.
func (w *world) endAt(at time.Duration, look func(), ask func(p *sim.Proc)) {
	w.W.At(at, func() {
		look()
		w.W.Go(server, "judge", func(p *sim.Proc) {
			ask(p)
			w.W.Stop()
		})
	})
}

// wrongAnswer is the store's most specific wrong answer, as the auditor
// found it.
func wrongAnswer(w *world) *suite.Failure { return copied(w.aud.Finding()) }

// copied is a copy of f, or nil: what a judge adds to a failure that the
// world keeps (the auditor's, the probe's) is added to its own copy.
func copied(f *suite.Failure) *suite.Failure {
	if f == nil {
		return nil
	}
	c := *f
	return &c
}

// owned lists the keys of the pods among objs that web owns, sorted.
func owned(objs []kube.Object) []string {
	var out []string
	for _, o := range objs {
		if o.Owner == web {
			out = append(out, o.Key())
		}
	}
	slices.Sort(out)
	return out
}

// firstNotIn returns the first key of a that b lacks, or "".
func firstNotIn(a, b []string) string {
	for _, k := range a {
		if !slices.Contains(b, k) {
			return k
		}
	}
	return ""
}

// errKind names the API error err matches, for stories: "Conflict",
// "NotFound", "OK" for nil.
func errKind(err error) string {
	if err == nil {
		return "OK"
	}
	for _, k := range []kube.StatusError{kube.ErrNotFound, kube.ErrAlreadyExists, kube.ErrConflict, kube.ErrGone,
		kube.ErrTooManyRequests, kube.ErrUnavailable, kube.ErrTimeout} {
		if errors.Is(err, k) {
			return k.Reason
		}
	}
	return fmt.Sprintf("error %q", err.Error())
}

// events prints a watch reply: "[ADDED pods/web-1 rv=4, DELETED pods/web-2 rv=5]".
func events(evs []kube.Event) string {
	parts := make([]string, len(evs))
	for i, ev := range evs {
		parts[i] = fmt.Sprintf("%s %s rv=%d", ev.Type, ev.Object.Key(), ev.Object.ResourceVersion)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
