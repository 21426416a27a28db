package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"onehistory/grader/internal/fakechapter"
	"onehistory/grader/internal/render"
	"onehistory/grader/internal/workbook"
	"onehistory/internal/harness/course"
)

// The grader's command-line behavior, told as scripts in testdata/script/.
// Each script runs in its own copy of the workbook (the real tree, with every
// exercise folder reset to its pristine stub), where `grader` is this
// package's main, and plays one scene: a fresh checkout, a solved chapter, a
// compile error, a hang... The chapter a script works on is the first one
// registered, named by $CH; its folders are $EXDIR and $SOLDIR.
//
// Until the workbook registers a chapter, the scripts run against the
// grader's own fake chapter (package fakechapter) instead.

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"grader": func() {
			if os.Getenv("GRADER_FAKE_CHAPTER") != "" {
				allChapters = func() []course.Chapter { return []course.Chapter{fakechapter.Chapter} }
				pristineOf = fakechapter.Pristine
			}
			skipImportCheck = os.Getenv("GRADER_SKIP_IMPORT_CHECK") != ""
			os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
		},
	})
}

func TestScripts(t *testing.T) {
	root, err := workbook.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	goEnv := goEnvironment(t)
	ch, fake := scriptChapter()
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			if fake {
				if err := fakechapter.Write(env.WorkDir); err != nil {
					return err
				}
				env.Setenv("GRADER_FAKE_CHAPTER", "1")
			} else if err := copyWorkbook(root.Root, env.WorkDir); err != nil {
				return err
			}
			for k, v := range goEnv {
				env.Setenv(k, v)
			}
			env.Setenv("CH", ch.ID)
			env.Setenv("EXDIR", ch.Dir())
			env.Setenv("SOLDIR", ch.SolutionDir())
			env.Setenv("TESTFILE", ch.TestFileName())
			env.Setenv("PKG", ch.Package())
			env.Setenv("NAMED_FAILURE", regexp.QuoteMeta(ch.Failure))
			env.Setenv("BINDING", ch.Binding)
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if id, ok := strings.CutPrefix(cond, "chapter:"); ok {
				_, registered := course.Lookup(id)
				return registered && !fake, nil
			}
			if cond == "plainbinding" {
				return regexp.MustCompile(`^[A-Za-z_]\w*$`).MatchString(ch.Binding), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"solve":      solve,
			"inject":     inject,
			"jsonreport": jsonReport,
			"stall":      stall,
		},
	})
}

// scriptChapter is the chapter the scripts work on: the first registered
// one whose stub is stored (a chapter still being written may have none),
// or the fake one while there is no such chapter.
func scriptChapter() (course.Chapter, bool) {
	for _, ch := range course.All() {
		if len(ch.Pristine()) > 0 {
			return ch, false
		}
	}
	return fakechapter.Chapter, true
}

// goEnvironment is what the go command needs inside a script, where HOME is
// unset: the same build and module caches as the test's own go command, so
// that the scripts build nothing twice, and no network.
func goEnvironment(t *testing.T) map[string]string {
	out, err := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS").Output()
	if err != nil {
		t.Skipf("no go command to run the grader's scripts with: %v", err)
	}
	env := map[string]string{}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatal(err)
	}
	env["GOPROXY"] = "off"
	env["GOTOOLCHAIN"] = "local"
	env["GO"] = ""
	return env
}

// copyWorkbook copies the workbook's tree to dst, leaving out git's folder
// and the grader's state, and resets every exercise folder to its pristine
// stub: the scripts play on a fresh checkout whatever the learner has done
// to this one.
func copyWorkbook(src, dst string) error {
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			switch rel {
			case ".git", ".onehistory", "bin":
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() || strings.HasSuffix(rel, ".test") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		return err
	}
	wb := workbook.Workbook{Root: dst}
	for _, ch := range course.All() {
		if len(ch.Pristine()) == 0 {
			continue // a chapter still being written: nothing to reset to
		}
		if _, err := wb.Reset(ch, ch.Pristine()); err != nil {
			return err
		}
	}
	return os.RemoveAll(filepath.Join(dst, ".onehistory"))
}

// solve copies the solution's files into the exercise folder, as a learner
// who solved the chapter would have them.
//
//	solve
func solve(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: solve")
	}
	ex, sol := ts.MkAbs(ts.Getenv("EXDIR")), ts.MkAbs(ts.Getenv("SOLDIR"))
	files, err := workbook.StubFiles(ex)
	ts.Check(err)
	for name := range files {
		ts.Check(os.Remove(filepath.Join(ex, name)))
	}
	files, err = workbook.StubFiles(sol)
	ts.Check(err)
	for name, text := range files {
		ts.Check(os.WriteFile(filepath.Join(ex, name), []byte(text), 0o644))
	}
}

// inject writes a fixture file from the script's archive into the exercise
// folder, under its name without ".txt", with its package clause set to the
// chapter's package: the way a learner adds or breaks a file, whatever the
// chapter.
//
//	inject fixtures/broken.go.txt [name.go]
func inject(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: inject fixture [name]")
	}
	text := ts.ReadFile(args[0])
	text = regexp.MustCompile(`(?m)^package \w+`).ReplaceAllString(text, "package "+ts.Getenv("PKG"))
	name := strings.TrimSuffix(filepath.Base(args[0]), ".txt")
	if len(args) == 2 {
		name = args[1]
	}
	ts.Check(os.WriteFile(filepath.Join(ts.MkAbs(ts.Getenv("EXDIR")), name), []byte(text), 0o644))
}

// stall makes the learner's function never return: it finds `func NAME(`
// in the exercise folder's stub files and makes the function's first
// statement a call that sleeps for an hour (in a file of its own, which
// imports time). NAME is the chapter's binding when that is a plain function
// name, so a check calls it; the script names it.
//
//	stall $BINDING
func stall(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: stall function")
	}
	dir := ts.MkAbs(ts.Getenv("EXDIR"))
	files, err := workbook.StubFiles(dir)
	ts.Check(err)
	decl := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(args[0]) + `\(.*\{$`)
	for name, text := range files {
		if loc := decl.FindStringIndex(text); loc != nil {
			text = text[:loc[1]] + "\n\tstallForever()" + text[loc[1]:]
			ts.Check(os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
			stub := "package " + ts.Getenv("PKG") + "\n\nimport \"time\"\n\nfunc stallForever() { time.Sleep(time.Hour) }\n"
			ts.Check(os.WriteFile(filepath.Join(dir, "stall.go"), []byte(stub), 0o644))
			return
		}
	}
	ts.Fatalf("no func %s( in %s", args[0], dir)
}

// jsonReport reads the last command's stdout as the grader's JSON report,
// strictly (no field the schema does not name), checks that it is internally
// consistent (the core chapters add up to the score, the bonus ones to the
// bonus), and checks each key=value given against it: "status.ex01=pass"
// for a chapter's status, "own_tests.ex01=a,b" for the learner's own test
// files it names, "schema=..." and "passed=true" at the top.
//
//	jsonreport schema=onehistory.grader/v1 status.$CH=not-started
func jsonReport(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: jsonreport key=value...")
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(ts.ReadFile("stdout"))))
	dec.DisallowUnknownFields()
	var rep render.JSONReport
	ts.Check(dec.Decode(&rep))
	points, max := 0, 0
	var bonus render.JSONBonus
	for _, ch := range rep.Chapters {
		cp, cm := 0, 0
		for _, c := range ch.Checks {
			cp += c.Points
			cm += c.Max
		}
		if cp != ch.Points || cm != ch.Max {
			ts.Fatalf("%s: checks add up to %d/%d, the chapter says %d/%d", ch.ID, cp, cm, ch.Points, ch.Max)
		}
		switch ch.Status {
		case "pass", "fail", "error", "timeout", "not-started":
		default:
			ts.Fatalf("%s: status %q is not in the schema", ch.ID, ch.Status)
		}
		if (ch.Status == "error" || ch.Status == "timeout") != (ch.Problem != nil) {
			ts.Fatalf("%s: status %s, problem %v: a problem goes with error and timeout only", ch.ID, ch.Status, ch.Problem)
		}
		if ch.Status == "fail" && ch.Failure == nil {
			ts.Fatalf("%s: fails without a failure", ch.ID)
		}
		if ch.Bonus {
			bonus.Points += ch.Points
			bonus.Max += ch.Max
			bonus.Chapters++
			if ch.Status == "pass" {
				bonus.Passing++
			}
			continue
		}
		points += ch.Points
		max += ch.Max
	}
	if points != rep.Score.Points || max != rep.Score.Max {
		ts.Fatalf("core chapters add up to %d/%d, the score says %d/%d", points, max, rep.Score.Points, rep.Score.Max)
	}
	switch {
	case bonus.Chapters == 0 && rep.Bonus != nil:
		ts.Fatalf("no bonus chapter was graded, and the report has a bonus %+v", *rep.Bonus)
	case bonus.Chapters > 0 && (rep.Bonus == nil || *rep.Bonus != bonus):
		ts.Fatalf("bonus chapters add up to %+v, the report's bonus says %+v", bonus, rep.Bonus)
	}
	got := map[string]string{"schema": rep.Schema, "passed": fmt.Sprint(rep.Passed), "source": rep.Source}
	for _, ch := range rep.Chapters {
		got["status."+ch.ID] = ch.Status
		if ch.Failure != nil {
			got["failure."+ch.ID] = ch.Failure.Name
			got["seed."+ch.ID] = fmt.Sprint(ch.Failure.Seed)
		}
		if ch.Problem != nil {
			got["problem."+ch.ID] = ch.Problem.Kind
		}
		if ch.OwnTests == nil {
			ts.Fatalf("%s: own_tests is null; the schema says an array, empty when there are none", ch.ID)
		}
		got["own_tests."+ch.ID] = strings.Join(ch.OwnTests, ",")
	}
	for _, kv := range args {
		k, v, _ := strings.Cut(kv, "=")
		if got[k] != v {
			ts.Fatalf("%s = %q, want %q", k, got[k], v)
		}
	}
}
