package ex07suite

import (
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
	"onehistory/internal/harness/suite"
)

// reported is a testing.TB that keeps the failures a judge reports.
type reported struct {
	testing.TB
	failures []suite.Failure
}

func (r *reported) Helper()           {}
func (r *reported) Name() string      { return "TestEx07/story" }
func (r *reported) Error(args ...any) {}
func (r *reported) Log(args ...any) {
	if f, ok := suite.ParseLine(args[0].(string)); ok {
		r.failures = append(r.failures, f)
	}
}

// storySplit is the story's fault on its own: server-3 and controller-b
// cut off from 1000ms for 2000ms.
func storySplit() *run {
	s := scene.New(1, nil, scene.Servers(3))
	r := &run{s: s, pl: newPlan(s.Servers), rec: &recorder{}}
	r.pl.partition(s, [][]sim.NodeID{{"server-1", "server-2", "controller-a"}, {"server-3", "controller-b"}}, cutAt, cutFor)
	return r
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
	pl := newPlan(s.Servers)
	pl.partition(s, [][]sim.NodeID{{"server-1", "server-2"}, {"server-3", "server-4"}}, cutAt, cutFor)
	for _, id := range s.Servers {
		assert.False(t, pl.majorityFor(ms(1500), id), "%s: two of four is not a majority", id)
	}
	assert.Equal(t, 3, pl.majority())
}

func TestALostSequencerLeavesNoMajorityAndNoCalm(t *testing.T) {
	s := scene.New(1, nil, scene.Servers(3))
	pl := newPlan(s.Servers)
	pl.crash(s, sequencer, ms(1000), 0)
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
	h := r.s.History
	a := h.Call("controller-a", "server-1", check.Write(storyKey, scaleA), ms(1200))
	h.Return(a, check.Acked(2), ms(1210))
	b := h.Call("controller-b", "server-3", check.Write(storyKey, scaleB), ms(1200))
	h.Return(b, check.Acked(2), ms(1700))
	three := check.Change{Version: 1, Key: storyKey, Value: storyFrom}
	r.s.Histories = map[string][]check.Change{
		"server-1": {three, {Version: 2, Key: storyKey, Value: scaleA, At: ms(1210)}},
		"server-2": {three, {Version: 2, Key: storyKey, Value: scaleA, At: ms(1210)}},
		"server-3": {three, {Version: 2, Key: storyKey, Value: scaleB, At: ms(1700)}},
	}
	rep := &reported{TB: t}
	require.False(t, r.splitBrain(rep))
	require.Len(t, rep.failures, 1)
	f := rep.failures[0]
	assert.Equal(t, "split-brain", f.Name)
	assert.Equal(t, course.DurableAgreement, f.Clause)
	assert.Equal(t, ms(1700), f.At, "the moment the lone yes was given")
	assert.True(t, strings.HasPrefix(f.Story, "server-3 said yes on its own while it was cut off from the sequencer server-1"), f.Story)
	assert.Contains(t, f.Story, "web=2 (controller-b through server-3, acknowledged at 1700ms)")
	assert.Contains(t, f.Story, "server-1 holds web=5 (controller-a through server-1, acknowledged at 1210ms) at rv 2")

	rep = &reported{TB: t}
	assert.False(t, r.ackedAlone(rep), "server-3's yes had no majority behind it")
	require.Len(t, rep.failures, 1)
	assert.Equal(t, "acknowledged-without-majority", rep.failures[0].Name)
	assert.Contains(t, rep.failures[0].Story, "server-3 told controller-b yes for write deployments/web=2 at 1700ms")
}

// A refusal that comes late is a failure, unless the server crashed while
// it was asked; a refusal in time is not.
func TestAnswersMustComeWithinTheBound(t *testing.T) {
	r := storySplit()
	h := r.s.History
	late := h.Call("controller-b", "server-3", check.Write(storyKey, scaleB), ms(1200))
	h.Timeout(late, ms(1200)+clientTimeout)
	rep := &reported{TB: t}
	assert.False(t, r.slowAnswer(rep))
	require.Len(t, rep.failures, 1)
	assert.Equal(t, "no-answer-in-time", rep.failures[0].Name)
	assert.Contains(t, rep.failures[0].Story, "heard nothing for 2000ms")

	r = storySplit()
	r.pl.crash(r.s, "server-3", ms(1300), ms(500))
	late = r.s.History.Call("controller-b", "server-3", check.Write(storyKey, scaleB), ms(1200))
	r.s.History.Timeout(late, ms(1200)+clientTimeout)
	inTime := r.s.History.Call("controller-a", "server-2", check.Read(storyKey), ms(1200))
	r.s.History.Timeout(inTime, ms(1200)+bound)
	assert.True(t, r.slowAnswer(&reported{TB: t}), "server-3 crashed while it was asked; server-2 answered at the bound")
}

// A cluster that refuses everything keeps one history and loses nothing;
// the liveness judge is what fails it.
func TestRefusingWhileCalmIsAFailure(t *testing.T) {
	r := storySplit()
	during := r.s.History.Call("controller-b", "server-3", check.Write(storyKey, 7), ms(1500))
	r.s.History.Timeout(during, ms(2300))
	assert.True(t, r.refusedWhileCalm(&reported{TB: t}), "a refusal during the split is the chapter's answer")
	after := r.s.History.Call("controller-b", "server-3", check.Write(storyKey, 8), ms(3600))
	r.s.History.Timeout(after, ms(4400))
	rep := &reported{TB: t}
	assert.False(t, r.refusedWhileCalm(rep))
	require.Len(t, rep.failures, 1)
	assert.Equal(t, "refused-while-healthy", rep.failures[0].Name)
}

// A Latest read refused while calm is told with what the server owed: every
// write acknowledged before the read was asked, and the time it had left.
// That is what a server that gave up after one change, when several were
// on their way, must learn from its story.
func TestARefusedReadSaysHowMuchOfTheHistoryItOwed(t *testing.T) {
	r := storySplit()
	h := r.s.History
	w := h.Call("controller-a", "server-1", check.Write(storyKey, 6), ms(3600))
	h.Return(w, check.Result{Outcome: check.OK, Version: 4}, ms(3610))
	late := h.Call("controller-a", "server-1", check.Write(storyKey, 9), ms(3700))
	h.Return(late, check.Result{Outcome: check.OK, Version: 5}, ms(3760))
	read := h.Call("controller-b", "server-3", check.Read(storyKey), ms(3700))
	h.Timeout(read, ms(3723))
	rep := &reported{TB: t}
	assert.False(t, r.refusedWhileCalm(rep))
	require.Len(t, rep.failures, 1)
	story := rep.failures[0].Story
	assert.Contains(t, story, "at 3723ms, 23ms after asking")
	assert.Contains(t, story, "acknowledged writes up to rv 4 (the last, write deployments/web=6 from controller-a at 3610ms)",
		"the write acknowledged after the read was asked is not owed")
	assert.Contains(t, story, "server-3 had only to hold that much of the one history, and 977ms of its 1s left to catch up")
}

// A Latest list leaves the history nothing when it comes back empty, late or
// refused: the judges read it from the recorder. An empty list from a server
// cut off is answered without a majority; one that took longer than the
// bound is late; one refused while calm is a refusal while healthy.
func TestALatestListIsJudgedEvenWhenItHoldsNoItem(t *testing.T) {
	r := storySplit()
	r.rec.lists = append(r.rec.lists, listRead{client: "controller-b", server: "server-3", kind: "deployments", call: ms(1500), ret: ms(1510)})
	rep := &reported{TB: t}
	assert.False(t, r.readAlone(rep))
	require.Len(t, rep.failures, 1)
	assert.Equal(t, "read-without-majority", rep.failures[0].Name)
	assert.Contains(t, rep.failures[0].Story, "server-3 answered controller-b's Latest list of deployments at 1510ms with 0 items (rv 0), although from the request (1500ms)")
	assert.Contains(t, rep.failures[0].Story, "cut off from the sequencer server-1")

	r = storySplit()
	r.rec.lists = append(r.rec.lists, listRead{client: "controller-b", server: "server-3", kind: "deployments", call: ms(1500), ret: ms(1500) + clientTimeout,
		err: kube.ErrTimeout})
	assert.True(t, r.readAlone(&reported{TB: t}), "no answer is not an answer without a majority")
	rep = &reported{TB: t}
	assert.False(t, r.slowAnswer(rep))
	require.Len(t, rep.failures, 1)
	assert.Equal(t, "no-answer-in-time", rep.failures[0].Name)
	assert.Contains(t, rep.failures[0].Story, "controller-b asked server-3 (list deployments) at 1500ms and heard nothing for 2000ms")

	r = storySplit()
	r.rec.lists = append(r.rec.lists,
		listRead{client: "controller-a", server: "server-2", kind: "deployments", call: ms(1500), ret: ms(1520), items: 1, rv: 2},
		listRead{client: "controller-b", server: "server-3", kind: "deployments", call: ms(1500), ret: ms(2350), err: kube.Unavailable("cut off")})
	assert.True(t, r.readAlone(&reported{TB: t}), "server-2 is on the majority side; server-3 refused")
	assert.True(t, r.slowAnswer(&reported{TB: t}), "both answered within the bound")
	assert.True(t, r.refusedWhileCalm(&reported{TB: t}), "a refusal during the split is the chapter's answer")
	r.rec.lists = append(r.rec.lists, listRead{client: "controller-b", server: "server-3", kind: "deployments", call: ms(3600), ret: ms(4400), err: kube.Unavailable("behind")})
	rep = &reported{TB: t}
	assert.False(t, r.refusedWhileCalm(rep))
	require.Len(t, rep.failures, 1)
	assert.Equal(t, "refused-while-healthy", rep.failures[0].Name)
	assert.Contains(t, rep.failures[0].Story, "controller-b asked server-3 (list deployments) at 3600ms")
	assert.Contains(t, rep.failures[0].Story, "and heard Unavailable")
}

// An Any list is an Any read: it must be answered, even cut off.
func TestAnAnyListMustBeAnswered(t *testing.T) {
	r := storySplit()
	r.rec.anyReads = append(r.rec.anyReads, anyRead{client: "controller-b", server: "server-3", what: "listed deployments", call: ms(1500), ret: ms(1520),
		err: kube.Unavailable("cut off")})
	rep := &reported{TB: t}
	assert.False(t, r.slowAnswer(rep))
	require.Len(t, rep.failures, 1)
	assert.Equal(t, "stale-read-refused", rep.failures[0].Name)
	assert.True(t, strings.HasPrefix(rep.failures[0].Story, `controller-b listed deployments from server-3 with resourceVersion "0" at 1500ms and got`), rep.failures[0].Story)
}

// A server that restarted empty and never caught up can hold the same
// objects as the others, once every object has been deleted: the objects
// agree, and the history is what shows it.
func TestAServerBehindTheOneHistoryHasNotConverged(t *testing.T) {
	r := storySplit()
	r.s.AuditedAt = ms(5000)
	created := check.Change{Version: 1, Key: storyKey, Value: storyFrom}
	deleted := check.Change{Version: 2, Key: storyKey, Deleted: true}
	r.s.Histories = map[string][]check.Change{"server-1": {created, deleted}, "server-2": {created, deleted}, "server-3": nil}
	r.s.States = map[string]map[string]any{"server-1": {}, "server-2": {}, "server-3": {}}
	assert.True(t, r.converged(&reported{TB: t}), "the objects agree: none anywhere")
	rep := &reported{TB: t}
	assert.False(t, r.caughtUp(rep))
	require.Len(t, rep.failures, 1)
	assert.Equal(t, "no-convergence", rep.failures[0].Name)
	assert.Equal(t, course.DurableAgreement, rep.failures[0].Clause)
	assert.True(t, strings.HasPrefix(rep.failures[0].Story, "server-3 never caught up: at 5000ms it holds 0 of the 2 changes of the one history, although the last fault ended at 3000ms."), rep.failures[0].Story)

	r.s.Histories["server-3"] = []check.Change{created, deleted}
	assert.True(t, r.caughtUp(&reported{TB: t}))
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
