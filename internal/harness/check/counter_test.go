package check_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
)

// inc is one unit increment by client, told outcome o, asked at call and
// answered at ret.
func inc(client string, o check.Outcome, call, ret int) check.Increment {
	return check.Increment{Client: client, Delta: 1, Outcome: o, Call: ms(call), Return: ms(ret)}
}

// counted is the agreed history of deployments/web's replica count going
// through values, from rv 2 on, 10ms apart.
func counted(values ...int) []check.Change {
	var out []check.Change
	for i, v := range values {
		out = append(out, check.Change{Version: int64(i + 2), Key: "deployments/web", Value: v, At: ms(100 + 10*i)})
	}
	return out
}

// Two read-modify-write increments that each took effect once, one more
// whose outcome is unknown and did take effect, and one whose outcome is
// unknown and did not: the final count is the acknowledged ones plus a
// subset of the unknown ones, and every change added one.
func TestCounterAcknowledgedPlusSomeUnknownIsOneHistory(t *testing.T) {
	incs := []check.Increment{
		inc("hpa", check.OK, 90, 120), inc("kubectl", check.OK, 95, 130),
		inc("hpa", check.Indefinite, 140, 400), inc("kubectl", check.Indefinite, 150, 400),
		inc("kubectl", check.Conflict, 160, 170),
	}
	other := check.Change{Version: 9, Key: "pods/web-1", Value: "deployments/web"}
	assert.Nil(t, check.Counter("deployments/web", 5, incs, append(counted(6, 7, 8), other)))
	assert.Nil(t, check.Counter("deployments/web", 5, incs, counted(6, 7)), "neither unknown one took effect")
	assert.Nil(t, check.Counter("deployments/web", 5, incs, counted(6, 7, 8, 9)), "both unknown ones took effect")
}

// Two writers read 5, each added one and wrote the whole object back: the
// second write set 6 over 6 and erased the first. Every write was agreed,
// and one increment is gone.
func TestCounterAWriteBackOverAnIncrementIsALostUpdate(t *testing.T) {
	incs := []check.Increment{inc("hpa", check.OK, 90, 120), inc("kubectl", check.OK, 91, 125)}
	v := check.Counter("deployments/web", 5, incs, counted(6, 6))
	found(t, v, "lost-update", course.OneHistory)
	assert.Equal(t, ms(110), v.At, "the second write is the decisive event")
	assert.Contains(t, v.Story, "the change at rv 3 at 110ms set deployments/web to 6 over 6")
	assert.Contains(t, v.Story, "erased the change at rv 2 to 6 (at 100ms)")
	assert.Contains(t, v.Details, "◀")

	// A write-back that lowered the count is one too, and so is a deletion.
	found(t, check.Counter("deployments/web", 5, incs, counted(6, 5)), "lost-update", course.OneHistory)
	gone := append(counted(6), check.Change{Version: 3, Key: "deployments/web", Deleted: true, At: ms(110)})
	found(t, check.Counter("deployments/web", 5, incs, gone), "lost-update", course.OneHistory)
}

// A store that answered OK without the change reaching the history: every
// change is a good increment, and still one acknowledged increment is in
// none of them.
func TestCounterAnAcknowledgedIncrementInNoChangeIsALostUpdate(t *testing.T) {
	incs := []check.Increment{inc("hpa", check.OK, 90, 120), inc("kubectl", check.OK, 91, 125), inc("kubectl", check.Indefinite, 130, 400)}
	v := check.Counter("deployments/web", 5, incs, counted(6))
	found(t, v, "lost-update", course.OneHistory)
	assert.Contains(t, v.Story, "worth 2 took effect (the last at 125ms), but the history took it only from 5 to 6: increments worth 1 are in no change")
}

// A client that timed out and sent the same increment again, without
// reading whether the first took effect: both did. So did one its client was
// told had failed.
func TestCounterAnIncrementAppliedTwiceIsADoubleApply(t *testing.T) {
	incs := []check.Increment{inc("hpa", check.OK, 90, 400), inc("kubectl", check.OK, 95, 130)}
	v := check.Counter("deployments/web", 5, incs, counted(6, 7, 8))
	found(t, v, "double-apply", course.OneHistory)
	assert.Equal(t, ms(120), v.At, "the change that went past what the clients asked")
	assert.Contains(t, v.Story, "made deployments/web 8, 3 above its start 5, but the clients were told of increments worth 2 and did not know the outcome of 0 more")

	told := []check.Increment{inc("hpa", check.OK, 90, 120), inc("kubectl", check.Conflict, 95, 130)}
	found(t, check.Counter("deployments/web", 5, told, counted(6, 7)), "double-apply", course.OneHistory)
}

// With increments of different sizes, the count past the acknowledged ones
// must be what some of the unknown ones add up to.
func TestCounterUnevenIncrementsMustAddUp(t *testing.T) {
	incs := []check.Increment{
		{Client: "hpa", Delta: 2, Outcome: check.OK},
		{Client: "kubectl", Delta: 3, Outcome: check.Indefinite},
		{Client: "kubectl", Delta: 3, Outcome: check.Indefinite},
	}
	assert.Nil(t, check.Counter("deployments/web", 0, incs, counted(2, 5, 8)))
	assert.Nil(t, check.Counter("deployments/web", 0, incs, counted(3, 5)))
	found(t, check.Counter("deployments/web", 0, incs, counted(2, 4)), "lost-update", course.OneHistory)
}

// The same write-back told with its writers: the story names whose write
// erased whose, when each was sent and told done, and the stale read the
// erasing write was computed from. A change whose writer no record names
// has no time to tell, and says so rather than printing 0ms.
func TestCounterALostUpdateNamesBothWritersAndTheStaleRead(t *testing.T) {
	incs := []check.Increment{inc("hpa", check.OK, 90, 120), inc("kubectl", check.OK, 91, 125)}
	changes := counted(6, 6)
	for i := range changes {
		changes[i].At = 0
	}
	changes[0].By = []check.Writer{{Client: "hpa", Sent: ms(92), Told: ms(120)}}
	changes[1].By = []check.Writer{{Client: "kubectl", Sent: ms(93), Told: ms(125), ReadAt: ms(92), ReadVersion: 1, ReadValue: 5}}
	v := check.Counter("deployments/web", 5, incs, changes)
	found(t, v, "lost-update", course.OneHistory)
	assert.Equal(t, ms(125), v.At, "when the erasing write was told done")
	assert.Equal(t, "kubectl's write at rv 3 (sent at 93ms, told done at 125ms) set deployments/web to 6 over 6: no increment adds 0, "+
		"so the write was computed from an older read (kubectl's read of deployments/web at rv 1, value 5, answered at 92ms), "+
		"and it erased hpa's increment at rv 2 (to 6, sent at 92ms, told done at 120ms), which hpa had been told was made", v.Story)
	assert.Contains(t, v.Details, "kubectl, sent at 93ms, told done at 125ms")
	assert.NotContains(t, v.Story+v.Details, "0ms,")

	// Writes no one was told the outcome of, and one no record names.
	changes[0].By = []check.Writer{{Client: "hpa", Sent: ms(92)}, {Client: "hpa", Sent: ms(300)}}
	changes[1].By = nil
	v = check.Counter("deployments/web", 5, incs, changes)
	found(t, v, "lost-update", course.OneHistory)
	assert.Equal(t, time.Duration(0), v.At, "no record tells when it was made")
	assert.Contains(t, v.Story, "the change at rv 3 (made at an unknown time) set deployments/web to 6 over 6")
	assert.Contains(t, v.Story, "erased the change at rv 2 to 6 (made by one of hpa's writes sent at 92ms, 300ms, none told done, which the records cannot tell apart)")
	assert.Contains(t, v.Details, "no recorded write")
}

// A helper that timed out and applied its increment again: the story names
// the client whose one increment took effect twice, and both writes.
func TestCounterADoubleApplyNamesTheIncrementMadeTwice(t *testing.T) {
	incs := []check.Increment{inc("hpa", check.Indefinite, 90, 4000), inc("kubectl", check.OK, 95, 130)}
	changes := counted(6, 7, 8)
	changes[0].By = []check.Writer{{Client: "hpa", Sent: ms(92)}}
	changes[1].By = []check.Writer{{Client: "kubectl", Sent: ms(96), Told: ms(130)}}
	changes[2].By = []check.Writer{{Client: "hpa", Sent: ms(2100), Told: ms(2300)}}
	v := check.Counter("deployments/web", 5, incs, changes)
	found(t, v, "double-apply", course.OneHistory)
	assert.Contains(t, v.Story, "hpa's write at rv 4 (sent at 2100ms, told done at 2300ms) made deployments/web 8")
	assert.Contains(t, v.Story, "hpa's one increment of 1, asked at 90ms, took effect twice: its write at rv 2 (sent at 92ms, never told done) and again at rv 4 (sent at 2100ms, told done at 2300ms); its client did not know its outcome")
}

// Twelve increments told done, eleven in the history: the culprit is far
// from the last changes. writer-1's write, computed from the read of rv
// 2, was answered unchanged at rv 3, where writer-2 had already set the
// count: the table shows that row, with the change it landed on, as well
// as the last ones, and the story says how the increment was covered.
func TestCounterAnIncrementCoveredByAnUnchangedAnswerIsShownWhereItHappened(t *testing.T) {
	var incs []check.Increment
	changes := counted(6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
	for i := range changes {
		changes[i].By = []check.Writer{{Client: "writer-2", Sent: ms(95 + 10*i), Told: ms(100 + 10*i)}}
		incs = append(incs, inc("writer-2", check.OK, 90+10*i, 100+10*i))
	}
	changes[1].Unchanged = []check.Writer{{Client: "writer-1", Sent: ms(104), Told: ms(112), ReadAt: ms(103), ReadVersion: 2, ReadValue: 6}}
	incs = append(incs, inc("writer-1", check.OK, 101, 112))
	v := check.Counter("deployments/web", 5, incs, changes)
	found(t, v, "lost-update", course.OneHistory)
	assert.Contains(t, v.Story, "writer-1's increment of 1, asked at 101ms and told done at 112ms (its write, computed from its read at rv 2, value 6, was answered unchanged at rv 3, which writer-2's write had already set to 7)")
	assert.Contains(t, v.Details, "writer-1, sent at 104ms, told done at 112ms: answered unchanged, no change of its own (computed from its read at rv 2, value 6)")
	assert.Contains(t, v.Details, "⋮")
	assert.Contains(t, v.Details, "told done at 200ms", "the last changes are still shown")
	assert.NotContains(t, v.Details, "th)")
}

// A write computed from a read older than the change before it, whose
// difference happens to be an increment (7 over 6, from the read of 5 at
// rv 1): the total falls short, and the table marks that write.
func TestCounterAWriteFromAnOlderReadIsMarkedWhenTheTotalFallsShort(t *testing.T) {
	incs := []check.Increment{inc("hpa", check.OK, 90, 120), {Client: "kubectl", Delta: 2, Outcome: check.OK, Call: ms(91), Return: ms(130)}}
	changes := counted(6, 7)
	changes[0].By = []check.Writer{{Client: "hpa", Sent: ms(95), Told: ms(120), ReadAt: ms(92), ReadVersion: 1, ReadValue: 5}}
	changes[1].By = []check.Writer{{Client: "kubectl", Sent: ms(96), Told: ms(130), ReadAt: ms(93), ReadVersion: 1, ReadValue: 5}}
	v := check.Counter("deployments/web", 5, incs, changes)
	found(t, v, "lost-update", course.OneHistory)
	assert.Contains(t, v.Details, "◀ computed from its read at rv 1, before rv 2")
}
