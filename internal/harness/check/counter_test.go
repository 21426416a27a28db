package check_test

import (
	"testing"

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
	assert.Contains(t, v.Story, "it became 6 at 100ms")
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
