package engine

import (
	"fmt"
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

// classify turns what one chapter's test stream said into its result. The
// rule that keeps grading honest is here: a check passes only when its own
// subtest reported a pass event. A process that exits early (os.Exit(0) in
// init) reports no events at all, and so scores nothing.
func classify(ch course.Chapter, dir, absDir string, rec *record, out outcome) result.Chapter {
	res := result.Chapter{
		ID:       ch.ID,
		Title:    ch.Title,
		Dir:      dir,
		Clauses:  ch.Clauses,
		Max:      ch.Points(),
		Duration: out.duration,
		Output:   rec.transcript.String(),
		Cut:      rec.transcript.Lost(),
	}
	top := ch.TestName()
	for _, k := range ch.Checks {
		c := result.Check{Name: k.Name, Title: k.Title, Max: k.Points, Status: result.NotRun}
		if t := rec.tests[top+"/"+k.Name]; t != nil {
			c.Output = t.output.String()
			c.Duration = time.Duration(t.elapsed * float64(time.Second))
			switch t.action {
			case "pass":
				c.Status = result.Pass
				c.Points = k.Points
			case "fail":
				c.Status = result.Fail
			case "skip":
				c.Status = result.Skip
			}
		}
		c.Figures = rec.figures[k.Name]
		if fs := rec.failures[k.Name]; len(fs) > 0 {
			c.Failures = fs
			f := fs[0]
			c.Failure = &f
			if c.Status == result.Pass { // a Marker line in a passing check is a suite bug; trust the failure
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

	switch {
	case rec.buildFailed:
		res.Status = result.Error
		res.Problem = compileProblem(rec.buildOutput.String(), dir)
	case out.killed || rec.timedOut:
		res.Status = result.Timeout
		res.Problem = timeoutProblem(rec, top, out.limit, absDir, dir)
		markCheck(&res, res.Problem.Check, result.Timeout)
	case rec.panicked && !allPass:
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
	case allPass:
		res.Status = result.Pass
	case !rec.started || rec.pkgAction == "":
		res.Status = result.Error
		res.Problem = setupProblem(rec, out)
	case rec.pkgAction == "pass" || res.Failure == nil && missing(res) != "":
		// The test process said it succeeded but some check never said so:
		// the code ended the process early, or the suite skipped a check.
		res.Status = result.Error
		first := missing(res)
		res.Problem = &result.Problem{
			Kind:    result.NoReport,
			Check:   first,
			Summary: fmt.Sprintf("the test process ended without reporting check %q: did the code call os.Exit, or end the process another way?", first),
			Output:  strings.TrimSpace(rec.other.String() + rec.transcript.String()),
		}
	default:
		res.Status = result.Fail
	}
	if res.Failure == nil && res.Status == result.Fail {
		res.Failure = plainFailure(ch, res)
	}
	return res
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
	if p.Check != "" {
		p.Summary = fmt.Sprintf("timed out after %s s in check %s", secs, p.Check)
	} else {
		p.Summary = fmt.Sprintf("timed out after %s s before any check started (in package initialization?)", secs)
	}
	if f, line, fn := learnerFrame(rec.panicText.String(), absDir, dir); f != "" {
		p.File, p.Line = f, line
		p.Summary += fmt.Sprintf(", waiting in %s at %s:%d", fn, f, line)
	}
	return p
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
		fn := lines[i-1]
		if j := strings.LastIndex(fn, "("); j > 0 {
			fn = fn[:j]
		}
		fn = strings.TrimPrefix(strings.TrimSpace(fn), course.Module+"/"+dir+".") // "(*Store).Create"
		return dir + "/" + path.Base(filepath.ToSlash(file)), n, strings.TrimSpace(fn)
	}
	return "", 0, ""
}
