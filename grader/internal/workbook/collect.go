package workbook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"onehistory/internal/harness/course"
)

// A Submission is what a student's checkout holds for each chapter, as
// Collect read it: the stub files of each chapter folder it could take,
// and everything it refused.
type Submission struct {
	Collected                              // where from, and what was refused
	Files     map[string]map[string]string // chapter ID → file name → text; a chapter with a refusal has none
}

// A Refusal is a file or folder that Collect would have copied, or had to
// go through, and did not, with the reason. A chapter with a refusal is
// graded as refused, whatever else its folder holds.
type Refusal struct {
	Chapter string `json:"chapter"` // "ex04"
	Path    string `json:"path"`    // slash-separated, relative to the student's checkout
	Reason  string `json:"reason"`  // "is a symbolic link: collect copies regular files only"
}

// String is the refusal in one line: "exercises/ex04-x/server.go is a
// symbolic link: collect copies regular files only".
func (r Refusal) String() string { return r.Path + " " + r.Reason }

// The reasons Collect gives.
const (
	reasonLink      = "is a symbolic link: collect copies regular files only"
	reasonIrregular = "is not a regular file: collect copies regular files only"
	reasonNotDir    = "is not a folder"
	reasonHardLink  = "has other names (%d hard links): collect copies only files that are nowhere else"
	reasonChanged   = "changed while collect read it"
)

// ErrNoExercises is returned by Collect when the student's checkout holds
// no exercises/exNN-* folder at all.
var ErrNoExercises = errors.New("no exercises/exNN-* folder")

// chapterFolder matches the name of a chapter's folder: ex04-the-write-...
var chapterFolder = regexp.MustCompile(`^ex[0-9]{2,}-`)

// Collect reads the stub files (course.IsStubFile) of each chapter's
// exercise folder in the student's checkout from, and nothing else. It
// reads only regular files with one name, through from and never past it:
// a symbolic link at any level (exercises/, a chapter's folder, a file), a
// file that is not a regular one, and a file with more than one hard link
// (whose other names collect cannot see, and which may be anywhere on the
// disk) are refused, each named with its reason, and the chapter whose
// folder holds them is taken from nothing. A link exercises/ refuses every
// chapter. A folder missing is nothing to take, not a refusal.
//
// It returns an error, and reads nothing, when from is not a folder or
// holds no exercises/exNN-* entry at all (ErrNoExercises).
func Collect(from string, chapters []course.Chapter) (Submission, error) {
	abs, err := filepath.Abs(from)
	if err != nil {
		return Submission{}, err
	}
	sub := Submission{Collected: Collected{From: abs}, Files: map[string]map[string]string{}}
	if fi, err := os.Stat(abs); err != nil {
		return sub, fmt.Errorf("%s: %w", from, unwrapPath(err))
	} else if !fi.IsDir() {
		return sub, fmt.Errorf("%s is not a folder", from)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return sub, err
	}
	defer root.Close()

	fi, err := root.Lstat("exercises")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sub, fmt.Errorf("%s holds %w", from, ErrNoExercises)
	case err != nil:
		return sub, err
	case fi.Mode()&fs.ModeSymlink != 0:
		for _, ch := range chapters {
			sub.Refused = append(sub.Refused, Refusal{Chapter: ch.ID, Path: "exercises", Reason: reasonLink})
		}
		return sub, nil
	case !fi.IsDir():
		return sub, fmt.Errorf("%s holds %w (exercises %s)", from, ErrNoExercises, reasonNotDir)
	}
	names, err := readDirNames(root, "exercises")
	if err != nil {
		return sub, err
	}
	any := false
	for _, name := range names {
		any = any || chapterFolder.MatchString(name)
	}
	if !any {
		return sub, fmt.Errorf("%s holds %w", from, ErrNoExercises)
	}

	for _, ch := range chapters {
		files, refused, err := collectChapter(root, ch)
		if err != nil {
			return sub, err
		}
		if len(refused) > 0 {
			sub.Refused = append(sub.Refused, refused...)
			continue
		}
		if len(files) > 0 {
			sub.Files[ch.ID] = files
		}
	}
	return sub, nil
}

// collectChapter reads one chapter's folder below root: its stub files, or
// what it refused.
func collectChapter(root *os.Root, ch course.Chapter) (map[string]string, []Refusal, error) {
	dir := ch.Dir()
	fi, err := root.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil
	case err != nil:
		return nil, nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, []Refusal{{ch.ID, dir, reasonLink}}, nil
	case !fi.IsDir():
		return nil, []Refusal{{ch.ID, dir, reasonNotDir}}, nil
	}
	names, err := readDirNames(root, dir)
	if err != nil {
		return nil, nil, err
	}
	files := map[string]string{}
	var refused []Refusal
	for _, name := range names {
		if !course.IsStubFile(name) {
			continue
		}
		path := dir + "/" + name
		fi, err := root.Lstat(path)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case fi.IsDir():
			continue // a folder is not copied, whatever its name
		case fi.Mode()&fs.ModeSymlink != 0:
			refused = append(refused, Refusal{ch.ID, path, reasonLink})
			continue
		case !fi.Mode().IsRegular():
			refused = append(refused, Refusal{ch.ID, path, reasonIrregular})
			continue
		case hardLinks(fi) > 1:
			refused = append(refused, Refusal{ch.ID, path, fmt.Sprintf(reasonHardLink, hardLinks(fi))})
			continue
		}
		text, same, err := readSame(root, path, fi)
		if err != nil {
			return nil, nil, err
		}
		if !same {
			refused = append(refused, Refusal{ch.ID, path, reasonChanged})
			continue
		}
		files[name] = text
	}
	if len(refused) > 0 {
		return nil, refused, nil
	}
	return files, nil, nil
}

// readDirNames lists a folder below root, sorted.
func readDirNames(root *os.Root, dir string) ([]string, error) {
	f, err := root.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	sort.Strings(names)
	return names, err
}

// readSame reads the file at path below root, and reports whether what it
// opened is the file Lstat saw (fi), not something put in its place since.
func readSame(root *os.Root, path string, fi fs.FileInfo) (string, bool, error) {
	f, err := root.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return "", false, err
	}
	if !os.SameFile(fi, opened) {
		return "", false, nil
	}
	data, err := io.ReadAll(f)
	return string(data), true, err
}

// unwrapPath is err without the path a *fs.PathError adds, which the
// caller names already: "no such file or directory".
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Collected is what the last grader collect in a checkout remembers for
// the grading that follows: where the exercise files came from, and what
// it refused.
type Collected struct {
	From       string    `json:"from"`                 // the student's checkout, absolute
	Repository string    `json:"repository,omitempty"` // its git remote origin, credentials removed, if it has one
	Commit     string    `json:"commit,omitempty"`     // its git HEAD, if it is a git checkout
	Refused    []Refusal `json:"refused"`              // in course order
}

// collectedFile is .onehistory/collected.json.
func (w Workbook) collectedFile() string { return filepath.Join(w.StateDir(), "collected.json") }

// SaveCollected remembers c, replacing what the last collect remembered.
func (w Workbook) SaveCollected(c Collected) error {
	if c.Refused == nil {
		c.Refused = []Refusal{}
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(w.StateDir(), 0o755); err != nil {
		return err
	}
	return os.WriteFile(w.collectedFile(), append(data, '\n'), 0o644)
}

// LastCollected is what the last grader collect in this checkout remembered
// (SaveCollected); ok is false when no collect was made here. A record that
// cannot be read is an error, never nothing: a refusal must not be lost.
func (w Workbook) LastCollected() (c Collected, ok bool, err error) {
	data, err := os.ReadFile(w.collectedFile())
	if errors.Is(err, fs.ErrNotExist) {
		return c, false, nil
	}
	if err != nil {
		return c, false, err
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, false, fmt.Errorf("%s: %v", w.collectedFile(), err)
	}
	return c, true, nil
}
