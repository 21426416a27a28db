package ex01suite

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// recorder is a testing.TB that keeps what a judge reports.
type recorder struct {
	testing.TB
	errors, logs []string
}

func (r *recorder) Helper()           {}
func (r *recorder) Name() string      { return "TestEx01/judge" }
func (r *recorder) Error(args ...any) { r.errors = append(r.errors, args[0].(string)) }
func (r *recorder) Log(args ...any)   { r.logs = append(r.logs, args[0].(string)) }

// failure is the one failure r holds.
func (r *recorder) failure(t *testing.T) suite.Failure {
	t.Helper()
	require.Len(t, r.logs, 1, strings.Join(r.errors, "\n"))
	f, ok := suite.ParseLine(r.logs[0])
	require.True(t, ok)
	return f
}

func historyStore(retain int) kube.Storage { return kube.NewMemStore(retain) }

// forgetsDeletions keeps its history but never tells a watch of a
// deletion, as a store that keeps only the present cannot.
type forgetsDeletions struct{ *kube.MemStore }

func (s forgetsDeletions) Watch(p *sim.Proc, kind string, rv int64, wait time.Duration) ([]kube.Event, error) {
	evs, err := s.MemStore.Watch(p, kind, rv, wait)
	var kept []kube.Event
	for _, ev := range evs {
		if ev.Type != kube.Deleted {
			kept = append(kept, ev)
		}
	}
	return kept, err
}

// A store that is a history passes every check's judge: the scenes can be
// passed, and the reconnect scene tested something (the informer held all
// five pods when it was cut off).
func TestAHistoryStorePassesEveryJudge(t *testing.T) {
	r := &recorder{TB: t}
	var cov historyCoverage
	rs := buildReconnect(1, historyStore)
	defer rs.Close()
	hs := buildHistory(1, historyStore, &cov)
	defer hs.Close()
	ts := buildTwoControllers(1, historyStore)
	defer ts.Close()
	assert.True(t, rs.judge(r) && hs.judge(r, &cov) && ts.judge(r), strings.Join(r.errors, "\n"))
	assert.Equal(t, reconnectPods, rs.before)
	assert.NotEmpty(t, ts.Declared(), "the controllers were cut off")
}

// The chapter's story: an informer cut off while a pod is deleted asks
// again from its last version and is told nothing; the judge tells it from
// the scene's own values, with the answer that missed the deletion.
func TestAStoreThatForgetsDeletionsLeavesTheInformerAGhost(t *testing.T) {
	x := buildReconnect(1, func(retain int) kube.Storage { return forgetsDeletions{kube.NewMemStore(retain)} })
	defer x.Close()
	r := &recorder{TB: t}
	require.False(t, x.judge(r))
	f := r.failure(t)
	assert.Equal(t, "missed-change", f.Name)
	assert.Equal(t, x.deleteAt, f.At)
	assert.Contains(t, f.Story, "cut off from server-1 from "+suite.FormatTime(x.cut.From)+" to "+suite.FormatTime(x.cut.From+x.cut.For))
	assert.Contains(t, f.Story, "its cache still holds "+x.victim)
	assert.Contains(t, f.Details, "the answer that missed it: ")
	assert.Contains(t, f.Timeline, "partition controller", "the timeline shows the cut")
}

// In two-controllers the auditor names the store's wrong answer before the
// readers disagree, and the failure lists the faults as they were declared.
func TestTwoControllersNameTheAnswerAndTheFaults(t *testing.T) {
	x := buildTwoControllers(1, func(retain int) kube.Storage { return forgetsDeletions{kube.NewMemStore(retain)} })
	defer x.Close()
	r := &recorder{TB: t}
	require.False(t, x.judge(r))
	f := r.failure(t)
	assert.Equal(t, "missed-change", f.Name)
	assert.Contains(t, f.Story, "the store never delivered [DELETED pods/")
	for _, fault := range x.Declared() {
		assert.Contains(t, f.Details, fault.String())
	}
}

// conflictsWhenAbsent compares a delete's precondition before looking the
// object up, so an absent object "is at version 0" and conflicts.
type conflictsWhenAbsent struct{ *kube.MemStore }

func (s conflictsWhenAbsent) Delete(p *sim.Proc, key string, rv int64) (kube.Object, error) {
	if _, err := s.MemStore.Get(p, key, kube.ReadOptions{}); err != nil && rv != 0 {
		return kube.Object{}, kube.Conflict(key, rv, 0)
	}
	return s.MemStore.Delete(p, key, rv)
}

// The probe deletes absent objects with a precondition too, and a store that
// refuses them with Conflict is told that NotFound was the answer, and why.
func TestAPreconditionOnAnAbsentObjectIsNotFound(t *testing.T) {
	for seed := int64(1); seed <= 40; seed++ {
		var cov historyCoverage
		x := buildHistory(seed, func(retain int) kube.Storage { return conflictsWhenAbsent{kube.NewMemStore(retain)} }, &cov)
		r := &recorder{TB: t}
		ok := x.judge(r, &cov)
		x.Close()
		if ok {
			continue
		}
		f := r.failure(t)
		assert.Equal(t, "wrong-answer", f.Name)
		assert.Contains(t, f.Story, "was refused with Conflict, but ")
		assert.Contains(t, f.Story, "is not stored: there is no version to compare")
		return
	}
	t.Fatal("no seed of 1..40 deleted an absent object with a precondition")
}

// bareDeletes answers a deletion with a tombstone: the right version, but
// not the object as it was.
type bareDeletes struct{ *kube.MemStore }

func (s bareDeletes) Delete(p *sim.Proc, key string, rv int64) (kube.Object, error) {
	o, err := s.MemStore.Delete(p, key, rv)
	return kube.Object{Kind: o.Kind, Name: o.Name, ResourceVersion: o.ResourceVersion}, err
}

// A write answered at the right version with the wrong object is told as
// such, not as a numbering mistake.
func TestARightVersionWithTheWrongObjectIsToldApart(t *testing.T) {
	x := buildReconnect(1, func(retain int) kube.Storage { return bareDeletes{kube.NewMemStore(retain)} })
	defer x.Close()
	r := &recorder{TB: t}
	require.False(t, x.judge(r))
	f := r.failure(t)
	assert.Equal(t, "wrong-version", f.Name)
	assert.Contains(t, f.Story, "the version is right but the object is not")
	assert.Contains(t, f.Story, "DELETE "+x.victim)
}
