package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"onehistory/grader/internal/result"
	"onehistory/grader/internal/rules"
	"onehistory/internal/harness/course"
)

// buildExts are the kinds of file, besides Go, that the go command would
// build into a package: assembly, C and friends, and object files.
var buildExts = map[string]bool{
	".s": true, ".sx": true, ".c": true, ".cc": true, ".cpp": true, ".cxx": true, ".m": true,
	".h": true, ".hh": true, ".hpp": true, ".hxx": true, ".f": true, ".for": true, ".f90": true,
	".syso": true, ".swig": true, ".swigcxx": true,
}

// foreignFiles refuses a chapter folder that holds files the go command
// could build besides Go (whatever their build constraints say): the rules
// read Go only.
func foreignFiles(absDir, dir string) *result.Problem {
	entries, err := os.ReadDir(absDir)
	if err != nil {
		return &result.Problem{Kind: result.Setup, Summary: err.Error()}
	}
	for _, e := range entries {
		name := e.Name()
		if ext := strings.ToLower(filepath.Ext(name)); !e.IsDir() && buildExts[ext] {
			f := rules.Finding{Rule: rules.Files, File: dir + "/" + name,
				Message: fmt.Sprintf("a chapter's folder may hold Go files only; the go command would build this %s file into the chapter", ext)}
			return refusal([]rules.Finding{f}, "")
		}
	}
	return nil
}

// checkRulesAside runs checkRules beside whatever the caller does next
// (the build), and hands its result over when it is done.
func checkRulesAside(ctx context.Context, opts Options, chapters []course.Chapter) <-chan map[string]rules.Result {
	out := make(chan map[string]rules.Result, 1)
	go func() { out <- checkRules(ctx, opts, chapters) }()
	return out
}

// applyRules decides, from what the world's rules found in each folder,
// the result of each unit prepare left for them to judge: code that breaks
// a rule is refused, whatever its build said; code the rules could not read
// is refused if it built, and told as the compile error it is if it did not.
// A refused chapter's binary is never run.
func applyRules(units []*unit, checked map[string]rules.Result) {
	for _, u := range units {
		r, ok := checked[u.dir]
		switch {
		case !u.ruled || !ok:
		case len(r.Findings) > 0:
			u.refuse(refusal(r.Findings, importsText(u.ch, r.Findings)))
		case r.Unanalysable != "" && u.done == nil:
			u.refuse(unanalysableProblem(u.dir, r.Unanalysable))
		}
	}
}

// checkRules runs the world's rules (package rules) over the folders the
// chapters grade, in one load of the go command. The pristine stubs are the course's own and are not checked here
// (the rules' own tests prove they keep them). It returns each folder's
// result; a folder the go command could not be asked about at all is
// reported as unanalysable.
func checkRules(ctx context.Context, opts Options, chapters []course.Chapter) map[string]rules.Result {
	if opts.SkipImportCheck || opts.Source == result.Stubs {
		return nil
	}
	dirs := map[string]rules.Config{}
	for _, ch := range chapters {
		dir := folder(opts, ch)
		if _, err := os.Stat(filepath.Join(opts.Root, filepath.FromSlash(dir))); err == nil {
			dirs[dir] = rules.ForChapter(ch)
		}
	}
	res, err := rules.Check(ctx, rules.Options{Root: opts.Root, Go: opts.Go, Env: environment(opts), Dirs: dirs})
	if err != nil {
		res = map[string]rules.Result{}
		for dir := range dirs {
			res[dir] = rules.Result{Unanalysable: err.Error()}
		}
	}
	return res
}

// folder is the folder graded for ch, relative to the root.
func folder(opts Options, ch course.Chapter) string {
	if opts.Source == result.Solutions {
		return ch.SolutionDir()
	}
	return ch.Dir()
}

// refusal is the problem of a chapter whose code breaks the rules: the
// first finding in one line, every finding and why each rule broken exists
// in the output.
func refusal(findings []rules.Finding, extra string) *result.Problem {
	first := findings[0]
	out := rules.Explain(findings)
	if extra != "" {
		out += "\n\n" + extra
	}
	return &result.Problem{Kind: result.Forbidden, Rule: string(first.Rule), File: first.File, Line: first.Line,
		Summary: first.String(), Output: out}
}

// unanalysableProblem refuses a chapter that builds but that the rules
// could not read in full.
func unanalysableProblem(dir, why string) *result.Problem {
	f := rules.Finding{Rule: rules.Unanalysable, File: dir, Message: "the compiler builds this folder, but the rules could not analyse it: " + why}
	return refusal([]rules.Finding{f}, "")
}

// importsText adds, to a refusal for an import, the list of what the
// chapter may import.
func importsText(ch course.Chapter, findings []rules.Finding) string {
	for _, f := range findings {
		if f.Rule == rules.Imports {
			return rules.AllowedText(ch)
		}
	}
	return ""
}
