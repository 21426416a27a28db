package course

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// root is the module root, three folders above this package.
var root = filepath.Join("..", "..", "..")

// inCI reports whether the tests run in CI, where the exercise folders are
// the workbook's own and must match what the registry generates. On a
// learner's machine the exercise folders hold the learner's work.
func inCI() bool { return os.Getenv("CI") != "" }

const regenerate = "run: go generate ./internal/harness/course"

// The thin test file in a solution folder is the registry's TestFile, byte
// for byte: the grader overlays its own copy anyway, but `go test` on the
// solutions uses the committed one, and the two must not tell different
// stories.
func TestSolutionTestFilesAreGenerated(t *testing.T) {
	for _, c := range All() {
		file := filepath.Join(root, c.SolutionDir(), c.TestFileName())
		got, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s: the solution's thin test file is missing (%v); %s", c.ID, err, regenerate)
			continue
		}
		if string(got) != c.TestFile() {
			t.Errorf("%s: %s differs from the registry's TestFile; %s", c.ID, file, regenerate)
		}
	}
}

// The same holds in the exercise folders as shipped. A learner may edit or
// delete the file (the grader ignores it), so outside CI a difference is only
// noted.
func TestExerciseTestFilesAreGenerated(t *testing.T) {
	for _, c := range All() {
		file := filepath.Join(root, c.Dir(), c.TestFileName())
		got, err := os.ReadFile(file)
		if err == nil && string(got) == c.TestFile() {
			continue
		}
		if !inCI() {
			t.Skipf("%s: %s differs from the registry's copy; fine while you work (the grader uses its own), checked when CI is set", c.ID, file)
		}
		t.Errorf("%s: %s differs from the registry's TestFile; %s", c.ID, file, regenerate)
	}
}

// Every chapter ships a pristine copy of its stub: without it the grader
// cannot tell "not started" from "in progress", and `grader reset` has
// nothing to restore.
func TestEveryChapterHasAPristineStub(t *testing.T) {
	for _, c := range All() {
		if len(c.Pristine()) == 0 {
			t.Errorf("%s: no pristine stub stored; %s", c.ID, regenerate)
		}
	}
}

// The pristine copy is the stub in exercises/ as committed. A learner's
// edits make them differ by design, so outside CI a difference is only noted.
func TestPristineStubsMatchTheExercises(t *testing.T) {
	for _, c := range All() {
		want := c.Pristine()
		got := map[string]string{}
		entries, _ := os.ReadDir(filepath.Join(root, c.Dir()))
		for _, e := range entries {
			if e.Type().IsRegular() && IsStubFile(e.Name()) {
				data, err := os.ReadFile(filepath.Join(root, c.Dir(), e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				got[e.Name()] = string(data)
			}
		}
		if diff := differing(want, got); len(diff) > 0 {
			if !inCI() {
				t.Skipf("%s: %v differ from the pristine stub; fine while you work, checked when CI is set", c.Dir(), diff)
			}
			t.Errorf("%s: %v differ from the pristine stub; %s", c.Dir(), diff, regenerate)
		}
	}
}

// differing lists the file names whose text differs between a and b, or that
// only one of them holds.
func differing(a, b map[string]string) []string {
	var names []string
	for name, text := range a {
		if other, ok := b[name]; !ok || other != text {
			names = append(names, name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// The stub files are exactly the Go files that are not tests.
func TestIsStubFile(t *testing.T) {
	for name, want := range map[string]bool{
		"store.go":       true,
		"ex01_test.go":   false,
		"extra_test.go":  false,
		"notes.md":       false,
		"store.go.txt":   false,
		"main_linux.go":  true,
		"testing_aid.go": true,
	} {
		if got := IsStubFile(name); got != want {
			t.Errorf("IsStubFile(%q) = %v, want %v", name, got, want)
		}
	}
}
