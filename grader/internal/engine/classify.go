package engine

import (
	"errors"
	"fmt"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"onehistory/grader/internal/result"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/suite"
)

// outcome is how the go test process ended, as seen from outside it.
type outcome struct {
	killed   bool          // the grader's time limit ended it
	limit    time.Duration // the time limit that applied
	exitErr  error         // from Wait
	stderr   string        // the go command's own complaints
	duration time.Duration
}

// classify turns what one chapter's run said into its result. The rule
// that keeps grading honest is here: a check passes only on the pass
// verdict the hidden suite gave it on its private channel (v), and a
// chapter passes only when every verdict arrived, the suite ran to its
// end, the test process exited with status 0 and its output ended in a
// pass. The output (rec) tells the story, never the score: where it claims
// more than the verdicts, the chapter scores nothing and the report names
// the tampering.
func classify(ch course.Chapter, dir, absDir string, rec *record, v *verdicts, out outcome) result.Chapter {
	res := result.Chapter{
		ID:       ch.ID,
		Title:    ch.Title,
		Dir:      dir,
		Clauses:  ch.Clauses,
		Bonus:    ch.Bonus,
		Max:      ch.Points(),
		Duration: out.duration,
		Output:   rec.transcript.String(),
		Cut:      rec.transcript.Lost(),
		Printed:  printed(rec, ""),
	}
	top := ch.TestName()
	for _, k := range ch.Checks {
		c := result.Check{Name: k.Name, Title: k.Title, Max: k.Points, Status: result.NotRun}
		if t := rec.tests[top+"/"+k.Name]; t != nil {
			c.Output = t.output.String()
			c.Duration = time.Duration(t.elapsed * float64(time.Second))
			c.Printed = printed(rec, top+"/"+k.Name)
		}
		if passed, given := v.passed[k.Name]; given {
			c.Status = result.Fail
			if passed {
				c.Status, c.Points = result.Pass, k.Points
			}
		}
		c.Figures = rec.figures[k.Name]
		if fs := v.failures[k.Name]; len(fs) > 0 {
			c.Failures = fs
			f := fs[0]
			c.Failure = &f
			if c.Status == result.Pass { // a failure in a passing check is a suite bug; trust the failure
				c.Status, c.Points = result.Fail, 0
			}
		}
		res.Points += c.Points
		res.Checks = append(res.Checks, c)
	}
	for i := range res.Checks {
		if res.Checks[i].Failure != nil {
			res.Failure = res.Checks[i].Failure
			break
		}
	}

	allPass := len(res.Checks) > 0
	for _, c := range res.Checks {
		allPass = allPass && c.Status == result.Pass
	}
	exitedWell := out.exitErr == nil

	switch {
	case out.killed || rec.timedOut:
		res.Status = result.Timeout
		res.Problem = timeoutProblem(rec, top, out.limit, absDir, dir)
		markCheck(&res, res.Problem.Check, result.Timeout)
	case tampering(ch, rec, v, out, &res):
		res.Status = result.Error
		res.Points = 0
		for i := range res.Checks {
			res.Checks[i].Points = 0
		}
	case rec.panicked && !(allPass && v.ended && exitedWell):
		res.Status = result.Error
		res.Problem = panicProblem(rec, absDir, dir)
		markCheck(&res, res.Problem.Check, result.Error)
	case caughtPanic(res) != nil:
		// The world caught a panic in the learner's code and the suite
		// reported it as a failure: it is a panic all the same.
		c := caughtPanic(res)
		res.Status = result.Error
		res.Problem = &result.Problem{Kind: result.Panic, Check: c.Name, Summary: "panic: " + c.Failure.Story, Output: c.Failure.Details}
		if f, line, fn := learnerFrame(c.Failure.Details, absDir, dir); f != "" {
			res.Problem.File, res.Problem.Line = f, line
			res.Problem.Summary += fmt.Sprintf(" in %s at %s:%d", fn, f, line)
		}
		res.Problem.Summary += " (check " + c.Name + ")"
		markCheck(&res, c.Name, result.Error)
	case allPass && v.ended && exitedWell && rec.pkgAction == "pass":
		res.Status = result.Pass
	case allPass && v.ended:
		// Every verdict was a pass, and still the process did not end
		// well: code that went on after the suite (a goroutine calling
		// log.Fatal) or output cut short.
		res.Status = result.Error
		res.Problem = &result.Problem{
			Kind:    result.NoReport,
			Summary: fmt.Sprintf("the hidden suite passed every check, but then the test process ended badly (%s, its output ending %q): did a goroutine of the code call log.Fatal?", exitText(out.exitErr), rec.pkgAction),
			Output:  strings.TrimSpace(rec.other.String() + rec.transcript.String()),
		}
	case !v.began && !rec.started:
		res.Status = result.Error
		res.Problem = setupProblem(rec, out)
	case missing(res) != "" || !v.ended:
		// The process ended (with a failure status) before the suite
		// reported every check: log.Fatal, a crash the output does not
		// show, or a suite that skipped a check.
		res.Status = result.Error
		first := missing(res)
		what := fmt.Sprintf("check %q", first)
		if first == "" {
			what = "the end of its run"
		}
		res.Problem = &result.Problem{
			Kind:    result.NoReport,
			Check:   first,
			Summary: fmt.Sprintf("the test process ended (%s) before the hidden suite reported %s: did the code call log.Fatal, or end the process another way?", exitText(out.exitErr), what),
			Output:  strings.TrimSpace(rec.other.String() + rec.transcript.String()),
		}
		markCheck(&res, first, result.Error)
	default:
		res.Status = result.Fail
	}
	if res.Failure == nil && res.Status == result.Fail {
		res.Failure = plainFailure(ch, res)
	}
	return res
}

// printed is what the code under test printed itself while test ran ("" for
// the package: before, between and after the tests).
func printed(rec *record, test string) string {
	if t := rec.tests[test]; t != nil {
		return t.printed.String()
	}
	return ""
}

// exitText says how a process ended, for a person.
func exitText(err error) string {
	if err == nil {
		return "exit status 0, which means success"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		return fmt.Sprintf("exit status %d", ee.ExitCode())
	}
	return err.Error()
}

// tampering decides whether the run claimed more than the hidden suite
// reported, and if so sets res.Problem to say what, in words for the
// person graded and for the person grading:
//
//   - something other than the suite wrote on its private channel (a line
//     not signed with the run's key), code outside the hidden suites called
//     the suite's verdict package, or the suite's own signed lines came out
//     of their order (missing, repeated, a second begin, a second verdict,
//     after the end): read back and replayed, or the suite run twice;
//   - the process exited with status 0 (success) although the suite did not
//     report every check and its end: the code ended the process early, or
//     kept the suite from running (os.Exit, a changed os.Args or flag);
//   - the output says a check, the suite or the package passed where the
//     suite's verdict says otherwise or never came: printed test results.
func tampering(ch course.Chapter, rec *record, v *verdicts, out outcome, res *result.Chapter) bool {
	const after = " A chapter passes only when the hidden suite itself reports every check; printed results, early exits and flags that stop the suite count for nothing, so this chapter scores 0."
	problem := func(check, summary string) bool {
		res.Problem = &result.Problem{
			Kind:    result.Tampering,
			Check:   check,
			Summary: "tampering: " + summary + after,
			Output:  strings.TrimSpace(rec.other.String() + rec.transcript.String()),
		}
		return true
	}
	if v.nForged > 0 {
		return problem("", fmt.Sprintf("%d line(s) on the grader's private verdict channel did not come from the hidden suite (the first: %s).", v.nForged, v.forged[0]))
	}
	if v.intruder != "" {
		return problem("", fmt.Sprintf("code outside the hidden suite (%s) called the suite's verdict package to give verdicts itself.", v.intruder))
	}
	if v.broken != "" {
		return problem("", fmt.Sprintf("the hidden suite's own lines on the grader's private verdict channel were read back, replayed or run twice (%s).", v.broken))
	}
	top := ch.TestName()
	for _, c := range res.Checks {
		t := rec.tests[top+"/"+c.Name]
		if t == nil || t.action != "pass" || c.Status == result.Pass {
			continue
		}
		if c.Status == result.Fail {
			return problem(c.Name, fmt.Sprintf("the test output says check %s passed, but the hidden suite failed it.", c.Name))
		}
		if !rec.panicked {
			return problem(c.Name, fmt.Sprintf("the test output says check %s passed, but the hidden suite never reported it.", c.Name))
		}
	}
	first := missing(*res)
	complete := first == "" && v.ended
	if out.exitErr == nil && !complete {
		what := fmt.Sprintf("check %s", first)
		if first == "" {
			what = "the end of its run"
		}
		if !v.began {
			return problem(first, "the test process ended with success (exit status 0), but the hidden suite never ran: the code ended the process early, or kept the suite from starting.")
		}
		return problem(first, fmt.Sprintf("the test process ended with success (exit status 0), but the hidden suite never reported %s: the code ended the process early.", what))
	}
	allPass := complete
	for _, c := range res.Checks {
		allPass = allPass && c.Status == result.Pass
	}
	if !allPass && (rec.pkgAction == "pass" || rec.tests[top] != nil && rec.tests[top].action == "pass") && !rec.panicked {
		return problem(first, fmt.Sprintf("the test output says %s passed, but the hidden suite did not pass every check.", top))
	}
	return false
}

// caughtPanic is the first check whose first failure is a panic the suite
// caught (suite.PanicName), or nil.
func caughtPanic(res result.Chapter) *result.Check {
	for i, c := range res.Checks {
		if c.Failure != nil && c.Failure.Name == suite.PanicName {
			return &res.Checks[i]
		}
	}
	return nil
}

// missing names the first check that did not report a result, or "".
func missing(res result.Chapter) string {
	for _, c := range res.Checks {
		if c.Status == result.NotRun || c.Status == result.Skip {
			return c.Name
		}
	}
	return ""
}

func markCheck(res *result.Chapter, name string, s result.Status) {
	for i := range res.Checks {
		if res.Checks[i].Name == name && res.Checks[i].Status != result.Pass {
			res.Checks[i].Status = s
		}
	}
}

// plainFailure stands in for the story when a failed check printed no Marker
// line (a suite that called t.Fatal directly): its first line of output.
func plainFailure(ch course.Chapter, res result.Chapter) *suite.Failure {
	for _, c := range res.Checks {
		if c.Status != result.Fail {
			continue
		}
		story := "failed"
		for _, line := range strings.Split(c.Output, "\n") {
			l := strings.TrimSpace(line)
			if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- ") {
				continue
			}
			story = l
			break
		}
		return &suite.Failure{Chapter: ch.ID, Check: c.Name, Story: story, Replay: "make " + ch.ID}
	}
	return nil
}

// compilerLine matches a compiler error: "path/file.go:12:3: message".
var compilerLine = regexp.MustCompile(`^(\S+\.go):(\d+)(?::\d+)?: `)

func compileProblem(output, dir string) *result.Problem {
	p := &result.Problem{Kind: result.Compile, Output: strings.TrimSpace(output), Summary: "the code does not compile"}
	for _, line := range strings.Split(output, "\n") {
		if m := compilerLine.FindStringSubmatch(line); m != nil {
			p.Summary = strings.TrimSpace(line)
			p.File = filepath.ToSlash(m[1])
			p.Line, _ = strconv.Atoi(m[2])
			break
		}
	}
	if p.Summary == "the code does not compile" {
		for _, line := range strings.Split(output, "\n") {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
				p.Summary = l
				break
			}
		}
	}
	return p
}

func timeoutProblem(rec *record, top string, limit time.Duration, absDir, dir string) *result.Problem {
	p := &result.Problem{Kind: result.Hang, Output: learnerStacks(rec.panicText.String(), absDir, dir)}
	// The innermost running test is the deepest name the timeout panic
	// listed; without one (the grader had to kill the process), the last
	// check that started and never finished.
	var hung string
	for _, name := range rec.running {
		if strings.HasPrefix(name, top+"/") && len(name) >= len(hung) {
			hung = name
		}
	}
	if hung == "" {
		for i := len(rec.order) - 1; i >= 0; i-- {
			name := rec.order[i]
			if t := rec.tests[name]; strings.HasPrefix(name, top+"/") && t.action == "" {
				hung = name
				break
			}
		}
	}
	p.Check = checkOf(hung)
	secs := strconv.FormatFloat(limit.Seconds(), 'f', -1, 64)
	switch {
	case p.Check != "":
		p.Summary = fmt.Sprintf("timed out after %s s in check %s", secs, p.Check)
	case hung != "" || len(rec.order) > 0:
		p.Summary = fmt.Sprintf("timed out after %s s in %s, before its first check began", secs, top)
	case limit < time.Second:
		p.Summary = fmt.Sprintf("timed out after %s s, before any test began: the limit is shorter than a test binary needs to start (try --timeout 60s)", secs)
	default:
		p.Summary = fmt.Sprintf("timed out after %s s before any check started (in package initialization?)", secs)
	}
	dump := rec.panicText.String()
	if f, line, fn := spinningGoroutine(dump, absDir, dir); f != "" {
		// A goroutine of the learner's still running when the time ran out
		// is the likeliest cause: a loop that never waits.
		p.File, p.Line = f, line
		p.Summary += fmt.Sprintf(": a goroutine started in %s at %s:%d was still running (a loop that never waits?)", fn, f, line)
	} else if f, line, fn := learnerFrame(dump, absDir, dir); f != "" {
		p.File, p.Line = f, line
		p.Summary += fmt.Sprintf(", waiting in %s at %s:%d", fn, f, line)
	}
	return p
}

// spinningGoroutine finds, in a timeout's goroutine dump, a goroutine that
// was running (or ready to run, on a busy machine) when the time ran out
// and that the learner's code started:
// where it was, or, when its stack was unavailable (running on another
// thread), the go statement that started it.
func spinningGoroutine(dump, absDir, dir string) (string, int, string) {
	for _, b := range strings.Split(dump, "\n\n") {
		head, _, _ := strings.Cut(b, "\n")
		if !strings.HasPrefix(head, "goroutine ") || !(strings.Contains(head, "[running]") || strings.Contains(head, "[runnable]")) {
			continue
		}
		if f, line, fn := learnerFrame(b, absDir, dir); f != "" {
			fn = strings.TrimPrefix(fn, "created by ")
			if i := strings.Index(fn, " in goroutine"); i > 0 {
				fn = fn[:i]
			}
			fn = strings.TrimPrefix(fn, course.Module+"/"+dir+".")
			return f, line, fn
		}
	}
	return "", 0, ""
}

func panicProblem(rec *record, absDir, dir string) *result.Problem {
	text := rec.panicText.String()
	first, _, _ := strings.Cut(text, "\n")
	first = strings.TrimSuffix(first, " [recovered]")
	first = strings.TrimSuffix(first, " [recovered, repanicked]")
	p := &result.Problem{Kind: result.Panic, Output: strings.TrimSpace(text), Check: checkOf(rec.panicCheck), Summary: first}
	if f, line, fn := learnerFrame(text, absDir, dir); f != "" {
		p.File, p.Line = f, line
		p.Summary = fmt.Sprintf("%s in %s at %s:%d", first, fn, f, line)
	}
	if p.Check != "" {
		p.Summary += " (check " + p.Check + ")"
	}
	return p
}

func setupProblem(rec *record, out outcome) *result.Problem {
	text := strings.TrimSpace(out.stderr + "\n" + rec.other.String() + rec.buildOutput.String())
	summary := "the go command could not run the test"
	for _, line := range strings.Split(text, "\n") {
		if l := strings.TrimSpace(line); l != "" {
			summary = l
			break
		}
	}
	if text == "" && out.exitErr != nil {
		text = out.exitErr.Error()
	}
	return &result.Problem{Kind: result.Setup, Summary: summary, Output: text}
}

// learnerStacks shortens a timeout's goroutine dump to what a learner needs:
// its first block (the panic and the tests that were running) and the
// goroutines whose stacks pass through the learner's folder.
func learnerStacks(dump, absDir, dir string) string {
	blocks := strings.Split(strings.TrimSpace(dump), "\n\n")
	keep := blocks[:1]
	for _, b := range blocks[1:] {
		if strings.Contains(b, absDir+string(filepath.Separator)) || strings.Contains(b, course.Module+"/"+dir+"/") {
			keep = append(keep, b)
		}
	}
	return strings.Join(keep, "\n\n")
}

// frameLine matches a stack frame's location: "\t/abs/path/file.go:42 +0x1d".
var frameLine = regexp.MustCompile(`^\t(.+\.go):(\d+)`)

// learnerFrame finds the first stack frame in the learner's folder (not a
// test file): the file relative to the module root, the line, and the
// function the line before it names.
func learnerFrame(stack, absDir, dir string) (string, int, string) {
	lines := strings.Split(stack, "\n")
	for i, line := range lines {
		m := frameLine.FindStringSubmatch(line)
		if m == nil || i == 0 {
			continue
		}
		file := m[1]
		inFolder := filepath.Dir(filepath.Clean(file)) == filepath.Clean(absDir) || // a plain build
			path.Dir(file) == path.Join(course.Module, dir) // a -trimpath build
		if !inFolder || strings.HasSuffix(file, "_test.go") {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		if n <= 1 {
			continue // a wrapper the compiler generated: no line of the learner's
		}
		fn := lines[i-1]
		if j := strings.LastIndex(fn, "("); j > 0 {
			fn = fn[:j]
		}
		fn = strings.TrimPrefix(strings.TrimSpace(fn), course.Module+"/"+dir+".") // "(*Store).Create"
		return dir + "/" + path.Base(filepath.ToSlash(file)), n, strings.TrimSpace(fn)
	}
	return "", 0, ""
}
