package ex07suite

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
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

// storySplit is the story's fault on its own: server-3 and controller-b
// cut off from 1000ms for 2000ms.
func storySplit() *run {
	s := scene.New(1, nil, scene.Servers(3))
	s.Inject(scene.Partition{Groups: [][]sim.NodeID{{"server-1", "server-2", "controller-a"}, {"server-3", "controller-b"}}, From: cutAt, For: cutFor})
	return &run{Scene: s, pl: newPlan(s)}
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestACutOffServerHasNoMajorityAndTheOtherSideHasOne(t *testing.T) {
	pl := storySplit().pl
	assert.False(t, pl.majorityFor(ms(1500), "server-3"), "server-3 is cut off from the sequencer")
	assert.True(t, pl.majorityFor(ms(1500), "server-2"), "server-1 and server-2 are 2 of 3")
	assert.True(t, pl.majorityFor(ms(3000), "server-3"), "the split heals at 3000ms")
	assert.True(t, pl.majorityDuring(ms(900), ms(1100), "server-3"), "a request sent before the cut may have been agreed")
	assert.False(t, pl.majorityDuring(ms(1100), ms(2900), "server-3"))
	assert.Equal(t, "cut off from the sequencer server-1 (partition server-1 server-2 controller-a | server-3 controller-b | the rest from 1000ms for 2000ms)",
		pl.cutOff(ms(1500), "server-3"))
}

func TestAnEvenSplitLeavesNeitherSideAMajority(t *testing.T) {
	s := scene.New(1, nil, scene.Servers(4))
	s.Inject(scene.Partition{Groups: [][]sim.NodeID{{"server-1", "server-2"}, {"server-3", "server-4"}}, From: cutAt, For: cutFor})
	pl := newPlan(s)
	for _, id := range s.Servers {
		assert.False(t, pl.majorityFor(ms(1500), id), "%s: two of four is not a majority", id)
	}
	assert.Equal(t, 3, pl.majority())
}

func TestALostSequencerLeavesNoMajorityAndNoCalm(t *testing.T) {
	s := scene.New(1, nil, scene.Servers(3))
	s.Inject(scene.Crash{Node: sequencer, At: ms(1000)})
	pl := newPlan(s)
	assert.True(t, pl.calm(ms(-600)), "before anything happens, with nothing coming within the bound")
	assert.False(t, pl.calm(ms(100)), "a fault begins within the bound")
	assert.False(t, pl.majorityFor(ms(5000), "server-2"))
	assert.False(t, pl.calm(ms(60_000)), "the sequencer never comes back")
}

func TestCalmBeginsSettleAfterTheHeal(t *testing.T) {
	pl := storySplit().pl
	assert.False(t, pl.calm(ms(3000)+settle-time.Millisecond))
	assert.True(t, pl.calm(ms(3000)+settle))
}

// Two sides each said yes at rv 2: the story starts from server-3, which
// said yes while cut off, and names both writes.
func TestTheSplitBrainStoryStartsFromTheServerThatSaidYesAlone(t *testing.T) {
	r := storySplit()
	h := r.History
	a := h.Call("controller-a", "server-1", check.Write(storyKey, scaleA), ms(1200))
	h.Return(a, check.Acked(2), ms(1210))
	b := h.Call("controller-b", "server-3", check.Write(storyKey, scaleB), ms(1200))
	h.Return(b, check.Acked(2), ms(1700))
	three := check.Change{Version: 1, Key: storyKey, Value: storyFrom}
	r.Histories = map[string][]check.Change{
		"server-1": {three, {Version: 2, Key: storyKey, Value: scaleA, At: ms(1210)}},
		"server-2": {three, {Version: 2, Key: storyKey, Value: scaleA, At: ms(1210)}},
		"server-3": {three, {Version: 2, Key: storyKey, Value: scaleB, At: ms(1700)}},
	}
	f := splitBrain(r)
	require.NotNil(t, f)
	assert.Equal(t, "split-brain", f.Name)
	assert.Equal(t, course.DurableAgreement, f.Clause)
	assert.Equal(t, ms(1700), f.At, "the moment the lone yes was given")
	assert.True(t, strings.HasPrefix(f.Story, "server-3 said yes on its own while it was cut off from the sequencer server-1"), f.Story)
	assert.Contains(t, f.Story, "web=2 (controller-b through server-3, acknowledged at 1700ms)")
	assert.Contains(t, f.Story, "server-1 holds web=5 (controller-a through server-1, acknowledged at 1210ms) at rv 2")

	f = ackedAlone(r)
	require.NotNil(t, f, "server-3's yes had no majority behind it")
	assert.Equal(t, "acknowledged-without-majority", f.Name)
	assert.Contains(t, f.Story, "server-3 told controller-b yes for write deployments/web=2 at 1700ms")
}

// A refusal that comes late is a failure, unless the server crashed while
// it was asked; a refusal in time is not.
func TestAnswersMustComeWithinTheBound(t *testing.T) {
	r := storySplit()
	h := r.History
	late := h.Call("controller-b", "server-3", check.Write(storyKey, scaleB), ms(1200))
	h.Timeout(late, ms(1200)+clientTimeout)
	f := slowAnswer(r)
	require.NotNil(t, f)
	assert.Equal(t, "no-answer-in-time", f.Name)
	assert.Contains(t, f.Story, "heard nothing for 2000ms")

	r = storySplit()
	r.Inject(scene.Crash{Node: "server-3", At: ms(1300), For: ms(500)})
	r.pl = newPlan(r.Scene)
	late = r.History.Call("controller-b", "server-3", check.Write(storyKey, scaleB), ms(1200))
	r.History.Timeout(late, ms(1200)+clientTimeout)
	inTime := r.History.Call("controller-a", "server-2", check.Read(storyKey), ms(1200))
	r.History.Timeout(inTime, ms(1200)+bound)
	assert.Nil(t, slowAnswer(r), "server-3 crashed while it was asked; server-2 answered at the bound")
}

// A cluster that refuses everything keeps one history and loses nothing;
// the liveness judge is what fails it.
func TestRefusingWhileCalmIsAFailure(t *testing.T) {
	r := storySplit()
	during := r.History.Call("controller-b", "server-3", check.Write(storyKey, 7), ms(1500))
	r.History.Timeout(during, ms(2300))
	assert.Nil(t, refusedWhileCalm(r), "a refusal during the split is the chapter's answer")
	after := r.History.Call("controller-b", "server-3", check.Write(storyKey, 8), ms(3600))
	r.History.Timeout(after, ms(4400))
	f := refusedWhileCalm(r)
	require.NotNil(t, f)
	assert.Equal(t, "refused-while-healthy", f.Name)
}

// A Latest read refused while calm is told with what the server owed: every
// write acknowledged before the read was asked, and the time it had left.
// That is what a server that gave up after one change, when several were
// on their way, must learn from its story.
func TestARefusedReadSaysHowMuchOfTheHistoryItOwed(t *testing.T) {
	r := storySplit()
	h := r.History
	w := h.Call("controller-a", "server-1", check.Write(storyKey, 6), ms(3600))
	h.Return(w, check.Result{Outcome: check.OK, Version: 4}, ms(3610))
	late := h.Call("controller-a", "server-1", check.Write(storyKey, 9), ms(3700))
	h.Return(late, check.Result{Outcome: check.OK, Version: 5}, ms(3760))
	read := h.Call("controller-b", "server-3", check.Read(storyKey), ms(3700))
	h.Timeout(read, ms(3723))
	f := refusedWhileCalm(r)
	require.NotNil(t, f)
	story := f.Story
	assert.Contains(t, story, "at 3723ms, 23ms after asking")
	assert.Contains(t, story, "acknowledged writes up to rv 4 (the last, write deployments/web=6 from controller-a at 3610ms)",
		"the write acknowledged after the read was asked is not owed")
	assert.Contains(t, story, "server-3 had only to hold that much of the one history, and 977ms of its 1s left to catch up")
}

// A Latest list leaves the history nothing when it comes back empty, late or
// refused: the judges read it from the scene's log of requests. An empty
// list from a server cut off is answered without a majority; one that took
// longer than the bound is late; one refused while calm is a refusal while
// healthy.
func TestALatestListIsJudgedEvenWhenItHoldsNoItem(t *testing.T) {
	r := storySplit()
	r.Requests.Add(listed("controller-b", "server-3", kube.Latest, ms(1500), ms(1510), kube.List{}, nil))
	assert.Nil(t, readAlone(r), "the history holds no read of an empty list")
	f := listedAlone(r)
	require.NotNil(t, f)
	assert.Equal(t, "read-without-majority", f.Name)
	assert.Contains(t, f.Story, "server-3 answered controller-b's Latest list of deployments at 1510ms with 0 items (rv 0), although from the request (1500ms)")
	assert.Contains(t, f.Story, "cut off from the sequencer server-1")

	r = storySplit()
	r.Requests.Add(listed("controller-b", "server-3", kube.Latest, ms(1500), ms(1500)+clientTimeout, nil, kube.ErrTimeout))
	assert.Nil(t, listedAlone(r), "no answer is not an answer without a majority")
	f = slowAnswer(r)
	require.NotNil(t, f)
	assert.Equal(t, "no-answer-in-time", f.Name)
	assert.Contains(t, f.Story, "controller-b asked server-3 (list deployments) at 1500ms and heard nothing for 2000ms")

	r = storySplit()
	r.Requests.Add(listed("controller-a", "server-2", kube.Latest, ms(1500), ms(1520), kube.List{Items: []kube.Object{{Kind: "deployments", Name: "web"}}, ResourceVersion: 2}, nil))
	r.Requests.Add(listed("controller-b", "server-3", kube.Latest, ms(1500), ms(2350), nil, kube.Unavailable("cut off")))
	assert.Nil(t, listedAlone(r), "server-2 is on the majority side; server-3 refused")
	assert.Nil(t, slowAnswer(r), "both answered within the bound")
	assert.Nil(t, refusedWhileCalm(r), "a refusal during the split is the chapter's answer")
	r.Requests.Add(listed("controller-b", "server-3", kube.Latest, ms(3600), ms(4400), nil, kube.Unavailable("behind")))
	f = refusedWhileCalm(r)
	require.NotNil(t, f)
	assert.Equal(t, "refused-while-healthy", f.Name)
	assert.Contains(t, f.Story, "controller-b asked server-3 (list deployments) at 3600ms")
	assert.Contains(t, f.Story, "and heard Unavailable")
}

// An Any list is an Any read: it must be answered, even cut off.
func TestAnAnyListMustBeAnswered(t *testing.T) {
	r := storySplit()
	r.Requests.Add(listed("controller-b", "server-3", kube.Any, ms(1500), ms(1520), nil, kube.Unavailable("cut off")))
	assert.Nil(t, slowAnswer(r), "an Any read is answered in time")
	f := anyReadRefused(r)
	require.NotNil(t, f)
	assert.Equal(t, "stale-read-refused", f.Name)
	assert.True(t, strings.HasPrefix(f.Story, `controller-b listed deployments from server-3 with resourceVersion "0" at 1500ms and got`), f.Story)
}

// A refusal in time that is not kube.Unavailable leaves the client
// guessing; the story names the request as the timeline does.
func TestARefusalMustSayUnavailable(t *testing.T) {
	r := storySplit()
	web := kube.Object{Kind: "deployments", Name: "web", Replicas: scaleB, ResourceVersion: 3}
	r.Requests.Add(kube.Request{Client: "controller-b", Server: "server-3", Ask: kube.UpdateRequest{Object: web}, Call: ms(1500), Return: ms(1510), Err: kube.Unavailable("cut off")})
	r.Requests.Add(kube.Request{Client: "controller-b", Server: "server-3", Ask: kube.UpdateRequest{Object: web}, Call: ms(1600), Return: ms(1600) + clientTimeout, Err: kube.ErrTimeout})
	assert.Nil(t, unclearRefusal(r), "Unavailable, and the client's own timeout, are clear")
	r.Requests.Add(kube.Request{Client: "controller-b", Server: "server-3", Ask: kube.UpdateRequest{Object: web}, Call: ms(1700), Return: ms(1705),
		Err: errors.New("connection reset")})
	f := unclearRefusal(r)
	require.NotNil(t, f)
	assert.Equal(t, "unclear-refusal", f.Name)
	assert.True(t, strings.HasPrefix(f.Story, `controller-b asked server-3 (web=2 if rv 3) at 1700ms and got "connection reset" at 1705ms`), f.Story)
}

// listed is a list of the deployments client made through server, with
// resourceVersion rv, and its answer.
func listed(client string, server sim.NodeID, rv string, call, ret time.Duration, reply any, err error) kube.Request {
	return kube.Request{Client: client, Server: server, Ask: kube.ListRequest{Kind: "deployments", Opts: kube.ReadOptions{ResourceVersion: rv}},
		Call: call, Return: ret, Reply: reply, Err: err}
}

// A server that restarted empty and never caught up can hold the same
// objects as the others, once every object has been deleted: the objects
// agree, and the history is what shows it.
func TestAServerBehindTheOneHistoryHasNotConverged(t *testing.T) {
	r := storySplit()
	r.AuditedAt = ms(5000)
	created := check.Change{Version: 1, Key: storyKey, Value: storyFrom}
	deleted := check.Change{Version: 2, Key: storyKey, Deleted: true}
	r.Histories = map[string][]check.Change{"server-1": {created, deleted}, "server-2": {created, deleted}, "server-3": nil}
	r.States = map[string]map[string]any{"server-1": {}, "server-2": {}, "server-3": {}}
	assert.Nil(t, converged(r), "the objects agree: none anywhere")
	f := caughtUp(r)
	require.NotNil(t, f)
	assert.Equal(t, "no-convergence", f.Name)
	assert.Equal(t, course.DurableAgreement, f.Clause)
	assert.True(t, strings.HasPrefix(f.Story, "server-3 never caught up: at 5000ms it holds 0 of the 2 changes of the one history, although the last fault ended at 3000ms."), f.Story)

	r.Histories["server-3"] = []check.Change{created, deleted}
	assert.Nil(t, caughtUp(r))
}

// A server that restarted empty and never caught up is told by its
// restart, ahead of the refusals and the disagreement it leads to.
func TestAServerRestartedAndLeftBehindIsNamed(t *testing.T) {
	s := scene.New(1, nil, scene.Servers(3))
	s.Inject(scene.Crash{Node: "server-3", At: ms(1000), For: ms(400)})
	r := &run{Scene: s, pl: newPlan(s)}
	r.AuditedAt = ms(5000)
	created := check.Change{Version: 1, Key: storyKey, Value: storyFrom}
	scaled := check.Change{Version: 2, Key: storyKey, Value: scaleA}
	r.Histories = map[string][]check.Change{"server-1": {created, scaled}, "server-2": {created, scaled}, "server-3": {created}}
	f := restartedBehind(r)
	require.NotNil(t, f)
	assert.Equal(t, "left-behind", f.Name)
	assert.Equal(t, course.DurableAgreement, f.Clause)
	assert.True(t, strings.HasPrefix(f.Story, "server-3 restarted at 1400ms with its memory gone (crash server-3 at 1000ms, restart 400ms later) and never caught up: "+
		"at the audit (5000ms), 3600ms after it came back, it holds 1 of the 2 changes of the one history."), f.Story)

	r.Histories["server-3"] = []check.Change{created, scaled}
	assert.Nil(t, restartedBehind(r), "caught up")
	r.Histories["server-3"] = []check.Change{created}
	r.Histories["server-2"] = []check.Change{created}
	r.pl = newPlan(storySplit().Scene)
	assert.Nil(t, restartedBehind(r), "cut off, not restarted: caughtUp's to tell")
}

// The registry's titles print the chapter's bound as the suite states it.
func TestTheRegistryStatesTheBound(t *testing.T) {
	ch := course.MustLookup("ex07")
	for _, name := range []string{"story", "even-split", "partitions"} {
		c, ok := ch.Check(name)
		require.True(t, ok, name)
		assert.Contains(t, c.Title, "within "+bound.String(), name)
	}
}

// The book's page states the suite's numbers; they come from here.
func TestTheBookStatesTheSuitesNumbers(t *testing.T) {
	raw, err := os.ReadFile("../../../../book/ex07-the-partition.md")
	require.NoError(t, err)
	page := strings.Join(strings.Fields(string(raw)), " ")
	for _, want := range []string{
		fmt.Sprintf("the scene above, %d seeds of jitter", storySeeds),
		fmt.Sprintf("four servers split two and two for %s, %d seeds of jitter", seconds(cutFor), evenSplitSeeds),
		fmt.Sprintf("%d calm bursts", burstSeeds),
		fmt.Sprintf("%d randomized worlds", partitionsSeeds),
		fmt.Sprintf("%d such worlds", linearizableSeeds),
		fmt.Sprintf("within **%s** of the request", seconds(bound)),
		fmt.Sprintf("every server up for %s, and stays so", seconds(settle)),
		fmt.Sprintf("slowed to %d–%d ms", slow.Min.Milliseconds(), slow.Max.Milliseconds()),
	} {
		assert.True(t, strings.Contains(page, want), "book/ex07-the-partition.md should say %q", want)
	}
}

// seconds prints a duration as the page does: "1 s", "0.5 s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// A Latest read that shows an object older than a write acknowledged before
// it began is a stale read: the story names the read, the server that
// answered it, the write it missed, and the time the server had left. A
// write acknowledged after the read began is not owed, and a list is judged
// item by item, an item missing included.
func TestALatestReadMustShowEveryWriteAcknowledgedBeforeIt(t *testing.T) {
	r := storySplit()
	h := r.History
	w := h.Call("controller-a", "server-1", check.Write(storyKey, 6), ms(3600))
	h.Return(w, check.Acked(4), ms(3610))
	late := h.Call("controller-a", "server-1", check.Write(storyKey, 9), ms(3650))
	h.Return(late, check.Acked(5), ms(3700))
	read := func(call, ret time.Duration, rv int64) kube.Request {
		return kube.Request{Client: "controller-b", Server: "server-3", Ask: kube.GetRequest{Key: storyKey}, Call: call, Return: ret,
			Reply: kube.Object{Kind: "deployments", Name: "web", Replicas: 6, ResourceVersion: rv}}
	}
	r.Requests.Add(read(ms(3620), ms(3710), 4))
	assert.Nil(t, staleRead(r), "the write at rv 5 was acknowledged after the read began")
	r.Requests.Add(listed("controller-b", "server-3", kube.Latest, ms(3720), ms(3730),
		kube.List{Items: []kube.Object{{Kind: "deployments", Name: "web", Replicas: 9, ResourceVersion: 5}}, ResourceVersion: 5}, nil))
	assert.Nil(t, staleRead(r), "the list shows web at rv 5")

	r.Requests.Add(read(ms(3720), ms(3735), 4))
	f := staleRead(r)
	require.NotNil(t, f)
	assert.Equal(t, "stale-read", f.Name)
	assert.Equal(t, course.OneHistory, f.Clause)
	assert.Equal(t, ms(3735), f.At)
	assert.True(t, strings.HasPrefix(f.Story, "controller-b's Latest read of web through server-3, asked at 3720ms, was answered at 3735ms with replicas=6 (rv 4), "+
		"but controller-a's write deployments/web=9 through server-1 had been acknowledged at rv 5 at 3700ms, before the read was asked: "+
		"server-3 answered from a copy that did not yet hold rv 5, 15ms after the question, with 985ms of its 1s left to catch up"), f.Story)

	r = storySplit()
	w = r.History.Call("controller-a", "server-1", check.Write(storyKey, 6), ms(3600))
	r.History.Return(w, check.Acked(4), ms(3610))
	r.Requests.Add(listed("controller-b", "server-3", kube.Latest, ms(3620), ms(3630), kube.List{ResourceVersion: 3}, nil))
	f = staleRead(r)
	require.NotNil(t, f, "the list misses web, which no delete removed")
	assert.Contains(t, f.Story, "controller-b's Latest list of deployments through server-3, asked at 3620ms, was answered at 3630ms with no web (the list at rv 3)")
	assert.Contains(t, f.Story, "server-3 answered from its copy at rv 3, which did not yet hold rv 4")
	del := r.History.Call("controller-c", "server-2", check.Delete(storyKey), ms(3612))
	r.History.Timeout(del, ms(3612)+clientTimeout)
	assert.Nil(t, staleRead(r), "a delete that may have taken effect before the list explains it")
}

// A server that appends an entry it already holds numbers it twice, and
// parts from the others: the story names the server, the change and its
// writer, both positions, and what the sequencer holds at the second.
// Servers that hold the same repeat are appliedTwice's to tell.
func TestAServerThatAppendsAnEntryTwiceIsNamed(t *testing.T) {
	r := storySplit()
	r.AuditedAt = ms(5000)
	w := r.History.Call("controller-a", "server-1", check.Write(storyKey, scaleA), ms(1200))
	r.History.Return(w, check.Acked(2), ms(1210))
	later := r.History.Call("controller-a", "server-1", check.Write(storyKey, 7), ms(1300))
	r.History.Return(later, check.Acked(3), ms(1310))
	three := check.Change{Version: 1, Key: storyKey, Value: storyFrom}
	five := check.Change{Version: 2, Key: storyKey, Value: scaleA}
	seven := check.Change{Version: 3, Key: storyKey, Value: 7}
	r.Histories = map[string][]check.Change{
		"server-1": {three, five, seven},
		"server-2": {three, five, five, seven},
		"server-3": {three, five, seven},
	}
	f := appendedTwice(r)
	require.NotNil(t, f)
	assert.Equal(t, "appended-twice", f.Name)
	assert.Equal(t, course.DurableAgreement, f.Clause)
	assert.Equal(t, ms(1210), f.At, "when its writer heard yes")
	assert.True(t, strings.HasPrefix(f.Story, "server-2 appended one change twice: it holds web=5 (controller-a through server-1, acknowledged at 1210ms) at rv 2 and again at rv 3, "+
		"where server-1 holds web=7 (controller-a through server-1, acknowledged at 1310ms)."), f.Story)

	r.Histories["server-2"] = []check.Change{three, seven, five, seven}
	assert.Nil(t, appendedTwice(r), "web=7 first came out of place, past a gap: split-brain tells it")
	assert.NotNil(t, splitBrain(r))
	r.Histories["server-2"] = []check.Change{three, five, seven}
	assert.Nil(t, appendedTwice(r), "one history, each change once")
	for id := range r.Histories {
		r.Histories[id] = []check.Change{three, five, five}
	}
	assert.Nil(t, appendedTwice(r), "every server holds the repeat: the sequencer ordered it twice")
	assert.NotNil(t, appliedTwice(r))
}

// A Latest list at rv 0 with no items, after a write was acknowledged, came
// from no copy a majority confirmed: the server answered a list it could
// not confirm. A list that shows the write, or one asked before it was
// acknowledged, is no such answer.
func TestAnEmptyListAfterAnAcknowledgedWriteWasNeverConfirmed(t *testing.T) {
	r := storySplit()
	w := r.History.Call("controller-c", "server-3", check.Write(storyKey, 4), ms(300))
	r.History.Return(w, check.Acked(3), ms(395))
	r.Requests.Add(listed("controller-c", "server-3", kube.Latest, ms(200), ms(250), kube.List{}, nil))
	r.Requests.Add(listed("controller-c", "server-3", kube.Latest, ms(400), ms(420), kube.List{Items: []kube.Object{{Kind: "deployments", Name: "web", Replicas: 4, ResourceVersion: 3}}, ResourceVersion: 3}, nil))
	assert.Nil(t, listedUnconfirmed(r), "the empty list was asked before the write was acknowledged; the later one shows it")

	r.Requests.Add(listed("controller-c", "server-3", kube.Latest, ms(461), ms(1325), kube.List{}, nil))
	f := listedUnconfirmed(r)
	require.NotNil(t, f)
	assert.Equal(t, "read-without-majority", f.Name)
	assert.Equal(t, course.AgreementFirst, f.Clause)
	assert.Contains(t, f.Story, "server-3 answered controller-c's Latest list of deployments, asked at 461ms, at 1325ms (864ms later) with an empty list at rv 0")
	assert.Contains(t, f.Story, "acknowledged at rv 3 at 395ms: no majority confirmed that list")
}

// A server's answer to an Append is how many changes it holds: one that
// says more than it ever held, with no restart since, is named with what it
// said and what it held; an answer it can back is none.
func TestAServerThatClaimsChangesItLacksIsNamed(t *testing.T) {
	say := int64(2)
	boot := func(p *sim.Proc, self sim.NodeID, servers []sim.NodeID) {
		if self == sequencer {
			p.Sleep(ms(100))
			p.Call("server-2", Append{From: 1}, ms(250))
			return
		}
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) { return say, nil })
	}
	run := func() *run {
		s := scene.New(1, scene.Boot(boot), scene.Servers(3))
		t.Cleanup(s.Close)
		require.NoError(t, s.Run(ms(1000)))
		r := &run{Scene: s, pl: newPlan(s)}
		two := []check.Change{{Version: 1, Key: storyKey, Value: 3}, {Version: 2, Key: storyKey, Value: 4}}
		r.Histories = map[string][]check.Change{"server-1": two, "server-2": two, "server-3": two}
		r.AuditedAt = ms(900)
		return r
	}
	assert.Nil(t, claimedUnheld(run()), "server-2 holds the 2 changes it said it held")

	say = 21
	f := claimedUnheld(run())
	require.NotNil(t, f)
	assert.Equal(t, "claimed-changes-it-lacks", f.Name)
	assert.Contains(t, f.Story, "answering its Append, that it held 21 changes of the history, but it never held more than 2: at the audit (900ms), with no restart since")
}

// Append is the wire message the test's sequencer sends: the suite reads
// only the int64 answer.
type Append struct{ From int64 }

// A refusal while the cluster was calm names the sequencer's silence: the
// call it left unanswered, when it was sent and when its sender gave up;
// and a refusal by the sequencer names the servers that answered it
// meanwhile.
func TestARefusalWhileCalmNamesTheSequencersSilence(t *testing.T) {
	s := scene.New(1, nil, scene.Servers(3))
	defer s.Close()
	r := &run{Scene: s, pl: newPlan(s)}
	type Confirm struct{}
	s.W.AddNode("server-1", func(p *sim.Proc) {
		p.Go("ask server-2", func(p *sim.Proc) {
			p.Sleep(ms(20))
			p.Call("server-2", "how far?", ms(100))
		})
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
			p.Sleep(ms(5000)) // the sequencer never answers in time
			return nil, nil
		})
	})
	s.W.AddNode("server-2", func(p *sim.Proc) {
		p.Serve(func(p *sim.Proc, from sim.NodeID, req any) (any, error) { return int64(0), nil })
	})
	s.W.AddNode("server-3", func(p *sim.Proc) {
		p.Sleep(ms(10))
		p.Call(sequencer, Confirm{}, ms(250))
	})
	require.NoError(t, s.W.Run(ms(1000)))
	said := r.silence("server-3", ms(5), ms(400))
	assert.True(t, strings.HasPrefix(said, "server-3 asked the sequencer server-1 (Confirm) at 10"), said)
	assert.Contains(t, said, "and heard nothing back: it gave up at 26")
	assert.True(t, strings.HasPrefix(r.silence(sequencer, ms(0), ms(400)), "Meanwhile server-2 answered the sequencer once, at "), r.silence(sequencer, ms(0), ms(400)))
	assert.Empty(t, r.silence("server-2", ms(5), ms(400)), "server-2 asked the sequencer nothing")
}
