// Package captures keeps the book honest: every failure story, timeline and
// figure a page quotes sits between capture markers, and is refilled from a
// fresh run of the chapter's hidden suite.
//
// A capture is an HTML comment that names what to quote, the quote, and a
// closing comment:
//
//	<!-- capture ex05 stub story seed=3 -->
//	```text
//	...
//	```
//	<!-- /capture -->
//
// The words after "capture" are: the chapter; stub (the pristine stub as
// shipped) or solution (the reference solution); what to quote: story (the
// failure's text: first line, contract, seed and replay, details, the
// visualization's path; no timeline), timeline (the failure's timeline), or
// figure=NAME (a block the suite logged with suite.Figure); then, in any
// order, seed=N (replay that seed, as SEED=N; default: the suite's default
// run) and check=NAME (that check's first failure, or the figure that check
// logged; default: the chapter's first failure, in the registry's order, and
// for a figure, the first check that logged one of that name).
//
// Runs go through the grader's engine, with the canonical test file, at a
// fixed terminal width (Columns), so that the text is the same on every
// machine: `make generate` writes it (Generate, then Write) and the grader's
// tests regenerate it in memory and fail on any difference.
package captures

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"onehistory/grader/internal/engine"
	"onehistory/grader/internal/result"
	"onehistory/internal/harness/course"
)

// Columns is the terminal width captured runs are given (COLUMNS): their
// timelines fit it, whatever the terminal of whoever regenerates them.
const Columns = 160

// Spec is what one capture marker asks for.
type Spec struct {
	Chapter string // "ex05"
	Source  string // "stub" or "solution"
	What    string // "story", "timeline" or "figure"
	Figure  string // the figure's name, for What == "figure"
	Seed    string // "" for the default run
	Check   string // "" for the first failure (or figure) of any check
}

// String is the marker's words, in canonical order.
func (s Spec) String() string {
	w := []string{s.Chapter, s.Source, s.What}
	if s.What == "figure" {
		w[2] = "figure=" + s.Figure
	}
	if s.Seed != "" {
		w = append(w, "seed="+s.Seed)
	}
	if s.Check != "" {
		w = append(w, "check="+s.Check)
	}
	return strings.Join(w, " ")
}

// Run is one run the captures need: a chapter's stub or solution, at a seed.
type Run struct {
	Chapter, Source, Seed string
}

// run is the run a spec quotes.
func (s Spec) run() Run { return Run{s.Chapter, s.Source, s.Seed} }

// Block is one capture on a page.
type Block struct {
	Spec
	Line  int // the opening marker's line, counting from 1
	start int // byte offset of the text between the markers
	end   int // byte offset of the closing marker
}

var (
	openRE  = regexp.MustCompile(`(?m)^<!-- capture ([^>]*?) -->[ \t]*\n`)
	closeRE = regexp.MustCompile(`(?m)^<!-- /capture -->`)
	chapRE  = regexp.MustCompile(`^ex[0-9]{2}$`)
	nameRE  = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
)

// Parse finds the capture blocks of a page. A marker it cannot read, or one
// never closed, is an error naming its line.
func Parse(page string) ([]Block, error) {
	var blocks []Block
	at := 0
	for {
		loc := openRE.FindStringSubmatchIndex(page[at:])
		if loc == nil {
			break
		}
		line := 1 + strings.Count(page[:at+loc[0]], "\n")
		spec, err := parseSpec(page[at+loc[2] : at+loc[3]])
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		start := at + loc[1]
		c := closeRE.FindStringIndex(page[start:])
		if c == nil {
			return nil, fmt.Errorf("line %d: capture %s is never closed with <!-- /capture -->", line, spec)
		}
		if next := openRE.FindStringIndex(page[start : start+c[0]]); next != nil {
			return nil, fmt.Errorf("line %d: capture %s is not closed before the next one opens", line, spec)
		}
		blocks = append(blocks, Block{Spec: spec, Line: line, start: start, end: start + c[0]})
		at = start + c[1]
	}
	return blocks, nil
}

// parseSpec reads the words of a marker.
func parseSpec(words string) (Spec, error) {
	f := strings.Fields(words)
	if len(f) < 3 {
		return Spec{}, fmt.Errorf("capture %q: want: capture exNN stub|solution story|timeline|figure=NAME [seed=N] [check=NAME]", words)
	}
	s := Spec{Chapter: f[0], Source: f[1], What: f[2]}
	if !chapRE.MatchString(s.Chapter) {
		return Spec{}, fmt.Errorf("capture %q: %q is not a chapter (ex01, ex02, ...)", words, s.Chapter)
	}
	if s.Source != "stub" && s.Source != "solution" {
		return Spec{}, fmt.Errorf("capture %q: say stub or solution, not %q", words, s.Source)
	}
	if name, ok := strings.CutPrefix(s.What, "figure="); ok {
		s.What, s.Figure = "figure", name
	}
	if s.What != "story" && s.What != "timeline" && s.What != "figure" {
		return Spec{}, fmt.Errorf("capture %q: quote story, timeline or figure=NAME, not %q", words, f[2])
	}
	if s.What == "figure" && !nameRE.MatchString(s.Figure) {
		return Spec{}, fmt.Errorf("capture %q: %q is not a figure's name", words, s.Figure)
	}
	for _, w := range f[3:] {
		k, v, _ := strings.Cut(w, "=")
		switch {
		case k == "seed" && v != "":
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				return Spec{}, fmt.Errorf("capture %q: seed %q is not a whole number", words, v)
			}
			s.Seed = v
		case k == "check" && nameRE.MatchString(v):
			s.Check = v
		default:
			return Spec{}, fmt.Errorf("capture %q: unknown word %q (seed=N or check=NAME)", words, w)
		}
	}
	return s, nil
}

// Fill rewrites every capture block of page with the text quote gives for
// its spec, fenced as text.
func Fill(page string, quote func(Spec) (string, error)) (string, error) {
	blocks, err := Parse(page)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	at := 0
	for _, blk := range blocks {
		text, err := quote(blk.Spec)
		if err != nil {
			return "", fmt.Errorf("line %d: capture %s: %v", blk.Line, blk.Spec, err)
		}
		b.WriteString(page[at:blk.start])
		b.WriteString(Fence(text))
		at = blk.end
	}
	b.WriteString(page[at:])
	return b.String(), nil
}

// Fence is text as the book shows it: in a text code block, each line's
// trailing blanks trimmed.
func Fence(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return "```text\n" + strings.Join(lines, "\n") + "\n```\n"
}

// Quote is the text a spec asks for, from the result of its run. root is
// the module root, cut from any path the text holds.
func Quote(s Spec, ch result.Chapter, root string) (string, error) {
	if ch.Problem != nil {
		return "", fmt.Errorf("the %s of %s did not run: %s", s.Source, s.Chapter, ch.Problem.Summary)
	}
	if s.What == "figure" {
		for _, c := range ch.Checks {
			if s.Check != "" && c.Name != s.Check {
				continue
			}
			for _, f := range c.Figures {
				if f.Name == s.Figure {
					return relative(f.Text, root), nil
				}
			}
		}
		return "", fmt.Errorf("no check logged a figure %q", s.Figure)
	}
	f := ch.Failure
	if s.Check != "" {
		f = nil
		for _, c := range ch.Checks {
			if c.Name == s.Check {
				f = c.Failure
			}
		}
	}
	if f == nil {
		return "", fmt.Errorf("the run reported no failure to quote (status %s)", ch.Status)
	}
	if s.What == "timeline" {
		if f.Timeline == "" {
			return "", fmt.Errorf("the failure %s has no timeline", f.Name)
		}
		return f.Timeline, nil
	}
	story := *f
	story.Timeline = ""
	story.HTML = "" // a file on the machine that ran it, not the book's
	return relative(story.Text(), root), nil
}

// relative cuts the module root from the paths in text.
func relative(text, root string) string {
	if root == "" {
		return text
	}
	return strings.ReplaceAll(text, filepath.Clean(root)+string(filepath.Separator), "")
}

// Pages lists the book's pages, book/*.md, sorted.
func Pages(root string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(root, "book", "*.md"))
	sort.Strings(files)
	return files, err
}

// Options say how to run the suites for the captures.
type Options struct {
	Root string // the module root
	Go   string // the go command
	Env  []string
}

// Generate returns the book's pages as their captures make them, by file
// name, for every page that has captures. Each run is made once, however
// many captures quote it, and runs go side by side.
func Generate(ctx context.Context, o Options) (map[string]string, error) {
	pages, err := Pages(o.Root)
	if err != nil {
		return nil, err
	}
	texts := map[string]string{}
	needed := map[Run]bool{}
	for _, file := range pages {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		blocks, err := Parse(string(data))
		if err != nil {
			return nil, fmt.Errorf("%s:%v", Rel(o.Root, file), err)
		}
		if len(blocks) == 0 {
			continue
		}
		texts[file] = string(data)
		for _, b := range blocks {
			needed[b.run()] = true
		}
	}
	results := runAll(ctx, o, needed)
	out := map[string]string{}
	for file, text := range texts {
		filled, err := Fill(text, func(s Spec) (string, error) {
			r := results[s.run()]
			if r.err != nil {
				return "", r.err
			}
			return Quote(s, r.ch, o.Root)
		})
		if err != nil {
			return nil, fmt.Errorf("%s:%v", Rel(o.Root, file), err)
		}
		out[file] = filled
	}
	return out, nil
}

type outcome struct {
	ch  result.Chapter
	err error
}

// runAll makes the runs, two at a time (each is a go test process that
// uses every core it is given).
func runAll(ctx context.Context, o Options, runs map[Run]bool) map[Run]outcome {
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		slots = make(chan struct{}, 2)
		out   = map[Run]outcome{}
	)
	for r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			ch, err := runOne(ctx, o, r)
			mu.Lock()
			out[r] = outcome{ch, err}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// runOne grades one chapter's stub or solution through the engine.
func runOne(ctx context.Context, o Options, r Run) (result.Chapter, error) {
	ch, ok := course.Lookup(r.Chapter)
	if !ok {
		return result.Chapter{}, fmt.Errorf("no chapter %s is registered", r.Chapter)
	}
	src := result.Stubs
	if r.Source == "solution" {
		src = result.Solutions
	}
	return engine.Chapter(ctx, engine.Options{Root: o.Root, Go: o.Go, Source: src, Seed: r.Seed, Env: Env(o.Env)}, ch), nil
}

// Env is env made fit for captured runs: no SEED, RUNS, COLUMNS or timeline
// setting of its own, and COLUMNS=Columns.
func Env(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "SEED", "RUNS", "COLUMNS", "ONEHISTORY_TIMELINE", "WIDE":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "COLUMNS="+strconv.Itoa(Columns))
}

// Stale lists the pages whose text on disk differs from what Generate made.
func Stale(pages map[string]string) ([]string, error) {
	var stale []string
	for file, want := range pages {
		got, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		if string(got) != want {
			stale = append(stale, file)
		}
	}
	sort.Strings(stale)
	return stale, nil
}

// Write writes the pages that changed and returns their names.
func Write(pages map[string]string) ([]string, error) {
	stale, err := Stale(pages)
	if err != nil {
		return nil, err
	}
	for _, file := range stale {
		if err := os.WriteFile(file, []byte(pages[file]), 0o644); err != nil {
			return nil, err
		}
	}
	return stale, nil
}

// Rel names file below root, with forward slashes, for messages.
func Rel(root, file string) string {
	if r, err := filepath.Rel(root, file); err == nil {
		return filepath.ToSlash(r)
	}
	return file
}
