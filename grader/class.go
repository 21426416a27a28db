package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"onehistory/grader/internal/engine"
	"onehistory/grader/internal/gradebook"
	"onehistory/grader/internal/render"
	"onehistory/grader/internal/workbook"
	"onehistory/internal/harness/course"
)

// classCmd is `grader class [--csv FILE] [--html FILE] [--reports DIR]
// [--chapters ex01,ex02] PATH...`: one table of a whole class (package
// gradebook), in Markdown on stdout, and as CSV and one HTML page when
// asked. Each PATH is a student's report (a .json file), a folder of
// reports (every grade.json in it or below, and every .json file in it:
// the artifacts of the roster workflow, downloaded), or a student's
// checkout of the workbook (a folder holding exercises/), which is graded
// here in turn: grader collect copies its exercise files into this
// checkout, which must be a clean copy of the course, and the grader
// grades them with this checkout's grader and hidden suites, as CI does.
// --reports keeps each such report as DIR/NAME/grade.json.
//
// A report that cannot be read, or a checkout that cannot be graded, is a
// row that says why, not the end of the table. The exit status is 2 when
// no report at all could be read, else 0: the table says who passes.
func classCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("class", flag.ContinueOnError)
	csvFile := fs.String("csv", "", "")
	htmlFile := fs.String("html", "", "")
	reports := fs.String("reports", "", "")
	only := fs.String("chapters", "", "")
	paths, err := parse(fs, args)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if len(paths) == 0 {
		return fail(stderr, "say whose reports: grader class REPORTS-FOLDER, grade.json files, or students' checkouts")
	}
	var ids []string
	if *only != "" {
		ids = strings.Split(*only, ",")
	}
	chs, err := chapters(ids)
	if err != nil {
		return fail(stderr, "%v", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var book gradebook.Book
	read := 0
	var grader *classGrader
	for _, path := range paths {
		fi, err := os.Stat(path)
		switch {
		case err != nil:
			return fail(stderr, "%v", err)
		case !fi.IsDir():
			read += addReport(&book, gradebook.Name(path), path)
		case isCheckout(path):
			if grader == nil {
				if grader, err = newClassGrader(); err != nil {
					return fail(stderr, "%v", err)
				}
			}
			name := filepath.Base(absolute(path))
			fmt.Fprintf(stderr, "grader class: grading %s (%s)\n", name, path)
			rep, err := grader.grade(ctx, path, *reports, name, chs)
			if ctx.Err() != nil {
				return fail(stderr, "interrupted")
			}
			if err != nil {
				book.AddProblem(name, path, err)
				continue
			}
			book.Add(name, path, rep)
			read++
		default:
			files, err := gradebook.Find(path)
			if err != nil {
				return fail(stderr, "%v", err)
			}
			if len(files) == 0 {
				return fail(stderr, "%s holds no grade.json and no exercises/ folder: neither reports nor a checkout of the workbook", path)
			}
			for _, f := range files {
				read += addReport(&book, gradebook.Name(f), f)
			}
		}
	}
	if grader != nil {
		fmt.Fprintf(stderr, "grader class: %s now holds the last student's exercise files; grader collect another checkout, or git checkout exercises, to change that\n", grader.wb.Root)
	}
	if read == 0 {
		book.Markdown(stdout)
		return fail(stderr, "not one report could be read")
	}
	if err := book.Markdown(stdout); err != nil {
		return fail(stderr, "%v", err)
	}
	if *csvFile != "" {
		if err := writeFile(*csvFile, book.CSV); err != nil {
			return fail(stderr, "cannot write the CSV: %v", err)
		}
	}
	if *htmlFile != "" {
		if err := writeFile(*htmlFile, book.HTML); err != nil {
			return fail(stderr, "cannot write the HTML page: %v", err)
		}
	}
	return exitOK
}

// addReport reads one report file into the book, or a row saying why it
// could not; it returns 1 for a report read, else 0.
func addReport(book *gradebook.Book, name, path string) int {
	rep, err := gradebook.Read(path)
	if err != nil {
		book.AddProblem(name, path, err)
		return 0
	}
	book.Add(name, path, rep)
	return 1
}

// isCheckout reports whether dir looks like a checkout of the workbook: it
// holds an exercises folder.
func isCheckout(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "exercises"))
	return err == nil && fi.IsDir()
}

func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// classGrader grades students' checkouts one after the other in the
// workbook around the working directory: collect, then grade, as CI does.
type classGrader struct {
	wb    workbook.Workbook
	goCmd string
}

func newClassGrader() (*classGrader, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	wb, err := workbook.Find(wd)
	if err != nil {
		return nil, fmt.Errorf("%v: grading a student's checkout needs a clean checkout of the course to grade it in", err)
	}
	goCmd, err := goCommand()
	if err == nil {
		err = engine.CheckGo(context.Background(), engine.Options{Root: wb.Root, Go: goCmd})
	}
	return &classGrader{wb: wb, goCmd: goCmd}, err
}

// grade collects the checkout dir into the workbook and grades it; with
// keep set, the report is also written to keep/name/grade.json.
func (g *classGrader) grade(ctx context.Context, dir, keep, name string, chs []course.Chapter) (*render.JSONReport, error) {
	if same(dir, g.wb.Root) {
		return nil, errors.New("this is the checkout that grades: grader class grades other checkouts in it")
	}
	var said bytes.Buffer
	if collectCmd(g.wb, []string{dir}, io.Discard, &said) != exitOK {
		return nil, fmt.Errorf("grader collect: %s", strings.TrimPrefix(strings.TrimSpace(said.String()), "grader: "))
	}
	var out bytes.Buffer
	said.Reset()
	o := gradeOptions{json: true, timeout: engine.DefaultTimeout, color: "never"}
	if grade(ctx, g.wb, o, g.goCmd, chs, false, &out, &said) == exitUsage {
		return nil, fmt.Errorf("the grader could not grade it: %s", strings.TrimPrefix(strings.TrimSpace(said.String()), "grader: "))
	}
	var rep render.JSONReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return nil, fmt.Errorf("the grader's report: %v", err)
	}
	if keep != "" {
		path := filepath.Join(keep, name, "grade.json")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	return &rep, nil
}
