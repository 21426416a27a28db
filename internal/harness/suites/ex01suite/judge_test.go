package ex01suite

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

func historyStore(retain int) kube.Storage { return kube.NewMemStore(retain) }

// failure builds the world play of seed 1 on the stores mk makes, closed
// when the test ends, and asserts that check finds a failure called name
// there.
func failure(t *testing.T, mk func(retain int) kube.Storage, check, play, name string) (*world, *suite.Failure) {
	t.Helper()
	ch := chapter(mk)
	w := ch.Worlds[play](1)
	t.Cleanup(w.Close)
	f := ch.Verdict(check, play, 1)
	require.NotNil(t, f)
	assert.Equal(t, name, f.Name)
	return w, f
}

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

func forgetting(retain int) kube.Storage { return forgetsDeletions{kube.NewMemStore(retain)} }

// A store that is a history passes every check's judges: the scenes can be
// passed, the reconnect scene tested something (the informer held all five
// pods when it was cut off), and the probe aimed at what it is for.
func TestAHistoryStorePassesEveryJudge(t *testing.T) {
	ch := chapter(historyStore)
	for _, k := range ch.Checks {
		assert.Nil(t, ch.Verdict(k.Name, k.Plays[0].World, 1), k.Name)
	}
	rs := reconnectWorld(1, historyStore)
	defer rs.Close()
	assert.Equal(t, reconnectPods, rs.reconnect.before)
	ts := controllersWorld(1, historyStore)
	defer ts.Close()
	assert.NotEmpty(t, ts.Declared(), "the controllers were cut off")
	hs := probeWorld(1, historyStore)
	defer hs.Close()
	met := probeCounts(hs)
	assert.Nil(t, probedEnough(met, nil))
}

// A probe that met nothing worth passing is told what it missed.
func TestAProbeThatMetNothingIsAVacuousRun(t *testing.T) {
	f := probedEnough(scene.Counts{"conflicts": 3, "replays": 1, "followed": 9}, nil)
	require.NotNil(t, f)
	assert.Equal(t, "vacuous-run", f.Name)
	assert.Equal(t, "the probe tested nothing worth passing: no watch from a compacted version, no burst of changes", f.Story)
}

// The chapter's story: an informer cut off while a pod is deleted asks
// again from its last version and is told nothing; the judge tells it from
// the scene's own values, with the answer that missed the deletion.
func TestAStoreThatForgetsDeletionsLeavesTheInformerAGhost(t *testing.T) {
	w, f := failure(t, forgetting, "reconnect", "reconnect", "missed-change")
	x := w.reconnect
	assert.Equal(t, x.deleteAt, f.At)
	assert.Contains(t, f.Story, "cut off from server-1 from "+suite.FormatTime(x.cut.From)+" to "+suite.FormatTime(x.cut.From+x.cut.For))
	assert.Contains(t, f.Story, "its cache still holds "+x.victim)
	assert.Contains(t, f.Details, "the answer that missed it: ")
	assert.Contains(t, f.Timeline, "partition controller", "the timeline shows the cut")
}

// In two-controllers the auditor names the store's wrong answer before the
// readers disagree, and the failure lists the faults as they were declared.
func TestTwoControllersNameTheAnswerAndTheFaults(t *testing.T) {
	w, f := failure(t, forgetting, "two-controllers", "controllers", "missed-change")
	assert.Contains(t, f.Story, "the store never delivered [DELETED pods/")
	for _, fault := range w.Declared() {
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
	ch := chapter(func(retain int) kube.Storage { return conflictsWhenAbsent{kube.NewMemStore(retain)} })
	for seed := int64(1); seed <= 40; seed++ {
		f := ch.Verdict("history", "probe", seed)
		if f == nil {
			continue
		}
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
	w, f := failure(t, func(retain int) kube.Storage { return bareDeletes{kube.NewMemStore(retain)} },
		"reconnect", "reconnect", "wrong-version")
	assert.Contains(t, f.Story, "the version is right but the object is not")
	assert.Contains(t, f.Story, "DELETE "+w.reconnect.victim)
}
