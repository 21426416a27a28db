package engine

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"onehistory/grader/internal/result"
	"onehistory/grader/internal/workbook"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/suite"
	"onehistory/internal/harness/verdict"
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
	// Workers is how many worlds each chapter's suite plays at once: the
	// GOMAXPROCS its test binary runs with (suite.Workers). The default
	// is the grader's GOMAXPROCS over the chapters run at once, at least
	// 1: a chapter graded alone uses every CPU, and chapters graded side
	// by side one each. What a suite reports is the same whatever it is.
	Workers   int
	MaxOutput int      // output bytes kept per chapter (default DefaultMaxOutput)
	Env       []string // the environment for go test (default os.Environ())

	// CacheDir is where results are cached (see cache.go): "" for the
	// default, a folder of the go command's build cache; "off" for none.
	CacheDir string

	// SkipImportCheck grades without checking the chapter's code against
	// the world's rules first (package rules, see guard.go). It exists for
	// the grader's own tests, which show that the other defences hold on
	// their own; grading never uses it.
	SkipImportCheck bool

	// Refused are the chapters whose files grader collect refused (a
	// symbolic link, a file that is not a regular one): chapter ID → the
	// problem to report, of kind result.Forbidden. Such a chapter scores 0
	// and is neither built nor run.
	Refused map[string]result.Problem

	// Reap, on Linux, makes this process a child subreaper while it
	// grades: a process a test binary started that left the binary's
	// process group, and so escaped its kill, is handed to this process
	// when its parent dies, and once each binary has ended every such
	// process is killed (see reap.go). It changes the whole process, whose
	// children the engine did not start it takes for adopted ones and
	// kills: only a program whose every other child the engine started
	// (the grader command) may set it.
	Reap bool

	// fileChannel makes the verdict channel the file channel that systems
	// without open files passed to a child use, for the engine's own tests.
	fileChannel bool

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

// workers sets the default Workers for grading n chapters: the CPUs over
// the chapters that run at once.
func (o *Options) workers(n int) {
	if o.Workers <= 0 {
		o.Workers = max(runtime.GOMAXPROCS(0)/max(min(o.Parallel, n), 1), 1)
	}
}

// Grade grades the chapters and returns the report with its totals. It
// works in two phases: it builds every chapter's test binary (with one go
// command, see build.go), and only once all are built runs them (at most
// Parallel at once). So no chapter's code runs while another chapter is still to be
// built: nothing it does to the files on disk changes how another chapter
// is graded. Canceling ctx kills every build and test still running.
func Grade(ctx context.Context, opts Options, chapters []course.Chapter) *result.Report {
	opts.defaults()
	opts.workers(len(chapters))
	if opts.Reap {
		defer adopt()()
	}
	start := time.Now()
	rep := &result.Report{Source: opts.Source, Seed: opts.Seed, Runs: opts.Runs, Chapters: make([]result.Chapter, len(chapters))}
	units := make([]*unit, len(chapters))
	var notify sync.Mutex
	if opts.Started != nil {
		for _, ch := range chapters {
			opts.Started(ch)
		}
	}
	checked := checkRulesAside(ctx, opts, chapters)
	parallel(opts.Parallel, len(chapters), func(i int) { units[i] = prepare(ctx, opts, chapters[i]) })
	buildAll(ctx, opts, units)
	applyRules(units, <-checked)
	parallel(opts.Parallel, len(chapters), func(i int) {
		rep.Chapters[i] = units[i].run(ctx, opts)
		units[i].close()
		if opts.Finished != nil {
			notify.Lock()
			opts.Finished(rep.Chapters[i])
			notify.Unlock()
		}
	})
	rep.Duration = time.Since(start)
	rep.Tally()
	return rep
}

// parallel calls f(0) ... f(n-1), at most width at once, and returns when
// all have returned.
func parallel(width, n int, f func(i int)) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(width, 1))
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			f(i)
		}()
	}
	wg.Wait()
}

// Chapter grades one chapter: it builds the chapter's test binary over the
// grader's overlay, runs it within the time limits, and classifies what the
// hidden suite reported.
func Chapter(ctx context.Context, opts Options, ch course.Chapter) result.Chapter {
	opts.defaults()
	opts.workers(1)
	if opts.Reap {
		defer adopt()()
	}
	checked := checkRulesAside(ctx, opts, []course.Chapter{ch})
	u := prepare(ctx, opts, ch)
	defer u.close()
	buildAll(ctx, opts, []*unit{u})
	applyRules([]*unit{u}, <-checked)
	return u.run(ctx, opts)
}

// unit is one chapter on its way through the engine: prepare builds its
// test binary (or decides its result: a missing folder, a forbidden import,
// a compile error), run runs it.
type unit struct {
	ch       course.Chapter
	dir      string // the folder graded, relative to the root, slash-separated
	absDir   string
	tmp      string // the grader's own folder for the chapter: the overlay, the binary
	bin      string // the test binary
	pristine map[string]string
	conv     string  // the go command's test2json
	ov       string  // the overlay file, once prepare has written it: the chapter is to be built
	overlay  overlay // what that file holds
	start    time.Time
	done     *result.Chapter // the result, when prepare or its build already decided it
	ownTests []string        // the learner's own test files in the folder (result.Chapter.OwnTests)

	ruled bool // prepare found the folder fit for the world's rules to judge
}

func (u *unit) close() {
	if u.tmp != "" {
		os.RemoveAll(u.tmp)
	}
}

// finish decides u's result as an error of the given kind.
func (u *unit) finish(kind result.ProblemKind, summary, output string) *unit {
	u.done = &result.Chapter{
		ID: u.ch.ID, Title: u.ch.Title, Dir: u.dir, Clauses: u.ch.Clauses, Bonus: u.ch.Bonus, Max: u.ch.Points(),
		Status:   result.Error,
		Checks:   notRun(u.ch),
		Problem:  &result.Problem{Kind: kind, Summary: summary, Output: output},
		Duration: time.Since(u.start),
	}
	return u
}

// prepare checks the chapter's folder and writes the grader's overlay for
// it; buildAll then builds its test binary, while the world's rules read
// the same code (checkRulesAside), and applyRules then refuses what breaks
// them: nothing of a refused chapter runs. Code the rules could not read
// is refused if it builds (a compile error is told as one).
func prepare(ctx context.Context, opts Options, ch course.Chapter) *unit {
	u := &unit{ch: ch, dir: folder(opts, ch), start: time.Now()}
	u.absDir = filepath.Join(opts.Root, filepath.FromSlash(u.dir))
	if p, refused := opts.Refused[ch.ID]; refused && opts.Source == result.Exercises {
		u.finish(p.Kind, p.Summary, p.Output)
		u.done.Problem.File = p.File
		return u
	}
	if _, err := os.Stat(u.absDir); err != nil {
		hint := ""
		if opts.Source == result.Exercises {
			hint = fmt.Sprintf("; grader reset %s restores the stub", ch.ID)
		}
		return u.finish(result.Setup, fmt.Sprintf("the folder %s is missing%s", u.dir, hint), "")
	}
	if opts.Source == result.Exercises {
		u.ownTests = ownTests(u.absDir, u.dir, ch)
	}
	u.pristine = opts.Pristine(ch)
	if opts.Source == result.Stubs && len(u.pristine) == 0 {
		return u.finish(result.Setup, "no pristine stub is stored for "+ch.ID+"; run go generate ./internal/harness/course", "")
	}
	if !opts.SkipImportCheck {
		if p := foreignFiles(u.absDir, u.dir); p != nil {
			return u.refuse(p)
		}
		u.ruled = true
	}
	conv, err := converter(ctx, opts)
	if err != nil {
		return u.finish(result.Setup, err.Error(), "")
	}
	u.conv = conv

	u.tmp, err = os.MkdirTemp("", "onehistory-grade-"+ch.ID+"-")
	if err != nil {
		return u.finish(result.Setup, err.Error(), "")
	}
	u.overlay, u.ov, err = writeOverlay(u.tmp, u.absDir, ch, opts.Source, u.pristine)
	if err != nil {
		return u.finish(result.Setup, err.Error(), "")
	}
	u.bin = filepath.Join(u.tmp, ch.ID+".test"+exeSuffix())
	return u
}

// build builds u's test binary on its own, with `go test -c` over the
// grader's overlay, into the workbook's build folder (see buildAll), and
// decides u's result when it does not build.
//
// -trimpath keeps the checkout's location out of the build: the build
// cache serves any copy of the workbook, wherever it sits (the grader's own
// tests grade copies in temporary folders), and stack traces name files by
// module path ("onehistory/exercises/...").
func (u *unit) build(ctx context.Context, opts Options) {
	cmd := exec.Command(opts.Go, "test", "-c", "-o", u.kept(opts), "-vet=off", "-trimpath", "-overlay="+u.ov, "./"+u.dir+"/")
	cmd.Dir = opts.Root
	cmd.Env = environment(opts)
	out := newCapped(64 << 10)
	w := writerFunc(func(p []byte) (int, error) { out.WriteString(string(p)); return len(p), nil })
	cmd.Stdout, cmd.Stderr = w, w
	ownGroup(cmd)
	if err := procs.start(cmd); err != nil {
		u.finish(result.Setup, fmt.Sprintf("cannot run %s: %v", opts.Go, err), "")
		return
	}
	dog := watch(ctx, cmd, opts.BuildLimit)
	err := procs.wait(cmd)
	dog.release()
	u.built(ctx, opts, out.String(), err, dog.fired())
}

// built decides u's result from its build: the go command's output for
// it, the error it ended with, and whether the time limit killed it. A
// binary that built is linked where run finds it.
func (u *unit) built(ctx context.Context, opts Options, output string, err error, wasKilled bool) {
	text := strings.ReplaceAll(output, u.tmp+string(filepath.Separator), u.dir+"/")
	switch {
	case wasKilled && ctx.Err() != nil:
		u.finish(result.Setup, "grading was interrupted", "")
	case wasKilled:
		u.finish(result.Hang, fmt.Sprintf("the build took longer than %s", opts.BuildLimit), text)
		u.done.Status = result.Timeout
	case err != nil && compilerLine.MatchString(firstCompilerLine(text)):
		p := compileProblem(text, u.dir)
		u.finish(p.Kind, p.Summary, p.Output)
		u.done.Problem.File, u.done.Problem.Line = p.File, p.Line
	case err != nil:
		first := firstLine(text)
		if first == "" {
			first = fmt.Sprintf("%s test -c failed (%v) and said nothing", opts.Go, err)
		}
		u.finish(result.Setup, "the go command could not build the test: "+first, text)
	default:
		if err := linkOrCopy(u.kept(opts), u.bin); err != nil {
			u.finish(result.Setup, "the test binary the go command built: "+err.Error(), "")
		}
	}
}

// refuse decides u's result as a refusal: nothing of it runs.
func (u *unit) refuse(p *result.Problem) *unit {
	u.finish(p.Kind, p.Summary, p.Output)
	u.done.Problem.Rule, u.done.Problem.File, u.done.Problem.Line = p.Rule, p.File, p.Line
	return u
}

// firstCompilerLine is the first line of a build's output that looks like a
// compiler error, or "".
func firstCompilerLine(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if compilerLine.MatchString(line) {
			return line
		}
	}
	return ""
}

func firstLine(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return ""
}

// run runs u's test binary, in a process group of its own, with the hidden
// suite's private verdict channel open; test2json turns its output into
// events for the story. When the binary ends, its process group is killed,
// so nothing it started outlives it; with opts.Reap, neither does a process
// that left the group.
func (u *unit) run(ctx context.Context, opts Options) result.Chapter {
	if u.done != nil {
		u.done.Duration = time.Since(u.start)
		u.done.Command = command(opts, u.ch, u.dir)
		u.done.OwnTests = u.ownTests
		return *u.done
	}
	cacheDir := resultCacheDir(ctx, opts)
	key := ""
	if cacheDir != "" {
		key = cacheKey(u.bin, opts, u.ch.TestName())
		if res, ok := loadCached(cacheDir, key, opts.Root); ok {
			res.Dir, res.Duration = u.dir, time.Since(u.start)
			return u.settle(opts, res)
		}
	}
	secret, err := newKey()
	if err != nil {
		return *u.finish(result.Setup, err.Error(), "").done
	}
	ch, err := newVerdictChannel(u.tmp, secret, opts.fileChannel)
	if err != nil {
		return *u.finish(result.Setup, err.Error(), "").done
	}
	defer ch.close()
	outR, outW, err := os.Pipe()
	if err != nil {
		return *u.finish(result.Setup, err.Error(), "").done
	}

	// test2json reads the binary's output (both streams, as go test
	// merges them) from the pipe and writes events.
	conv := exec.Command(u.conv)
	conv.Stdin = outR
	events, err := conv.StdoutPipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return *u.finish(result.Setup, err.Error(), "").done
	}
	convErr := newCapped(16 << 10)
	conv.Stderr = writerFunc(func(p []byte) (int, error) { convErr.WriteString(string(p)); return len(p), nil })
	if err := procs.start(conv); err != nil {
		outR.Close()
		outW.Close()
		return *u.finish(result.Setup, fmt.Sprintf("cannot run test2json: %v", err), "").done
	}
	outR.Close()

	bin := exec.Command(u.bin, "-test.v=test2json", "-test.run=^"+u.ch.TestName()+"$", "-test.timeout="+opts.Timeout.String())
	bin.Dir = u.absDir
	bin.Env = append(workersEnv(environment(opts), opts.Workers), ch.env())
	bin.Stdout, bin.Stderr = outW, outW
	bin.ExtraFiles = ch.extra()
	ownGroup(bin)
	startErr := procs.start(bin)
	outW.Close()
	ch.started()
	if startErr != nil {
		procs.wait(conv)
		return *u.finish(result.Setup, fmt.Sprintf("cannot run the test binary: %v", startErr), "").done
	}

	dog := watch(ctx, bin, opts.Timeout+grace)

	rec := newRecord(opts.MaxOutput)
	v := newVerdicts(secret)
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); rec.read(events) }()
	go func() { defer readers.Done(); ch.read(v) }()

	waitErr := procs.wait(bin)
	dog.release() // whatever the binary started dies with it
	if opts.Reap {
		sweep(bin.Process.Pid) // and so does whatever left its group
	}
	ch.ended()
	// The readers end when the last writer is gone; a process that left
	// the group (and was not swept) could hold a pipe open, so they get a
	// little time, no more.
	drained := make(chan struct{})
	go func() { readers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainLimit):
		if conv.Process != nil {
			conv.Process.Kill()
		}
		ch.close()
		<-drained
	}
	procs.wait(conv)

	wasKilled := dog.fired()
	if wasKilled && ctx.Err() != nil {
		return *u.finish(result.Setup, "grading was interrupted", "").done
	}
	res := classify(u.ch, u.dir, u.absDir, rec, v, outcome{
		killed:   wasKilled,
		limit:    opts.Timeout,
		exitErr:  waitErr,
		stderr:   convErr.String(),
		duration: time.Since(u.start),
	})
	if res.Problem != nil {
		// The canonical test file lives in tmp; name it as the learner sees it.
		res.Problem.Summary = strings.ReplaceAll(res.Problem.Summary, u.tmp+string(filepath.Separator), u.dir+"/")
		res.Problem.Output = strings.ReplaceAll(res.Problem.Output, u.tmp+string(filepath.Separator), u.dir+"/")
		res.Problem.File = strings.ReplaceAll(res.Problem.File, filepath.ToSlash(u.tmp)+"/", u.dir+"/")
	}
	storeCached(cacheDir, key, opts.Root, res)
	return u.settle(opts, res)
}

// settle finishes a chapter's result: untouched work is not started, and
// the command that reruns it.
func (u *unit) settle(opts Options, res result.Chapter) result.Chapter {
	if opts.Source == result.Exercises && (res.Status == result.Fail || res.Status == result.Error && res.Problem != nil && res.Problem.Kind == result.Panic) &&
		workbook.Unchanged(u.absDir, u.pristine) {
		// Untouched work earns nothing, even where the stub happens to pass
		// a check by itself: the checks keep their statuses, not the points.
		res.Status = result.NotStarted
		res.Points = 0
		for i := range res.Checks {
			res.Checks[i].Points = 0
		}
	}
	res.Command = command(opts, u.ch, u.dir)
	res.OwnTests = u.ownTests // after the cache: a result stored does not know the folder's files
	return res
}

// drainLimit is how long the grader waits, after the test binary and its
// process group are gone, for the pipes to reach their end.
var drainLimit = 5 * time.Second

// newKey is a fresh key for one run's verdict channel. The engine's tests
// replace it to learn the key and show that the chapter's code cannot.
var newKey = func() ([]byte, error) {
	b := make([]byte, verdict.KeySize)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return b, nil
}

// CheckGo reports whether opts.Go works well enough to grade with, as an
// error that says what is wrong with it.
func CheckGo(ctx context.Context, opts Options) error {
	opts.defaults()
	_, err := converter(ctx, opts)
	return err
}

// converters caches the path of test2json per go command.
var converters sync.Map

// converter is the path of the go command's test2json (go tool -n
// test2json, which builds it once if the toolchain does not ship it). A go
// command that cannot say is broken: the error says so.
//
// Asking takes the go command a tenth of a second, a tenth of grading one
// chapter, so the answer is also kept on disk, beside the result cache,
// for the same go command and toolchain, and used while the file it names
// is there.
func converter(ctx context.Context, opts Options) (string, error) {
	if d, ok := converters.Load(opts.Go); ok {
		return d.(string), nil
	}
	memo := converterMemo(ctx, opts)
	if memo != "" {
		if data, err := os.ReadFile(memo); err == nil {
			if path := strings.TrimSpace(string(data)); filepath.IsAbs(path) {
				if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
					converters.Store(opts.Go, path)
					return path, nil
				}
			}
		}
	}
	cmd := exec.CommandContext(ctx, opts.Go, "tool", "-n", "test2json")
	cmd.Dir = opts.Root
	cmd.Env = environment(opts)
	out, err := output(cmd, true)
	path := strings.TrimSpace(string(out))
	if err != nil || path == "" || strings.Contains(path, "\n") {
		why := firstLine(string(out))
		if why == "" && err != nil {
			why = err.Error()
		}
		if why == "" {
			why = "it printed nothing"
		}
		return "", fmt.Errorf("the go command %s does not work: go tool -n test2json: %s", opts.Go, why)
	}
	converters.Store(opts.Go, path)
	if memo != "" && os.MkdirAll(filepath.Dir(memo), 0o755) == nil {
		_ = os.WriteFile(memo, []byte(path+"\n"), 0o644)
	}
	return path, nil
}

// converterMemo is the file that keeps converter's answer for opts.Go: in
// the go command's build cache, named by the toolchain it answers for, or
// "" when there is none.
func converterMemo(ctx context.Context, opts Options) string {
	cmd := exec.CommandContext(ctx, opts.Go, "env", "GOCACHE", "GOVERSION", "GOOS", "GOARCH", "GOTOOLDIR")
	cmd.Dir = opts.Root
	cmd.Env = environment(opts)
	out, err := output(cmd, false)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) != 5 || !filepath.IsAbs(lines[0]) {
		return ""
	}
	sum := sha256.Sum256([]byte(opts.Go + "\x00" + strings.Join(lines[1:], "\x00")))
	return filepath.Join(lines[0], "onehistory-grader", "test2json-"+hex.EncodeToString(sum[:8]))
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
		if strings.HasPrefix(kv, "SEED=") || strings.HasPrefix(kv, "RUNS=") || strings.HasPrefix(kv, "GOWORK=") ||
			strings.HasPrefix(kv, suite.PicturesEnv+"=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GOWORK=off")
	if dir := picturesDir(opts); dir != "" {
		env = append(env, suite.PicturesEnv+"="+dir)
	}
	if opts.Seed != "" {
		env = append(env, "SEED="+opts.Seed)
	}
	if opts.Runs != "" {
		env = append(env, "RUNS="+opts.Runs)
	}
	return env
}

// workersEnv is env for a chapter's test binary that plays workers worlds
// at once (suite.Workers): GOMAXPROCS=workers when more than one; with
// one, no GOMAXPROCS at all (the grader's own does not leak through), so
// that suite.Run holds the suite to one processor, as it always has.
func workersEnv(env []string, workers int) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GOMAXPROCS=") {
			out = append(out, kv)
		}
	}
	if workers > 1 {
		out = append(out, "GOMAXPROCS="+strconv.Itoa(workers))
	}
	return out
}

// picturesDir is where the suites draw the failures of the stubs or the
// solutions (.onehistory/stubs/, .onehistory/solutions/), so that grading
// them never replaces a learner's pictures; "" for the learner's own work,
// drawn in .onehistory/.
func picturesDir(opts Options) string {
	if opts.Source == result.Exercises || opts.Source == "" {
		return ""
	}
	return filepath.Join(opts.Root, ".onehistory", string(opts.Source))
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
