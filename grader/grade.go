package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"onehistory/grader/internal/engine"
	"onehistory/grader/internal/render"
	"onehistory/grader/internal/result"
	"onehistory/grader/internal/workbook"
	"onehistory/internal/harness/course"
)

// skipImportCheck switches the engine's import check off. Only the
// grader's own tests set it, to show that the other defences hold alone.
var skipImportCheck = false

// gradeOptions are the flags of a grading run.
type gradeOptions struct {
	json      bool
	junit     string
	minScore  string
	solutions bool
	stubs     bool
	seed      string
	runs      string
	timeout   time.Duration
	parallel  int
	color     string
	noCache   bool
	wide      bool
}

// flags registers the grading flags on fs. SEED and RUNS in the environment
// are the defaults of --seed and --runs.
func (o *gradeOptions) flags(fs *flag.FlagSet) {
	fs.BoolVar(&o.json, "json", false, "")
	fs.StringVar(&o.junit, "junit", "", "")
	fs.StringVar(&o.minScore, "min-score", "", "")
	fs.BoolVar(&o.solutions, "solutions", false, "")
	fs.BoolVar(&o.stubs, "stubs", false, "")
	fs.StringVar(&o.seed, "seed", os.Getenv("SEED"), "")
	fs.StringVar(&o.runs, "runs", os.Getenv("RUNS"), "")
	fs.DurationVar(&o.timeout, "timeout", engine.DefaultTimeout, "")
	fs.IntVar(&o.parallel, "parallel", 0, "")
	fs.StringVar(&o.color, "color", "auto", "")
	fs.BoolVar(&o.noCache, "no-cache", false, "")
	fs.BoolVar(&o.wide, "wide", os.Getenv("WIDE") != "", "")
}

// check validates the flags together.
func (o *gradeOptions) check() error {
	if o.solutions && o.stubs {
		return fmt.Errorf("--solutions and --stubs grade different folders; choose one")
	}
	if o.seed != "" {
		if _, err := strconv.ParseInt(o.seed, 10, 64); err != nil {
			return fmt.Errorf("--seed %q is not a whole number", o.seed)
		}
	}
	if o.runs != "" {
		if n, err := strconv.Atoi(o.runs); err != nil || n <= 0 {
			return fmt.Errorf("--runs %q is not a positive whole number", o.runs)
		}
	}
	if o.minScore != "" {
		if _, _, err := parseMinScore(o.minScore); err != nil {
			return err
		}
	}
	switch o.color {
	case "auto", "always", "never":
	default:
		return fmt.Errorf("--color %q: use auto, always or never", o.color)
	}
	if o.timeout <= 0 {
		return fmt.Errorf("--timeout must be positive")
	}
	return nil
}

// checkMinScore refuses a --min-score the chapters to grade can never
// reach: above 100%, or above their points. The score is the core
// chapters'; a bonus chapter's points never count toward it.
func (o *gradeOptions) checkMinScore(chs []course.Chapter) error {
	if o.minScore == "" || o.stubs {
		return nil
	}
	v, pct, _ := parseMinScore(o.minScore)
	max := 0
	for _, ch := range chs {
		if !ch.Bonus {
			max += ch.Points()
		}
	}
	switch {
	case pct && v > 100:
		return fmt.Errorf("--min-score %s is above 100%%: no score can reach it", o.minScore)
	case !pct && v > float64(max):
		return fmt.Errorf("--min-score %s is above the %d points the chapters graded are worth: no score can reach it", o.minScore, max)
	}
	return nil
}

func (o *gradeOptions) source() result.Source {
	switch {
	case o.solutions:
		return result.Solutions
	case o.stubs:
		return result.Stubs
	}
	return result.Exercises
}

// timelineEnv is the suites' environment as far as timelines go: lanes each
// as wide as their own longest cell with --wide, else fitted to the width
// the report leaves them: the terminal's (COLUMNS when it says it, else the
// terminal's own width) less the indent the report puts before a timeline
// (see sim.TerminalWidth).
func timelineEnv(env []string, wide bool, width int) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "COLUMNS="); ok && !wide {
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				width = n
				continue
			}
		}
		out = append(out, kv)
	}
	if wide {
		return append(out, "ONEHISTORY_TIMELINE=wide")
	}
	if width > render.StoryIndent {
		out = append(out, "COLUMNS="+strconv.Itoa(width-render.StoryIndent))
	}
	return out
}

// parseMinScore reads "40" (points) or "70%" (of the maximum).
func parseMinScore(s string) (float64, bool, error) {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || v < 0 {
		return 0, false, fmt.Errorf("--min-score %q: give points (40) or a percentage (70%%)", s)
	}
	return v, pct, nil
}

// gradeCmd is `grader [flags] [exNN...]`.
func gradeCmd(wb workbook.Workbook, args []string, stdout, stderr io.Writer) int {
	run, err := setUp("grader", args)
	if err == nil {
		err = run.opts.checkMinScore(run.chapters)
	}
	if err == nil {
		run.goCmd, err = goCommand()
	}
	if err == nil {
		err = engine.CheckGo(context.Background(), engine.Options{Root: wb.Root, Go: run.goCmd})
	}
	if err != nil {
		return fail(stderr, "%v", err)
	}
	o, goCmd, chs, ids := run.opts, run.goCmd, run.chapters, run.ids

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return grade(ctx, wb, o, goCmd, chs, len(ids) > 0, stdout, stderr)
}

// gradeRun is what grade and watch share before they grade: the flags, the
// chapters named on the command line (all of them when none is) and the go
// command that builds them (set by the caller).
type gradeRun struct {
	opts     gradeOptions
	ids      []string
	chapters []course.Chapter
	goCmd    string
}

// setUp parses a grading command's flags and arguments, as the command
// named name, and finds its chapters. The go command is looked up after,
// so that a flag no run could satisfy is told first.
func setUp(name string, args []string) (gradeRun, error) {
	var r gradeRun
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	r.opts.flags(fs)
	var err error
	if r.ids, err = parse(fs, args); err != nil {
		return r, err
	}
	if err = r.opts.check(); err != nil {
		return r, err
	}
	r.chapters, err = chapters(r.ids)
	return r, err
}

// grade runs one grading pass and reports it: JSON, or the chapters in full
// when verbose, or the summary; and the JUnit file when asked. It returns the
// exit status.
func grade(ctx context.Context, wb workbook.Workbook, o gradeOptions, goCmd string, chs []course.Chapter, verbose bool, stdout, stderr io.Writer) int {
	width := reportWidth(os.Getenv("COLUMNS"), terminalWidth(stdout))
	pal := render.NewPalette(render.ColorWanted(o.color, terminal(stdout), os.Getenv("NO_COLOR"), os.Getenv("TERM"))).Fitting(width)
	opts := engine.Options{
		Root: wb.Root, Go: goCmd, Source: o.source(),
		Seed: o.seed, Runs: o.runs, Timeout: o.timeout, Parallel: o.parallel,
		Pristine: pristineOf, SkipImportCheck: skipImportCheck,
		Env: timelineEnv(os.Environ(), o.wide, terminalWidth(stdout)),
		// Every process this program starts while it grades, the engine
		// starts: it may take any other child for one a test binary left.
		Reap: true,
	}
	if o.noCache {
		opts.CacheDir = "off"
	}
	var collected *result.Collection
	if opts.Source == result.Exercises {
		var err error
		if collected, opts.Refused, err = lastCollected(wb); err != nil {
			return fail(stderr, "%v", err)
		}
	}
	var progress *render.Progress
	if !o.json && terminal(stdout) {
		progress = render.NewProgress(stdout, len(chs))
		opts.Started, opts.Finished = progress.Started, progress.Finished
	}
	started := time.Now()
	rep := engine.Grade(ctx, opts, chs)
	rep.Collected = collected
	rep.Graded = provenance(wb, collected, started)
	if progress != nil {
		progress.Done()
	}
	if ctx.Err() != nil {
		return fail(stderr, "interrupted")
	}

	if o.junit != "" {
		if err := writeFile(o.junit, func(w io.Writer) error { return render.JUnit(w, rep) }); err != nil {
			return fail(stderr, "cannot write the JUnit report: %v", err)
		}
	}
	switch {
	case o.json:
		if err := render.JSON(stdout, rep); err != nil {
			return fail(stderr, "%v", err)
		}
	case verbose:
		for i, ch := range rep.Chapters {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			render.Verbose(stdout, ch, pal)
			if where := whereToWork(wb, ch, o.source(), width); where != "" {
				fmt.Fprintln(stdout, pal.Dim(where))
			}
		}
	default:
		render.Summary(stdout, rep, pal)
	}
	return verdict(o, rep, stdout, stderr)
}

// verdict is the exit status: success when every chapter asked for passes,
// or, with --min-score, when the score reaches it; for --stubs, when every
// stub shows its chapter's named failure.
func verdict(o gradeOptions, rep *result.Report, stdout, stderr io.Writer) int {
	if o.stubs {
		problems := stubProblems(rep)
		if !o.json {
			fmt.Fprintln(stdout)
			for _, p := range problems {
				fmt.Fprintln(stdout, "stub check:", p)
			}
			if len(problems) == 0 {
				fmt.Fprintf(stdout, "stub check: every stub shows its chapter's named failure (%d chapters)\n", len(rep.Chapters))
			}
		}
		if len(problems) > 0 {
			return exitFailed
		}
		return exitOK
	}
	if o.minScore != "" {
		v, pct, _ := parseMinScore(o.minScore)
		need := v
		if pct {
			need = v / 100 * float64(rep.Max)
		}
		if float64(rep.Points) >= need {
			return exitOK
		}
		fmt.Fprintf(stderr, "grader: score %d/%d is below --min-score %s\n", rep.Points, rep.Max, o.minScore)
		return exitFailed
	}
	if rep.AllPass() {
		return exitOK
	}
	return exitFailed
}

// stubProblems lists each pristine stub that does not show its chapter's
// named failure: the stub must fail its suite, and at least one failed check
// must report the failure the registry names. It is what `make test` asks
// of every stub.
func stubProblems(rep *result.Report) []string {
	var out []string
	for _, ch := range rep.Chapters {
		want := namedFailure(ch.ID)
		if ch.Status == result.Pass {
			out = append(out, fmt.Sprintf("%s: the pristine stub passes its suite; it must fail with %q", ch.ID, want))
			continue
		}
		if ch.Problem != nil {
			out = append(out, fmt.Sprintf("%s: the pristine stub must fail with %q, but: %s", ch.ID, want, ch.Problem.Summary))
			continue
		}
		found := false
		var seen []string
		for _, c := range ch.Checks {
			for _, f := range c.Failures {
				found = found || f.Name == want
				seen = append(seen, c.Name+": "+f.Name)
			}
		}
		if !found {
			out = append(out, fmt.Sprintf("%s: the pristine stub must fail with %q; its failures were %v", ch.ID, want, seen))
		}
	}
	return out
}

// lastCollected is what the last grader collect in wb remembered, for the
// report, and the problem of each chapter it refused, for the engine: nil
// and nil when no collect was made there.
func lastCollected(wb workbook.Workbook) (*result.Collection, map[string]result.Problem, error) {
	c, ok, err := wb.LastCollected()
	if err != nil || !ok {
		return nil, nil, err
	}
	col := &result.Collection{From: c.From, Repository: c.Repository, Commit: c.Commit}
	refused := map[string]result.Problem{}
	for _, r := range c.Refused {
		col.Refused = append(col.Refused, result.Refusal{Chapter: r.Chapter, Path: r.Path, Reason: r.Reason})
		p, seen := refused[r.Chapter]
		if !seen {
			p = result.Problem{Kind: result.Forbidden, Summary: r.String(), File: r.Path,
				Output: "grader collect copied nothing of this chapter from " + c.From + ", for it refused:"}
		}
		p.Output += "\n  " + r.String()
		refused[r.Chapter] = p
	}
	return col, refused, nil
}

// writeFile writes a report file through render.
func writeFile(name string, write func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// namedFailure is the failure the registry says a chapter's stub must show.
func namedFailure(id string) string {
	ch, _ := lookup(id)
	return ch.Failure
}

// reportWidth is the width the report fits: COLUMNS when it says one, else
// the terminal's, else 0 (unknown).
func reportWidth(columns string, terminal int) int {
	if n, err := strconv.Atoi(columns); err == nil && n > 0 {
		return n
	}
	return terminal
}

// whereToWork is the line under a chapter that does not pass yet: the
// files to edit and the page to read, "edit exercises/ex03-…/drill.go ·
// read book/ex03-….md", on two lines or more where one would not fit
// width. Files the harness gives whole (the chapter's Given) are not named.
// It is empty for a chapter that passes, or when grading anything
// but exercises/.
func whereToWork(wb workbook.Workbook, ch result.Chapter, src result.Source, width int) string {
	c, ok := lookup(ch.ID)
	if !ok || src != result.Exercises || ch.Status == result.Pass {
		return ""
	}
	var files []string
	if p := ch.Problem; p != nil && p.File != "" {
		files = append(files, p.File) // where the compiler or the panic points
	} else {
		entries, _ := os.ReadDir(wb.Path(c.Dir()))
		var names []string
		for _, e := range entries {
			if n := e.Name(); course.IsStubFile(n) && n != "doc.go" && !slices.Contains(c.Given, n) {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			return ""
		}
		files = append(files, c.Dir()+"/"+strings.Join(names, ", "))
	}
	edit, read := "edit "+strings.Join(files, ", "), "read "+c.BookPage()
	if width > 0 && len([]rune(edit))+3+len(read) > width {
		// Each on its own line, and a list of files too long for one
		// broken between them.
		return render.WrapLines(edit, width) + "\n" + read
	}
	return edit + " · " + read
}
