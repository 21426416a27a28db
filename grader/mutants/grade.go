package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"onehistory/grader/internal/engine"
	"onehistory/grader/internal/result"
	"onehistory/internal/harness/course"
)

// Load reads every mutant of chapter id from root/mutants/id/, in name
// order. A file that does not parse is an error naming it.
func Load(root, id string) ([]Mutant, error) {
	dir := filepath.Join(root, "mutants", id)
	names, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Mutant
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		m, err := Parse("mutants/"+id+"/"+filepath.Base(name), data)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// Grader grades mutants in temporary copies of the workbook at Root.
type Grader struct {
	Root     string // the workbook, absolute
	Go       string // the go command
	Parallel int    // mutants graded at once; each plays its worlds on the CPUs over Parallel
}

// GradeAll grades every mutant, Parallel at once, calling done (one call at
// a time) with each outcome as it is known, and returns the outcomes in the
// mutants' order.
func (g Grader) GradeAll(ctx context.Context, mutants []Mutant, done func(Outcome)) []Outcome {
	out := make([]Outcome, len(mutants))
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		slots = make(chan struct{}, max(g.Parallel, 1))
	)
	for i, m := range mutants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			out[i] = g.Grade(ctx, m)
			if done != nil {
				mu.Lock()
				done(out[i])
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}

// Grade applies one mutant to the chapter's solution in a temporary copy of
// the workbook and grades that copy through the grader's engine, at the
// default seed counts.
func (g Grader) Grade(ctx context.Context, m Mutant) Outcome {
	o := Outcome{Mutant: m}
	ch, ok := course.Lookup(m.Chapter)
	if !ok {
		o.Err = fmt.Errorf("%s: no chapter %s is registered", m.File, m.Chapter)
		return o
	}
	tmp, err := os.MkdirTemp("", "onehistory-mutant-"+m.Chapter+"-")
	if err != nil {
		o.Err = err
		return o
	}
	defer os.RemoveAll(tmp)
	if err := copyWorkbook(g.Root, tmp); err != nil {
		o.Err = fmt.Errorf("%s: copying the workbook: %v", m.File, err)
		return o
	}
	sol := filepath.Join(tmp, filepath.FromSlash(ch.SolutionDir()))
	files := map[string]string{}
	for _, e := range m.Edits {
		data, err := os.ReadFile(filepath.Join(sol, filepath.FromSlash(e.File)))
		if err == nil {
			files[e.File] = string(data)
		}
	}
	changed, err := m.Apply(files)
	if err != nil {
		o.Err = err
		return o
	}
	for f, text := range changed {
		if err := os.WriteFile(filepath.Join(sol, filepath.FromSlash(f)), []byte(text), 0o644); err != nil {
			o.Err = err
			return o
		}
	}
	rep := engine.Grade(ctx, engine.Options{Root: tmp, Go: g.Go, Source: result.Solutions, Parallel: 1,
		Workers: max(runtime.GOMAXPROCS(0)/max(g.Parallel, 1), 1), Env: cleanEnv()}, []course.Chapter{ch})
	return judge(o, rep.Chapters[0])
}

// judge fills the outcome from the graded chapter: its first failure, or
// the problem that kept it from being graded. A mutant that does not
// compile is an error in the mutant, not a kill.
func judge(o Outcome, ch result.Chapter) Outcome {
	switch {
	case ch.Status == result.Pass:
		o.Passed = true
	case ch.Problem != nil && ch.Problem.Kind == result.Compile:
		o.Err = fmt.Errorf("%s: the mutant does not compile: %s", o.Mutant.File, ch.Problem.Summary)
	case ch.Failure != nil:
		o.Check, o.Failure, o.Story = ch.Failure.Check, ch.Failure.Name, firstLine(ch.Failure.Story)
	case ch.Problem != nil:
		o.Check, o.Failure, o.Story = ch.Problem.Check, string(ch.Problem.Kind), firstLine(ch.Problem.Summary)
		if o.Check == "" {
			o.Check = "?"
		}
	default:
		for _, c := range ch.Checks {
			if c.Status != result.Pass {
				o.Check, o.Failure = c.Name, string(c.Status)
				break
			}
		}
		if o.Check == "" {
			o.Check, o.Failure = "?", string(ch.Status)
		}
	}
	return o
}

// cleanEnv is the environment without SEED and RUNS: mutants are graded at
// the default seed counts whatever the caller's shell holds.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "SEED=") || strings.HasPrefix(kv, "RUNS=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// skipped are the top-level folders a copy of the workbook leaves out: the
// repository, the grader's state, built binaries, and the mutants.
var skipped = map[string]bool{".git": true, ".onehistory": true, "bin": true, "mutants": true}

// copyWorkbook copies the module tree at root into dst: every regular file
// but those under the skipped folders (the working tree as it is, so that
// uncommitted changes to a suite are graded too).
func copyWorkbook(root, dst string) error {
	return filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			if !strings.Contains(rel, string(filepath.Separator)) && skipped[rel] {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return copyFile(p, filepath.Join(dst, rel))
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
