package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/course"
)

// Exercised is the guard against vacuous passes: it checks that a run
// actually tested something. It fails unless at least minCompleted of h's
// operations completed (got a definite answer from the store: see
// Outcome.Definite) and at least one fault overlapped at least one client
// operation, from its call to its return (an operation still pending, or
// timed out, may still be in flight: it overlaps every later fault). Fault
// and operation intervals are closed; a fault at a moment overlaps an
// operation in flight at that moment.
//
// Too few completed operations can be either side's doing, and the verdict
// says whose. When the clients sent requests and most of them got no answer
// from the store (they timed out, were refused, or were still waiting when
// the run ended), the store under test failed to answer: Exercised returns
// the violation "requests-unanswered" (Unanswered), a failure of the code
// under test, naming the requests it left unanswered. When it answered most
// of them but so slowly that its clients, each waiting for an answer before
// asking again, spent most of their time waiting and sent too few, it is
// "answers-too-slow" (Slow), the store's failure too. Otherwise it returns
// nil or the violation "vacuous-run" (Vacuous): the run itself tested too
// little (no operations, too few sent, no fault, or faults that met an idle
// cluster), a failure of the test, not of the store. All have clause 1
// (course.OneHistory), the clause a drill that never meets a client cannot
// show; a caller may set another.
func Exercised(h *History, faults []Fault, minCompleted int) *Violation {
	ops := h.Operations()
	var end time.Duration
	completed := 0
	for _, op := range ops {
		end = max(end, op.Call, op.Return)
		if op.Completed() {
			completed++
		}
	}
	fail := func(at time.Duration, format string, args ...any) *Violation {
		return &Violation{Clause: course.OneHistory, Name: Vacuous, At: at, Story: fmt.Sprintf(format, args...)}
	}
	switch {
	case len(ops) == 0:
		return fail(0, "the run recorded no client operations: nothing was tested")
	case completed < max(minCompleted, 1) && 2*completed < len(ops):
		return unanswered(ops, completed, max(minCompleted, 1))
	case completed < max(minCompleted, 1) && waiting(ops, end) >= slowWaiting:
		return slow(ops, completed, max(minCompleted, 1), end)
	case completed < max(minCompleted, 1):
		return fail(end, "only %d of %d client operations completed (at least %d needed): the run tested too little",
			completed, len(ops), max(minCompleted, 1))
	case len(faults) == 0:
		return fail(end, "no fault was injected: the run only showed that a calm cluster works")
	}
	for _, f := range faults {
		for _, op := range ops {
			ret := op.Return
			if op.Indefinite() {
				ret = 1<<63 - 1
			}
			if f.Start <= ret && op.Call <= f.Last() {
				return nil
			}
		}
	}
	v := fail(faults[0].Start, "none of the %d faults overlapped a client operation: the faults hit an idle cluster", len(faults))
	var b strings.Builder
	fmt.Fprintf(&b, "client operations ran from %s to %s; the faults:\n", formatTime(ops[0].Call), formatTime(end))
	for _, f := range faults {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	v.Details = b.String()
	return v
}

// The names of Exercised's verdicts: whose failure a run that tested too
// little is.
const (
	// Vacuous: the test's own failure. It sent too little, injected no
	// fault, or its faults met an idle cluster.
	Vacuous = "vacuous-run"
	// Unanswered: the store's failure. The clients asked, and the store
	// left most of their requests without an answer.
	Unanswered = "requests-unanswered"
	// Slow: the store's failure. It answered, but so slowly that clients
	// who wait for each answer before they ask again sent too few requests
	// to judge the run.
	Slow = "answers-too-slow"
)

// slowWaiting is the share of their time the clients must have spent
// waiting for answers for a run with too few answers to be the store's
// doing: more than anything else they did. A test that sends too little
// leaves its clients idle, or sends one request each.
const slowWaiting = 0.5

// waiting is the share of the clients' time, each from its first request
// to end, that they spent with a request in flight; 0 when the clients sent
// fewer than two requests each, which shows nothing of a store's pace.
func waiting(ops []Operation, end time.Duration) float64 {
	type lane struct{ first, busy, upTo time.Duration }
	lanes := map[string]*lane{}
	var spans, busy time.Duration
	for _, op := range ops { // in the order they were called
		l := lanes[op.Client]
		if l == nil {
			l = &lane{first: op.Call, upTo: op.Call}
			lanes[op.Client] = l
		}
		ret := op.Return
		if op.Result.Outcome == Pending {
			ret = end // still in flight: the client waited to the end
		}
		if from := max(op.Call, l.upTo); ret > from {
			l.busy += ret - from
			l.upTo = ret
		}
	}
	for _, l := range lanes {
		spans += end - l.first
		busy += l.busy
	}
	if spans == 0 || len(ops) < 2*len(lanes) {
		return 0
	}
	return float64(busy) / float64(spans)
}

// slow is the verdict on a run whose clients spent their time waiting and
// got a definite answer to only completed of their requests, fewer than
// needed: the store answered too slowly for the run to be judged. The story
// names the slowest answer and the clients' share of time spent waiting.
func slow(ops []Operation, completed, needed int, end time.Duration) *Violation {
	var took []time.Duration
	slowest := ops[0]
	for _, op := range ops {
		if !op.Completed() {
			continue
		}
		took = append(took, op.Return-op.Call)
		if !slowest.Completed() || op.Return-op.Call > slowest.Return-slowest.Call {
			slowest = op
		}
	}
	slices.Sort(took)
	median := time.Duration(0)
	if len(took) > 0 {
		median = took[len(took)/2]
	}
	answered := fmt.Sprintf("%d of the %d", completed, len(ops))
	if completed == len(ops) {
		answered = fmt.Sprintf("all %d", completed)
	}
	return &Violation{Clause: course.OneHistory, Name: Slow, At: slowest.Call, Ops: []OpID{slowest.ID},
		Story: fmt.Sprintf("the cluster answered %s requests its clients sent, too few to judge the run (at least %d needed), "+
			"because it answered slowly: a median of %s, and %s to %s's %s through %s, sent at %s; "+
			"its clients, each waiting for an answer before asking again, spent %.0f%% of their time waiting",
			answered, needed, formatTime(median), formatTime(slowest.Return-slowest.Call),
			slowest.Client, slowest.Input, slowest.Server, formatTime(slowest.Call), 100*waiting(ops, end))}
}

// maxUnansweredListed bounds the requests an Unanswered violation lists.
const maxUnansweredListed = 10

// unanswered is the verdict on a run whose clients sent ops and got a
// definite answer to only completed of them, fewer than needed and fewer
// than half: the store, not the test, left the run with nothing to judge.
// The story names the first write left unanswered (or the first request,
// if no write was), and Details lists the first of them.
func unanswered(ops []Operation, completed, needed int) *Violation {
	var timedOut, refused, pending int
	var left []Operation
	for _, op := range ops {
		switch op.Result.Outcome {
		case Indefinite:
			timedOut++
		case Refused:
			refused++
		case Pending:
			pending++
		default:
			continue
		}
		left = append(left, op)
	}
	first := left[0]
	for _, op := range left {
		if op.Input.Kind.Mutates() {
			first = op
			break
		}
	}
	var why []string
	for _, c := range []struct {
		n          int
		what, were string
	}{{timedOut, "timed out", "timed out"}, {refused, "was refused", "were refused"}, {pending, "was still waiting when the run ended", "were still waiting when the run ended"}} {
		switch {
		case c.n == 1:
			why = append(why, "1 "+c.what)
		case c.n > 1:
			why = append(why, fmt.Sprintf("%d %s", c.n, c.were))
		}
	}
	v := &Violation{Clause: course.OneHistory, Name: Unanswered, At: first.Call, Ops: []OpID{first.ID},
		Story: fmt.Sprintf("the cluster answered only %d of the %d requests its clients sent (%s; at least %d answers needed to judge the run): "+
			"%s's %s through %s, sent at %s, never got one",
			completed, len(ops), strings.Join(why, ", "), needed, first.Client, first.Input, first.Server, formatTime(first.Call))}
	var b strings.Builder
	b.WriteString("requests the cluster left without an answer:\n")
	for i, op := range left {
		if i == maxUnansweredListed {
			fmt.Fprintf(&b, "  and %d more\n", len(left)-i)
			break
		}
		fmt.Fprintf(&b, "  %s\n", op)
	}
	v.Details = b.String()
	return v
}

// Coverage counts, across the seeds of a randomized check, how many runs were
// exercised (see Exercised), so that a suite whose runs mostly tested nothing
// fails loudly instead of passing, and says whose failure that is.
//
//	var cov check.Coverage
//	for _, seed := range suite.Seeds(200) {
//		h, faults := run(seed)
//		cov.Add(seed, check.Exercised(h, faults, 20))
//		...
//	}
//	if v := cov.Check(0.9); v != nil { ... }
//
// The zero Coverage is ready to use.
type Coverage struct {
	Runs       int // runs added
	Exercised  int // runs whose Exercised verdict was nil
	Unanswered int // runs whose Exercised verdict was Unanswered or Slow: the store's failure
	idle       []idleRun
	clause     course.Clause // the first Unanswered or Slow verdict's clause
	name       string        // and its name
}

type idleRun struct {
	seed       int64
	unanswered bool // the verdict was Unanswered, not Vacuous
	story      string
}

// maxIdleListed bounds the idle runs of each kind Check lists.
const maxIdleListed = 10

// Add counts the run of seed, whose Exercised verdict was v (nil: it was
// exercised).
func (c *Coverage) Add(seed int64, v *Violation) {
	c.Runs++
	if v == nil {
		c.Exercised++
		return
	}
	un := v.Name == Unanswered || v.Name == Slow
	if un {
		if c.Unanswered == 0 {
			c.clause, c.name = v.Clause, v.Name
		}
		c.Unanswered++
	}
	listed := 0
	for _, r := range c.idle {
		if r.unanswered == un {
			listed++
		}
	}
	if listed < maxIdleListed {
		c.idle = append(c.idle, idleRun{seed, un, v.Story})
	}
}

// FirstIdle is the seed of the first run added that was not exercised, of
// the kind Check blames: the one to replay to see the store leave requests
// unanswered, or a fault meet an idle cluster.
func (c *Coverage) FirstIdle() (seed int64, ok bool) {
	blame := c.storeToBlame()
	for _, r := range c.idle {
		if r.unanswered == blame {
			return r.seed, true
		}
	}
	return 0, false
}

// storeToBlame reports whether the store under test, not the test, is why
// runs went unexercised: the runs it left unanswered are at least as many as
// the runs the test itself wasted.
func (c *Coverage) storeToBlame() bool {
	return c.Unanswered > 0 && c.Unanswered >= c.Runs-c.Exercised-c.Unanswered
}

// Check returns nil if at least minFraction (0 to 1) of the runs were
// exercised, and at least one run was added. Otherwise it returns a
// violation that says whose failure it is: "requests-unanswered"
// (Unanswered) when the runs the store left without answers are at least as
// many as those the test wasted, else "vacuous-run" (Vacuous). Details lists
// the first runs of each kind.
func (c *Coverage) Check(minFraction float64) *Violation {
	if c.Runs == 0 {
		return &Violation{Clause: course.OneHistory, Name: Vacuous,
			Story: "the randomized check ran no runs at all: nothing was tested"}
	}
	if float64(c.Exercised) >= minFraction*float64(c.Runs) && c.Exercised > 0 {
		return nil
	}
	var v *Violation
	if c.storeToBlame() {
		first := ""
		for _, r := range c.idle {
			if r.unanswered {
				first = r.story
				break
			}
		}
		what := "left most requests without an answer"
		if c.name == Slow {
			what = "answered too slowly"
		}
		v = &Violation{Clause: c.clause, Name: c.name,
			Story: fmt.Sprintf("in %d of %d runs the cluster %s, so too few runs could be judged "+
				"(at least %.0f%% needed); in the first, %s", c.Unanswered, c.Runs, what, minFraction*100, first)}
	} else {
		v = &Violation{Clause: course.OneHistory, Name: Vacuous,
			Story: fmt.Sprintf("only %d of %d runs had faults that met client operations (at least %.0f%% needed): the randomized check proved little",
				c.Exercised, c.Runs, minFraction*100)}
	}
	var b strings.Builder
	listed := map[bool]int{}
	for _, un := range []bool{c.storeToBlame(), !c.storeToBlame()} {
		head, total := "runs that tested nothing:\n", c.Runs-c.Exercised-c.Unanswered
		if un {
			head, total = "runs in which the cluster answered too few requests to judge:\n", c.Unanswered
		}
		if total == 0 {
			continue
		}
		b.WriteString(head)
		for _, r := range c.idle {
			if r.unanswered == un {
				fmt.Fprintf(&b, "  seed %d: %s\n", r.seed, r.story)
				listed[un]++
			}
		}
		if n := total - listed[un]; n > 0 {
			fmt.Fprintf(&b, "  and %d more\n", n)
		}
	}
	v.Details = b.String()
	return v
}
