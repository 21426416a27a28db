package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"onehistory/grader/internal/result"
	"onehistory/grader/internal/workbook"
	"onehistory/internal/harness/course"
)

// DefaultTimeout is how long one chapter's test binary may run before it is
// reported as hung. A whole hidden suite takes well under a second; the
// margin is for slow machines and wide RUNS.
const DefaultTimeout = 60 * time.Second

// DefaultBuildLimit bounds a chapter's whole go test process, build included,
// so that nothing the grader starts can outlive it by much.
const DefaultBuildLimit = 10 * time.Minute

// grace is how long after its own -timeout the test binary gets to print the
// timeout panic before the grader kills its process group.
var grace = 3 * time.Second

// DefaultMaxOutput caps the output kept per chapter.
const DefaultMaxOutput = 256 << 10

// Options say what to grade and how.
type Options struct {
	Root   string        // the module root, absolute
	Go     string        // the go command
	Source result.Source // which folders: the exercises (default), the solutions, or the pristine stubs
	Seed   string        // passed to the suites as SEED, if set: replay one world
	Runs   string        // passed to the suites as RUNS, if set: widen the randomized checks

	Timeout    time.Duration // per chapter, for the test binary (default DefaultTimeout)
	BuildLimit time.Duration // per chapter, for everything (default DefaultBuildLimit)
	Parallel   int           // chapters at once (default GOMAXPROCS)
	MaxOutput  int           // output bytes kept per chapter (default DefaultMaxOutput)
	Env        []string      // the environment for go test (default os.Environ())

	// Pristine returns a chapter's stub as shipped (default
	// course.Chapter.Pristine). It decides "not started" and is the stub
	// the Stubs source grades.
	Pristine func(course.Chapter) map[string]string

	// Started and Finished, if set, are called as chapters begin and end,
	// from the goroutine grading the chapter, one call at a time.
	Started  func(course.Chapter)
	Finished func(result.Chapter)
}

func (o *Options) defaults() {
	if o.Source == "" {
		o.Source = result.Exercises
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.BuildLimit <= 0 {
		o.BuildLimit = DefaultBuildLimit
	}
	if o.Parallel <= 0 {
		o.Parallel = runtime.GOMAXPROCS(0)
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	if o.Pristine == nil {
		o.Pristine = course.Chapter.Pristine
	}
}

// Grade grades the chapters, at most Parallel at once, and returns the
// report with its totals. Canceling ctx kills every test still running.
func Grade(ctx context.Context, opts Options, chapters []course.Chapter) *result.Report {
	opts.defaults()
	start := time.Now()
	rep := &result.Report{Source: opts.Source, Seed: opts.Seed, Runs: opts.Runs, Chapters: make([]result.Chapter, len(chapters))}
	var (
		wg     sync.WaitGroup
		notify sync.Mutex
		slots  = make(chan struct{}, opts.Parallel)
	)
	for i, ch := range chapters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			if opts.Started != nil {
				notify.Lock()
				opts.Started(ch)
				notify.Unlock()
			}
			rep.Chapters[i] = Chapter(ctx, opts, ch)
			if opts.Finished != nil {
				notify.Lock()
				opts.Finished(rep.Chapters[i])
				notify.Unlock()
			}
		}()
	}
	wg.Wait()
	rep.Duration = time.Since(start)
	rep.Tally()
	return rep
}

// Chapter grades one chapter: it runs the chapter's hidden suite as its own
// `go test -json` process over the grader's overlay, within the time limits,
// and classifies what the process reported.
func Chapter(ctx context.Context, opts Options, ch course.Chapter) result.Chapter {
	opts.defaults()
	start := time.Now()
	dir := ch.Dir()
	if opts.Source == result.Solutions {
		dir = ch.SolutionDir()
	}
	absDir := filepath.Join(opts.Root, filepath.FromSlash(dir))
	fail := func(kind result.ProblemKind, summary string) result.Chapter {
		return result.Chapter{
			ID: ch.ID, Title: ch.Title, Dir: dir, Clauses: ch.Clauses, Max: ch.Points(),
			Status:   result.Error,
			Checks:   notRun(ch),
			Problem:  &result.Problem{Kind: kind, Summary: summary},
			Duration: time.Since(start),
		}
	}
	if _, err := os.Stat(absDir); err != nil {
		hint := ""
		if opts.Source == result.Exercises {
			hint = fmt.Sprintf("; grader reset %s restores the stub", ch.ID)
		}
		return fail(result.Setup, fmt.Sprintf("the folder %s is missing%s", dir, hint))
	}
	pristine := opts.Pristine(ch)
	if opts.Source == result.Stubs && len(pristine) == 0 {
		return fail(result.Setup, "no pristine stub is stored for "+ch.ID+"; run go generate ./internal/harness/course")
	}

	tmp, err := os.MkdirTemp("", "onehistory-grade-"+ch.ID+"-")
	if err != nil {
		return fail(result.Setup, err.Error())
	}
	defer os.RemoveAll(tmp)
	ov, err := writeOverlay(tmp, absDir, ch, opts.Source, pristine)
	if err != nil {
		return fail(result.Setup, err.Error())
	}

	// -trimpath keeps the checkout's location out of the build: the build
	// cache serves any copy of the workbook, wherever it sits (the grader's
	// own tests grade copies in temporary folders), and stack traces name
	// files by module path ("onehistory/exercises/...").
	args := []string{"test", "-json", "-vet=off", "-trimpath", "-overlay=" + ov,
		"-run=^" + ch.TestName() + "$", "-timeout=" + opts.Timeout.String(), "./" + dir + "/"}
	cmd := exec.Command(opts.Go, args...)
	cmd.Dir = opts.Root
	cmd.Env = environment(opts)
	ownGroup(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fail(result.Setup, err.Error())
	}
	stderr := newCapped(32 << 10)
	cmd.Stderr = writerFunc(func(p []byte) (int, error) { stderr.WriteString(string(p)); return len(p), nil })
	if err := cmd.Start(); err != nil {
		return fail(result.Setup, fmt.Sprintf("cannot run %s: %v", opts.Go, err))
	}

	// The watchdog: the test binary gets its -timeout plus a grace period
	// from the moment it starts; the whole process gets BuildLimit. Either
	// expiring, or ctx ending, kills the process group.
	var (
		mu     sync.Mutex
		killed bool
		limit  = opts.Timeout
	)
	kill := func() {
		mu.Lock()
		killed = true
		mu.Unlock()
		killGroup(cmd)
	}
	buildTimer := time.AfterFunc(opts.BuildLimit, kill)
	defer buildTimer.Stop()
	var runTimer *time.Timer
	defer func() {
		if runTimer != nil {
			runTimer.Stop()
		}
	}()
	stop := context.AfterFunc(ctx, kill)
	defer stop()

	rec := newRecord(opts.MaxOutput)
	started := false
	rec.onStart = func() {
		if !started {
			started = true
			runTimer = time.AfterFunc(opts.Timeout+grace, kill)
		}
	}
	rec.read(stdout)
	waitErr := cmd.Wait()

	mu.Lock()
	wasKilled := killed
	mu.Unlock()
	if wasKilled && ctx.Err() != nil {
		return fail(result.Setup, "grading was interrupted")
	}
	if wasKilled && !started {
		limit = opts.BuildLimit
	}
	res := classify(ch, dir, absDir, rec, outcome{
		killed:   wasKilled,
		limit:    limit,
		exitErr:  waitErr,
		stderr:   stderr.String(),
		duration: time.Since(start),
	})
	if res.Problem != nil {
		// The canonical test file lives in tmp; name it as the learner sees it.
		res.Problem.Summary = strings.ReplaceAll(res.Problem.Summary, tmp+string(filepath.Separator), dir+"/")
		res.Problem.Output = strings.ReplaceAll(res.Problem.Output, tmp+string(filepath.Separator), dir+"/")
		res.Problem.File = strings.ReplaceAll(res.Problem.File, filepath.ToSlash(tmp)+"/", dir+"/")
	}
	if opts.Source == result.Exercises && res.Status != result.Pass && workbook.Unchanged(absDir, pristine) {
		// Untouched work earns nothing, even where the stub happens to pass
		// a check by itself: the checks keep their statuses, not the points.
		res.Status = result.NotStarted
		res.Points = 0
		for i := range res.Checks {
			res.Checks[i].Points = 0
		}
	}
	res.Command = command(opts, ch, dir)
	return res
}

// notRun lists a chapter's checks, none of them run.
func notRun(ch course.Chapter) []result.Check {
	var cs []result.Check
	for _, k := range ch.Checks {
		cs = append(cs, result.Check{Name: k.Name, Title: k.Title, Max: k.Points, Status: result.NotRun})
	}
	return cs
}

// environment is the go command's environment: the grader's own, with SEED
// and RUNS exactly as the options say, and GOWORK=off, so that a go.work
// file in a folder above the checkout cannot pull the workbook into another
// workspace.
func environment(opts Options) []string {
	env := make([]string, 0, len(opts.Env)+3)
	for _, kv := range opts.Env {
		if strings.HasPrefix(kv, "SEED=") || strings.HasPrefix(kv, "RUNS=") || strings.HasPrefix(kv, "GOWORK=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GOWORK=off")
	if opts.Seed != "" {
		env = append(env, "SEED="+opts.Seed)
	}
	if opts.Runs != "" {
		env = append(env, "RUNS="+opts.Runs)
	}
	return env
}

// command is the make command that reruns the chapter as graded.
func command(opts Options, ch course.Chapter, dir string) string {
	c := "make " + ch.ID
	if opts.Seed != "" {
		c += " SEED=" + opts.Seed
	}
	if opts.Runs != "" {
		c += " RUNS=" + opts.Runs
	}
	return c
}

// writerFunc adapts a function to io.Writer.
type writerFunc func(p []byte) (int, error)

// Write calls f.
func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
