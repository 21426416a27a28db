package suite

import (
	"errors"
	"fmt"
	"strings"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/sim"
)

// The names of the failures RunFailure reports, besides PanicName.
const (
	DeadlockName = "deadlock" // every process blocked, nothing pending
	StuckName    = "stuck"    // a process blocked outside the world or spun without yielding
	MisuseName   = "misuse"   // the world was used the wrong way
	RunErrorName = "run-error"
)

// RunFailure turns the error of a world that could not run to its end into
// the failure it is, told for a learner: which process panicked, deadlocked
// or got stuck, where and when. The caller adds the seed, the clause and the
// timeline; a panic's stack goes in Details, where the grader looks for the
// learner's line.
func RunFailure(err error) Failure {
	var (
		pe *sim.PanicError
		dl *sim.DeadlockError
		se *sim.StuckError
		me *sim.MisuseError
	)
	switch {
	case errors.As(err, &pe):
		return Failure{Name: PanicName, At: pe.At,
			Story:   fmt.Sprintf("process %s panicked at %s: %v", pe.Proc, FormatTime(pe.At), pe.Value),
			Details: pe.Stack}
	case errors.As(err, &dl):
		waits := make([]string, len(dl.Blocked))
		for i, b := range dl.Blocked {
			waits[i] = b.Proc + " waits in " + b.Wait
		}
		return Failure{Name: DeadlockName, At: dl.At,
			Story: fmt.Sprintf("at %s every process was blocked and nothing could wake them: %s",
				FormatTime(dl.At), strings.Join(waits, "; "))}
	case errors.As(err, &se):
		return Failure{Name: StuckName, At: se.At,
			Story: fmt.Sprintf("process %s stopped yielding to the world at %s: a time.Sleep, a channel or a sync.Mutex "+
				"where the world's p.Sleep, sim.Queue, sim.Cond or sim.Mutex belong, or a loop that never calls the world", se.Proc, FormatTime(se.At))}
	case errors.As(err, &me):
		return Failure{Name: MisuseName, Story: me.Error()}
	}
	return Failure{Name: RunErrorName, Story: "the run could not go on: " + err.Error()}
}

// Faults lists the faults the world injected, for check.Exercised and for
// annotating a linearizability visualization.
func Faults(w *sim.World) []check.Fault { return w.Faults() }

// Covered judges a randomized check's guard against vacuous runs once all
// its seeds have run: unless at least minFraction of the runs had faults
// that met client operations, it returns cov.Check's verdict, which says
// whose failure that is ("requests-unanswered": the code under test left
// the clients' requests unanswered; "vacuous-run": the test's faults met an
// idle cluster), at the first seed of that kind, to replay. A replay of one
// seed is not judged: one world cannot tell how often faults meet the
// workload, only the search over many can.
func Covered(cov *check.Coverage, minFraction float64) *Failure {
	if Replaying() {
		return nil
	}
	v := cov.Check(minFraction)
	if v == nil {
		return nil
	}
	seed, _ := cov.FirstIdle()
	return &Failure{Name: v.Name, Clause: v.Clause, Story: v.Story, At: v.At, Details: v.Details, Seed: seed}
}
