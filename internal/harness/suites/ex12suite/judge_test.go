package ex12suite

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// judged is a world of three servers with none running, whose writers'
// answers and histories the test writes by hand.
func judged(t *testing.T) *world {
	s := scene.New(1, nil, scene.Servers(3))
	t.Cleanup(s.Close)
	return &world{Scene: s, events: map[sim.NodeID][]kube.Event{}}
}

func deployment(name string, replicas int, image string, rv int64) kube.Object {
	return kube.Object{Kind: "deployments", Name: name, Replicas: replicas, Image: image, ResourceVersion: rv}
}

// The story's scene gone wrong: both writers read rv 1 and were told
// accepted, and web ends with the engineer's image and the old replica
// count. The story names the write that erased the scale, the version it
// was conditional on, and the write it erased.
func TestTheStoryTellsWhichWriteErasedTheOther(t *testing.T) {
	w := judged(t)
	read := deployment("web", storyReplicas, storyImage, 1)
	scaled, edited := read, read
	scaled.Replicas, edited.Image = hpaReplicas, editImage
	w.story = &storyRun{read: read, reapplyErr: map[string]error{},
		hpaWrite:  write{who: "hpa", obj: scaled, at: hpaWrites, got: deployment("web", hpaReplicas, storyImage, 2), done: hpaWrites + 368*ms},
		editWrite: write{who: "kubectl", obj: edited, at: engineerWrites, got: deployment("web", storyReplicas, editImage, 3), done: engineerWrites + 737*ms},
		final:     deployment("web", storyReplicas, editImage, 3)}
	f := storyLost(w)
	require.NotNil(t, f)
	assert.Equal(t, "lost-update", f.Name)
	assert.Equal(t, course.OneHistory, f.Clause)
	assert.Equal(t, engineerWrites, f.At, "the write that was accepted on a version already superseded")
	assert.Contains(t, f.Story, "server-1 accepted kubectl's update of deployments/web to replicas=5 image=web:v2 conditional on rv 1, but rv 1 had already been superseded by hpa's update (replicas 7")
	assert.Contains(t, f.Story, "neither writer heard an error")

	// The right ending: the engineer heard Conflict, applied the image
	// again to the scaled object, and web has both changes.
	w.story.editWrite.err = kube.ErrConflict
	w.story.reapplied = []string{"kubectl"}
	w.story.reapplyErr["kubectl"] = nil
	w.story.final = deployment("web", hpaReplicas, editImage, 3)
	assert.Nil(t, storyLost(w))
}

// A write that changes nothing, answered with a new version, is a revision
// every watcher hears of; so is a second change of web in any history.
func TestANoOpThatMadeARevisionIsNamed(t *testing.T) {
	w := judged(t)
	created := deployment("web", storyReplicas, storyImage, 1)
	w.noop = &noopRun{created: created, tries: []noopTry{{what: "an update of deployments/web to the same replicas=5 image=web:v1, if rv 1", at: 366 * ms, got: created}}}
	w.events["server-1"] = []kube.Event{{Type: kube.Added, Object: created}}
	assert.Nil(t, noopRevision(w))

	w.noop.tries[0].got.ResourceVersion = 2
	f := noopRevision(w)
	require.NotNil(t, f)
	assert.Equal(t, "no-op-revision", f.Name)
	assert.Contains(t, f.Story, "came back at rv 2, not rv 1")

	w.noop.tries[0].got.ResourceVersion = 1
	w.events["server-2"] = []kube.Event{{Type: kube.Added, Object: created}, {Type: kube.Modified, Object: deployment("web", storyReplicas, storyImage, 2)}}
	f = noopRevision(w)
	require.NotNil(t, f)
	assert.Contains(t, f.Story, "server-2's history holds 2 changes of deployments/web")
}

// The engineer's image change was made, its answer lost; a helper that
// then reports it unknown is told so, and one that makes it again is told
// that instead.
func TestAChangeMadeIsNeitherReportedFailedNorMadeTwice(t *testing.T) {
	w := judged(t)
	w.lostAnswer = &lostAnswerRun{lost: map[string]lost{
		"kubectl": {req: kube.UpdateRequest{Object: deployment("web", storyReplicas, editImage, 1)}, at: 2319 * ms},
		"hpa":     {req: kube.UpdateRequest{Object: deployment("api", apiReplicas+hpaAdds, "", 2)}, at: 2338 * ms},
	}, edit: edit{done: true, at: 4185 * ms, err: kube.ErrTimeout}}
	w.events["server-1"] = []kube.Event{
		{Type: kube.Added, Object: deployment("web", storyReplicas, storyImage, 1)},
		{Type: kube.Modified, Object: deployment("web", storyReplicas, editImage, 3)},
	}
	assert.Nil(t, answerNotLost(w))
	f := reportedFailed(w)
	require.NotNil(t, f)
	assert.Equal(t, "made-reported-failed", f.Name)
	assert.Equal(t, course.AgreementFirst, f.Clause)
	assert.Contains(t, f.Story, "but the change was made at rv 3 (its answer lost at 2319ms)")

	w.lostAnswer.edit.err = nil
	assert.Nil(t, reportedFailed(w))
	w.events["server-1"] = append(w.events["server-1"], kube.Event{Type: kube.Modified, Object: deployment("web", storyReplicas, editImage, 5)})
	f = reportedFailed(w)
	require.NotNil(t, f)
	assert.Equal(t, "double-apply", f.Name)
	assert.Contains(t, f.Story, "(rv 3 and rv 5)")

	// A helper that never sent an update could not be judged: that is a
	// failure, never a pass.
	delete(w.lostAnswer.lost, "hpa")
	f = answerNotLost(w)
	require.NotNil(t, f)
	assert.Equal(t, "no-update-sent", f.Name)
}

// The heal world gone wrong: writer-b heard one Conflict and its
// GuaranteedUpdate gave up, so web never got its image. The story names
// the writer, the change, and the Conflict it stopped at; a Timeout is
// forgiven only where a read could not tell, because web moved after the
// write that went unanswered.
func TestAWriterThatGaveUpItsChangeIsNamed(t *testing.T) {
	w := judged(t)
	b := &change{who: "writer-b", key: web, field: "image", to: editImage,
		made: func(o kube.Object) bool { return o.Image == editImage },
		err:  kube.ErrConflict, at: 1203400 * time.Microsecond, done: true}
	w.heal = &healRun{changes: []*change{b}}
	sent := w.History.Call("writer-b", "server-1", check.UpdateIfVersion(web, "replicas=5 image=web:v2", 1), 803*ms)
	w.History.Return(sent, check.Fail(check.Conflict), b.at)
	w.events["server-1"] = []kube.Event{
		{Type: kube.Added, Object: deployment("web", storyReplicas, storyImage, 1)},
		{Type: kube.Modified, Object: deployment("web", hpaReplicas, storyImage, 2)},
	}
	f := changeGivenUp(w)
	require.NotNil(t, f)
	assert.Equal(t, "change-given-up", f.Name)
	assert.Equal(t, course.OneHistory, f.Clause, "the change the writer asked for is lost from the one history")
	assert.Equal(t, b.at, f.At, "the Conflict it stopped at")
	assert.Equal(t, "writer-b gave up its change to web's image after one Conflict at 1203.4ms; nothing retried it, so the change the writer was asked to make never reached the history", f.Story)
	assert.Contains(t, f.Details, "an update conditional on rv 2, would have taken effect")

	// Told Timeout for a write conditional on rv 1, after which web moved
	// to rv 2: a read cannot tell whether the change was made, and
	// Timeout is the honest answer.
	b.err = kube.ErrTimeout
	unanswered := w.History.Call("writer-b", "server-1", check.UpdateIfVersion(web, "replicas=5 image=web:v2", 1), 1300*ms)
	w.History.Return(unanswered, check.Result{Outcome: check.Indefinite}, 3300*ms)
	assert.Nil(t, changeGivenUp(w))

	// The same Timeout where web never moved: sending the write again was
	// safe, and giving up left the change undone.
	w.events["server-1"] = w.events["server-1"][:1]
	f = changeGivenUp(w)
	require.NotNil(t, f)
	assert.Contains(t, f.Story, "after a Timeout at 3300ms")
	assert.Contains(t, f.Story, "was never written after rv 1")

	// The change in the history, whatever was said of it: nothing to judge.
	w.events["server-1"] = append(w.events["server-1"], kube.Event{Type: kube.Modified, Object: deployment("web", storyReplicas, editImage, 2)})
	assert.Nil(t, changeGivenUp(w))
}

// A server behind the log that answers writer-b's update from what it has
// applied, as unchanged, though writer-a's change was acknowledged before
// writer-b asked: the story names the server, the version it answered from,
// the acknowledged write that came before, and that the log never saw it.
// Answered from the log's order (a new version after writer-a's), it passes;
// a scene whose first write failed could not decide, and fails.
func TestANoOpAnsweredAtTheDoorIsNamed(t *testing.T) {
	w := judged(t)
	created := deployment("web", storyReplicas, storyImage, 3)
	w.events[storyServer] = []kube.Event{{Type: kube.Added, Object: created},
		{Type: kube.Modified, Object: deployment("web", hpaReplicas, storyImage, 4)}}
	w.behind = &behindRun{created: created,
		a: write{who: string(writerA), obj: deployment("web", hpaReplicas, storyImage, 0), at: writerAWrites,
			got: deployment("web", hpaReplicas, storyImage, 4), done: 2001 * ms},
		b: write{who: string(writerB), obj: deployment("web", storyReplicas, storyImage, 0), at: 2002 * ms,
			got: created, done: 2003*ms + 100*time.Microsecond}}
	f := noopUnordered(w)
	require.NotNil(t, f)
	assert.Equal(t, "no-op-unordered", f.Name)
	assert.Equal(t, course.OneHistory, f.Clause)
	assert.Equal(t, 2003*ms+100*time.Microsecond, f.At)
	assert.Contains(t, f.Story, "server-2 answered writer-b's update of deployments/web (replicas=5 image=web:v1) as unchanged at 2003.1ms from what it had applied (rv 3), without ordering it in the log, but rv 4 (writer-a's replicas=7 image=web:v1, acknowledged at 2001ms) came before it")

	assert.Nil(t, noopRevision(w), "the no-op world's judge leaves the no-op-behind world alone")

	w.behind.b.got = deployment("web", storyReplicas, storyImage, 5)
	assert.Nil(t, noopUnordered(w))

	w.behind.a.err = kube.ErrTimeout
	f = noopUnordered(w)
	require.NotNil(t, f)
	assert.Equal(t, "no-op-unplayed", f.Name)

	// The no-op-behind world's judges leave the no-op world alone.
	w.behind = nil
	assert.Nil(t, noopUnordered(w))
	assert.Nil(t, behindLinearizable(w))
}

// A GuaranteedUpdate that writes the whole object back with no
// resourceVersion: the story says what the helper did (an unconditional
// write, which no Conflict can ever answer), names the write, and, when it
// erased another writer's change, whose and which.
func TestABlindWriteIsTheHelpersMistakeNotAVacuousRun(t *testing.T) {
	w := judged(t)
	a := &change{who: "writer-a", key: web, field: "replicas", to: "7",
		made: func(o kube.Object) bool { return o.Replicas == hpaReplicas }, at: 1996 * ms, done: true}
	b := &change{who: "writer-b", key: web, field: "image", to: editImage,
		made: func(o kube.Object) bool { return o.Image == editImage }, at: 1646 * ms, done: true}
	w.heal = &healRun{changes: []*change{a, b}}
	read := w.History.Call("writer-a", "server-1", check.Read(web), 1380*ms)
	w.History.Return(read, check.Found("replicas=5 image=web:v1", 1), 1390*ms)
	sent := w.History.Call("writer-a", "server-1", check.Write(web, "replicas=7 image=web:v1"), 1391*ms)
	w.History.Return(sent, check.Acked(3), 1996*ms)
	w.events["server-1"] = []kube.Event{
		{Type: kube.Added, Object: deployment("web", storyReplicas, storyImage, 1)},
		{Type: kube.Modified, Object: deployment("web", storyReplicas, editImage, 2)},
		{Type: kube.Modified, Object: deployment("web", hpaReplicas, storyImage, 3)},
	}
	f := blindWrite(w)
	require.NotNil(t, f)
	assert.Equal(t, "blind-write", f.Name)
	assert.Equal(t, course.OneHistory, f.Clause)
	assert.Equal(t, 1391*ms, f.At)
	assert.Contains(t, f.Story, "at 1391ms writer-a's GuaranteedUpdate sent its change of web's replicas (replicas 7) as an update of the whole object (replicas=7 image=web:v1) without a resourceVersion, though it had read deployments/web at rv 1 (answered at 1390ms)")
	assert.Contains(t, f.Story, "never refused with Conflict")
	assert.Contains(t, f.Story, "here it was accepted at rv 3, and writer-b's change of web's image (image web:v2), which had reached the history, is gone: deployments/web ends as replicas=7 image=web:v1")

	// Conditional updates only: nothing to say.
	w = judged(t)
	w.heal = &healRun{changes: []*change{a, b}}
	sent = w.History.Call("writer-a", "server-1", check.UpdateIfVersion(web, "replicas=7 image=web:v1", 1), 1391*ms)
	w.History.Return(sent, check.Acked(2), 1996*ms)
	assert.Nil(t, blindWrite(w))

	// Over the check's worlds: no update sent is the helper's doing;
	// conditional updates that never raced are the test's.
	f = healedEnough(scene.Counts{"lost": 3}, []int64{1, 2})
	require.NotNil(t, f)
	assert.Equal(t, "no-update-sent", f.Name)
	f = healedEnough(scene.Counts{"lost": 3, "conditional": 6}, []int64{1, 2})
	require.NotNil(t, f)
	assert.Equal(t, "vacuous-run", f.Name)
	assert.Nil(t, healedEnough(scene.Counts{"lost": 3, "conditional": 6, "conflicts": 1}, []int64{1, 2}))
}

// The stub's helper behind a right store: the autoscaler's first update
// was made and its answer lost, the scaler added one, and the helper sent
// the same value again with no precondition, over the scaler's change.
// The story names the resend, the lost first write and what was erased; a
// resend on condition passes this judge.
func TestAWriteResentBlindAfterATimeoutIsNamed(t *testing.T) {
	w := judged(t)
	w.lostAnswer = &lostAnswerRun{lost: map[string]lost{
		"hpa": {req: kube.UpdateRequest{Object: deployment("api", apiReplicas+hpaAdds, "", 0)}, at: 2400 * ms},
	}}
	first := w.History.Call("hpa", "lb", check.Write(api, apiReplicas+hpaAdds), 1915*ms)
	w.History.Return(first, check.Result{Outcome: check.Indefinite}, 3915*ms)
	scaled := w.History.Call("scaler", "server-1", check.UpdateIfVersion(api, apiReplicas+hpaAdds+1, 3), 2700*ms)
	w.History.Return(scaled, check.Acked(4), 3114*ms)
	again := w.History.Call("hpa", "lb", check.Write(api, apiReplicas+hpaAdds), 3915*ms)
	w.History.Return(again, check.Acked(5), 4553*ms)
	w.events["server-1"] = []kube.Event{
		{Type: kube.Added, Object: deployment("web", storyReplicas, storyImage, 1)},
		{Type: kube.Added, Object: deployment("api", apiReplicas, "", 2)},
		{Type: kube.Modified, Object: deployment("api", apiReplicas+hpaAdds, "", 3)},
		{Type: kube.Modified, Object: deployment("api", apiReplicas+hpaAdds+1, "", 4)},
		{Type: kube.Modified, Object: deployment("api", apiReplicas+hpaAdds, "", 5)},
	}
	f := resentBlind(w)
	require.NotNil(t, f)
	assert.Equal(t, "timeout-resent-blind", f.Name)
	assert.Equal(t, course.OneHistory, f.Clause)
	assert.Equal(t, 3915*ms, f.At)
	assert.Equal(t, "at 3915ms hpa's GuaranteedUpdate sent its update of deployments/api (replicas 5) again without a resourceVersion, after the first (sent at 1915ms) had no answer by 3915ms: "+
		"the server had made it at 2400ms and the answer was lost, so the first was maybe made, and no Conflict could stop the second: "+
		"it was accepted at rv 5, over rv 4 (replicas 6, scaler's write, told done at 3114ms, which the resend erased); "+
		"after a Timeout a write is sent again only on condition that the object is still at the version the first was conditional on", f.Story)

	// Sent again on condition: not this judge's failure.
	w = judged(t)
	w.lostAnswer = &lostAnswerRun{lost: map[string]lost{"hpa": {at: 2400 * ms}}}
	first = w.History.Call("hpa", "lb", check.UpdateIfVersion(api, apiReplicas+hpaAdds, 2), 1915*ms)
	w.History.Return(first, check.Result{Outcome: check.Indefinite}, 3915*ms)
	again = w.History.Call("hpa", "lb", check.UpdateIfVersion(api, apiReplicas+hpaAdds, 2), 3915*ms)
	w.History.Return(again, check.Fail(check.Conflict), 4553*ms)
	assert.Nil(t, resentBlind(w))
}

// The late-landing world gone wrong: the autoscaler's first update landed
// after its timeout, its resend met the Conflict that caused, and the helper
// added two again. The story names the held write, when it landed, the
// Conflict it caused and the second increment. The engineer's helper that
// returned that Conflict, though its own write had made the change, is
// told so.
func TestAConflictCausedByOnesOwnLateWriteIsNamed(t *testing.T) {
	w := judged(t)
	held := func(obj kube.Object, sent, landed time.Duration, rv int64) *heldUpdate {
		got := obj
		got.ResourceVersion = rv
		return &heldUpdate{req: kube.UpdateRequest{Object: obj}, sent: sent, resent: sent + 2400*ms, landed: landed, got: got, settled: true}
	}
	w.late = &lateRun{held: map[sim.NodeID]*heldUpdate{
		engineer: held(deployment("web", storyReplicas, editImage, 1), 1863*ms, 4622*ms, 3),
		hpa:      held(deployment("api", apiReplicas+hpaAdds, "", 2), 1964*ms, 4951*ms, 4),
	}, edit: edit{done: true, at: 5800 * ms}}
	first := w.History.Call("hpa", "lb", check.UpdateIfVersion(api, apiReplicas+hpaAdds, 2), 1963*ms)
	w.History.Return(first, check.Result{Outcome: check.Indefinite}, 3963*ms)
	again := w.History.Call("hpa", "lb", check.UpdateIfVersion(api, apiReplicas+hpaAdds, 2), 4323*ms)
	w.History.Return(again, check.Fail(check.Conflict), 5314*ms)
	w.events["server-1"] = []kube.Event{
		{Type: kube.Added, Object: deployment("web", storyReplicas, storyImage, 1)},
		{Type: kube.Added, Object: deployment("api", apiReplicas, "", 2)},
		{Type: kube.Modified, Object: deployment("web", storyReplicas, editImage, 3)},
		{Type: kube.Modified, Object: deployment("api", apiReplicas+hpaAdds, "", 4)},
		{Type: kube.Modified, Object: deployment("api", apiReplicas+2*hpaAdds, "", 5)},
	}
	f := lateLanded(w)
	require.NotNil(t, f)
	assert.Equal(t, "double-apply", f.Name)
	assert.Equal(t, 4951*ms, f.At, "when its own first write landed")
	assert.Equal(t, "hpa's first update of deployments/api (replicas=5, if rv 2), sent at 1964ms, had no answer in time: it was held on the way and landed at 4951ms, at rv 4; "+
		"its update sent again at 4323ms (replicas=5, if rv 2) met a Conflict at 5314ms, caused by its own first write; GuaranteedUpdate then added 2 again, at rv 5 (replicas=7): one increment made twice. "+
		"After a Conflict that follows a Timeout, the write that moved the object may be one's own, and no read can tell whether an increment is in it", f.Story)

	// The increment reported unknown and made once; the engineer's
	// helper returned Conflict though its own write had made the change.
	w.events["server-1"] = w.events["server-1"][:4]
	w.late.edit.err = kube.ErrConflict
	f = lateLanded(w)
	require.NotNil(t, f)
	assert.Equal(t, "made-reported-failed", f.Name)
	assert.Equal(t, course.AgreementFirst, f.Clause)
	assert.Contains(t, f.Story, "landed only at 4622ms, at rv 3 (image web:v2); at 5800ms GuaranteedUpdate returned Conflict, though a read at any time since 4622ms shows image web:v2")

	// Reported made: the scene passes.
	w.late.edit.err = nil
	assert.Nil(t, lateLanded(w))

	// No update through the balancer: could not decide.
	delete(w.late.held, hpa)
	f = lateLanded(w)
	require.NotNil(t, f)
	assert.Equal(t, "no-update-sent", f.Name)
}

// The heal world's writer-c, whose first update (on condition) was lost on
// the way, sent the same change again with no resourceVersion: that is a
// resend without its precondition, told as such with the update it
// replaced, not as a write that never had one.
func TestAResendWithoutItsPreconditionInTheHealWorldIsNamed(t *testing.T) {
	w := judged(t)
	c := &change{who: "writer-c", key: api, field: "replicas", to: "5",
		made: func(o kube.Object) bool { return o.Replicas == healAPI }, at: 4398 * ms, done: true}
	w.heal = &healRun{changes: []*change{c}}
	first := w.History.Call("writer-c", "lb", check.UpdateIfVersion(api, healAPI, 2), 1385*ms)
	w.History.Return(first, check.Result{Outcome: check.Indefinite}, 3385*ms)
	read := w.History.Call("writer-c", "lb", check.Read(api), 3390*ms)
	w.History.Return(read, check.Found(apiReplicas, 2), 3757*ms)
	again := w.History.Call("writer-c", "lb", check.Write(api, healAPI), 3757*ms)
	w.History.Return(again, check.Acked(5), 4398*ms)
	w.events["server-1"] = []kube.Event{
		{Type: kube.Added, Object: deployment("web", storyReplicas, storyImage, 1)},
		{Type: kube.Added, Object: deployment("api", apiReplicas, "", 2)},
		{Type: kube.Modified, Object: deployment("api", healAPI, "", 3)},
	}
	f := blindWrite(w)
	require.NotNil(t, f)
	assert.Equal(t, "timeout-resent-blind", f.Name)
	assert.Equal(t, course.OneHistory, f.Clause)
	assert.Equal(t, 3757*ms, f.At)
	assert.Contains(t, f.Story, "at 3757ms writer-c's GuaranteedUpdate sent its change of api's replicas (replicas 5) again without a resourceVersion, after its update conditional on rv 2 (sent at 1385ms) had no answer by 3385ms")
	assert.Contains(t, f.Details, "1385ms    replicas 5, if rv 2 → no answer by 3385ms")
	assert.Contains(t, f.Details, "3757ms    replicas 5, unconditional → accepted at rv 5")
}

// A store that decides the precondition at its door: both of web's
// writers read rv 1, sent their updates on condition of rv 1, and both
// were accepted, the second over the first. The updates did race; the
// server never refused the second. The story names the write accepted on
// a version already gone and the change before it, never a vacuous run.
func TestAStaleUpdateAcceptedInTheHealWorldIsNamed(t *testing.T) {
	w := judged(t)
	w.heal = &healRun{}
	b := w.History.Call("writer-b", "server-2", check.UpdateIfVersion(web, "replicas=5 image=web:v2", 1), 1380*ms)
	w.History.Return(b, check.Acked(3), 1646*ms)
	a := w.History.Call("writer-a", "server-3", check.UpdateIfVersion(web, "replicas=7 image=web:v1", 1), 1391*ms)
	w.History.Return(a, check.Acked(4), 1996*ms)
	w.events["server-1"] = []kube.Event{
		{Type: kube.Added, Object: deployment("web", storyReplicas, storyImage, 1)},
		{Type: kube.Added, Object: deployment("api", apiReplicas, "", 2)},
		{Type: kube.Modified, Object: deployment("web", storyReplicas, editImage, 3)},
		{Type: kube.Modified, Object: deployment("web", hpaReplicas, storyImage, 4)},
	}
	f := staleAccepted(w)
	require.NotNil(t, f)
	assert.Equal(t, "stale-update", f.Name)
	assert.Equal(t, course.OneHistory, f.Clause)
	assert.Equal(t, 1996*ms, f.At)
	assert.Contains(t, f.Story, "writer-a's update deployments/web to replicas=7 image=web:v1 if rv=1 through server-3, sent at 1391ms, was acknowledged at 1996ms as rv 4, but in the one history deployments/web was no longer at rv 1 when it was updated: the last change to it before the update is rv 3")
	assert.Contains(t, f.Story, "checked at a server's door, against what that server has applied, two updates made from one read both pass")

	// The second refused with Conflict: nothing to say.
	w = judged(t)
	w.heal = &healRun{}
	b = w.History.Call("writer-b", "server-2", check.UpdateIfVersion(web, "replicas=5 image=web:v2", 1), 1380*ms)
	w.History.Return(b, check.Acked(3), 1646*ms)
	a = w.History.Call("writer-a", "server-3", check.UpdateIfVersion(web, "replicas=7 image=web:v1", 1), 1391*ms)
	w.History.Return(a, check.Fail(check.Conflict), 1996*ms)
	w.events["server-1"] = w.events["server-1"][:0]
	w.events["server-1"] = []kube.Event{
		{Type: kube.Added, Object: deployment("web", storyReplicas, storyImage, 1)},
		{Type: kube.Added, Object: deployment("api", apiReplicas, "", 2)},
		{Type: kube.Modified, Object: deployment("web", storyReplicas, editImage, 3)},
	}
	assert.Nil(t, staleAccepted(w))
}

// The late-landing world, with a helper that sends its timed-out write
// again without its resourceVersion: the resend met no Conflict because it
// could not, and changed nothing only because its own first write had
// landed with the same value. That is the helper's mistake, named, not a
// run that decided nothing. A helper whose first update had no
// precondition is told that instead, not that it should have resent it.
func TestALateWriteResentBlindIsNamedNotVacuous(t *testing.T) {
	w := judged(t)
	w.late = &lateRun{held: map[sim.NodeID]*heldUpdate{
		engineer: {req: kube.UpdateRequest{Object: deployment("web", storyReplicas, editImage, 1)}, sent: 1863 * ms, resent: 4234 * ms,
			landed: 4622 * ms, got: deployment("web", storyReplicas, editImage, 3), settled: true},
		hpa: {req: kube.UpdateRequest{Object: deployment("api", apiReplicas+hpaAdds, "", 2)}, sent: 1964 * ms},
	}, edit: edit{done: true, at: 5314 * ms}}
	first := w.History.Call("kubectl", "lb", check.UpdateIfVersion(web, "replicas=5 image=web:v2", 1), 1862*ms)
	w.History.Return(first, check.Result{Outcome: check.Indefinite}, 3862*ms)
	again := w.History.Call("kubectl", "lb", check.Write(web, "replicas=5 image=web:v2"), 4234*ms)
	w.History.Return(again, check.Acked(3), 5314*ms)
	w.events["server-1"] = []kube.Event{
		{Type: kube.Added, Object: deployment("web", storyReplicas, storyImage, 1)},
		{Type: kube.Added, Object: deployment("api", apiReplicas, "", 2)},
		{Type: kube.Modified, Object: deployment("web", storyReplicas, editImage, 3)},
	}
	f := lateLanded(w)
	require.NotNil(t, f)
	assert.Equal(t, "timeout-resent-blind", f.Name)
	assert.Equal(t, course.OneHistory, f.Clause)
	assert.Equal(t, 4234*ms, f.At)
	assert.Equal(t, "at 4234ms kubectl's GuaranteedUpdate sent its update of deployments/web (replicas=5 image=web:v2) again without a resourceVersion: "+
		"its first update (replicas=5 image=web:v2, if rv 1, sent at 1862ms) had no answer in time: it was held on the way and landed at 4622ms, at rv 3, "+
		"so the first was maybe made, and no Conflict could stop the second; it changed nothing this time only because the first had landed with the same value and no one wrote deployments/web in between: "+
		"any write in between would have been overwritten, and a relative change made twice; "+
		"after a Timeout a write is sent again only on condition that the object is still at the version the first was conditional on", f.Story)
	assert.Contains(t, f.Details, "4234ms    replicas=5 image=web:v2, unconditional → accepted at rv 3")

	// The first update itself had no precondition, and the helper gave
	// up after its Timeout: the missing precondition is the cause.
	w = judged(t)
	w.late = &lateRun{held: map[sim.NodeID]*heldUpdate{
		engineer: {req: kube.UpdateRequest{Object: deployment("web", storyReplicas, editImage, 0)}, sent: 1863 * ms, landed: 6000 * ms, settled: true,
			got: deployment("web", storyReplicas, editImage, 3)},
		hpa: {req: kube.UpdateRequest{Object: deployment("api", apiReplicas+hpaAdds, "", 2)}, sent: 1964 * ms},
	}, edit: edit{done: true, at: 3900 * ms, err: kube.ErrTimeout}}
	first = w.History.Call("kubectl", "lb", check.Write(web, "replicas=5 image=web:v2"), 1862*ms)
	w.History.Return(first, check.Result{Outcome: check.Indefinite}, 3862*ms)
	w.events["server-1"] = []kube.Event{
		{Type: kube.Added, Object: deployment("web", storyReplicas, storyImage, 1)},
		{Type: kube.Added, Object: deployment("api", apiReplicas, "", 2)},
		{Type: kube.Modified, Object: deployment("web", storyReplicas, editImage, 3)},
	}
	f = lateLanded(w)
	require.NotNil(t, f)
	assert.Equal(t, "blind-write", f.Name)
	assert.Equal(t, course.OneHistory, f.Clause)
	assert.Contains(t, f.Story, "at 1862ms kubectl's GuaranteedUpdate sent its update of deployments/web (replicas=5 image=web:v2) without a resourceVersion")
	assert.NotContains(t, f.Story, "sending it again", "no advice to resend a write that had no precondition")
}

// A server that refuses at its door a write whose resourceVersion its own
// copy has not reached yet: kubectl read api at rv 16 from server-2, and
// server-3, still at rv 14, answered its update Conflict. The story names
// the server, its copy's version, the history's and the read, as
// no-op-unordered does for a no-op; a Conflict from a copy ahead of the
// precondition, or one that does not say where the copy was, is not this
// judge's to tell.
func TestAConflictDecidedByAServerBehindIsNamed(t *testing.T) {
	w := judged(t)
	read := w.History.Call("kubectl", "server-2", check.Read(api), 5510*ms)
	w.History.Return(read, check.Found(1005, 16), 5516100*time.Microsecond)
	w.events["server-1"] = []kube.Event{
		{Type: kube.Added, Object: deployment("web", storyReplicas, storyImage, 1)},
		{Type: kube.Added, Object: deployment("api", 1004, "", 14)},
		{Type: kube.Modified, Object: deployment("api", 1005, "", 16)},
	}
	w.Requests.Add(kube.Request{Client: "kubectl", Server: "server-3", Ask: kube.UpdateRequest{Object: deployment("api", 5, "", 16)},
		Call: 5517 * ms, Return: 5519200 * time.Microsecond, Err: kube.Conflict(api, 16, 14)})
	f := conflictUnordered(w)
	require.NotNil(t, f)
	assert.Equal(t, "conflict-unordered", f.Name)
	assert.Equal(t, course.OneHistory, f.Clause)
	assert.Equal(t, 5519200*time.Microsecond, f.At)
	assert.Contains(t, f.Story, "server-3 refused kubectl's update of deployments/api to replicas=5 if rv=16 as a conflict at 5519.2ms, deciding against its own copy of deployments/api, which was at rv 14, behind the history's rv 16 (kubectl had read it at rv 16 from server-2 at 5516.1ms)")
	assert.Contains(t, f.Details, "rv 16   replicas=1005")

	// A copy ahead of the precondition: the object had moved on, and
	// Conflict is right.
	w = judged(t)
	w.events["server-1"] = []kube.Event{{Type: kube.Added, Object: deployment("api", 1005, "", 16)}, {Type: kube.Modified, Object: deployment("api", 6, "", 18)}}
	w.Requests.Add(kube.Request{Client: "kubectl", Server: "server-3", Ask: kube.UpdateRequest{Object: deployment("api", 5, "", 16)},
		Call: 5517 * ms, Return: 5519 * ms, Err: kube.Conflict(api, 16, 18)})
	w.Requests.Add(kube.Request{Client: "kubectl", Server: "server-3", Ask: kube.DeleteRequest{Key: api, ResourceVersion: 16},
		Call: 5520 * ms, Return: 5521 * ms, Err: kube.ErrConflict})
	assert.Nil(t, conflictUnordered(w))
}
