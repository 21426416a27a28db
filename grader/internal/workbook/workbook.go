package workbook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"onehistory/internal/harness/course"
)

// Workbook is a checkout of the workbook.
type Workbook struct {
	Root string // absolute path of the folder holding go.mod
}

// ErrNotFound is returned by Find when no folder at or above the start holds
// the workbook's go.mod.
var ErrNotFound = errors.New("no One History workbook here")

// Find walks up from dir to the first folder whose go.mod declares module
// onehistory.
func Find(dir string) (Workbook, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Workbook{}, err
	}
	for d := abs; ; {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && moduleOf(data) == course.Module {
			return Workbook{Root: d}, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Workbook{}, fmt.Errorf("%w: no go.mod of module %s in %s or any folder above it", ErrNotFound, course.Module, abs)
		}
		d = parent
	}
}

// moduleOf reads the module path from a go.mod file's text.
func moduleOf(gomod []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			rest, _, _ = strings.Cut(rest, "//")
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// Path is the absolute path of a slash-separated path below the root.
func (w Workbook) Path(rel string) string { return filepath.Join(w.Root, filepath.FromSlash(rel)) }

// StateDir is .onehistory/ at the root, where the grader keeps its state.
func (w Workbook) StateDir() string { return filepath.Join(w.Root, ".onehistory") }

// StubFiles reads the stub files of a folder (course.IsStubFile): file name
// to text. A missing folder is an error.
func StubFiles(dir string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	for _, e := range entries {
		if !e.Type().IsRegular() || !course.IsStubFile(e.Name()) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		files[e.Name()] = string(data)
	}
	return files, nil
}

// Same reports whether two sets of files hold the same names with the same
// text.
func Same(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for name, text := range a {
		if other, ok := b[name]; !ok || other != text {
			return false
		}
	}
	return true
}

// Unchanged reports whether the folder holds exactly the pristine stub. With
// no pristine stub stored, nothing counts as unchanged.
func Unchanged(dir string, pristine map[string]string) bool {
	if len(pristine) == 0 {
		return false
	}
	files, err := StubFiles(dir)
	return err == nil && Same(files, pristine)
}

// Changes lists what differs from the pristine stub (ch.Pristine()) in a
// chapter's exercise folder: "store.go (edited)", "extra.go (added)",
// "wal.go (deleted)".
func (w Workbook) Changes(ch course.Chapter, pristine map[string]string) []string {
	files, _ := StubFiles(w.Path(ch.Dir()))
	var out []string
	for name, text := range files {
		if want, ok := pristine[name]; !ok {
			out = append(out, name+" (added)")
		} else if want != text {
			out = append(out, name+" (edited)")
		}
	}
	for name := range pristine {
		if _, ok := files[name]; !ok {
			out = append(out, name+" (deleted)")
		}
	}
	sort.Strings(out)
	return out
}

// Reset puts the chapter's exercise folder back as shipped: the pristine stub
// files (ch.Pristine()) and the thin test file, with every other Go file
// removed. Before it changes anything it copies the folder's Go files to
// .onehistory/backup/<chapter>-<time>/, and returns that folder ("" when there
// was nothing to keep).
func (w Workbook) Reset(ch course.Chapter, pristine map[string]string) (string, error) {
	if len(pristine) == 0 {
		return "", fmt.Errorf("no pristine stub is stored for %s", ch.ID)
	}
	dir := w.Path(ch.Dir())
	var backup string
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".go") {
				continue
			}
			if backup == "" {
				backup = filepath.Join(w.StateDir(), "backup", ch.ID+"-"+time.Now().Format("20060102-150405.000"))
				if err := os.MkdirAll(backup, 0o755); err != nil {
					return "", err
				}
			}
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				return "", err
			}
			if err := os.WriteFile(filepath.Join(backup, e.Name()), data, 0o644); err != nil {
				return "", err
			}
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return "", err
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return backup, err
	}
	for name, text := range pristine {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return backup, err
		}
	}
	return backup, os.WriteFile(filepath.Join(dir, ch.TestFileName()), []byte(ch.TestFile()), 0o644)
}

// hintState is .onehistory/hints.json: the last hint level shown per chapter.
type hintState map[string]int

func (w Workbook) hintFile() string { return filepath.Join(w.StateDir(), "hints.json") }

// HintsShown is the last hint level shown for a chapter, 0 if none.
func (w Workbook) HintsShown(id string) int {
	state := hintState{}
	if data, err := os.ReadFile(w.hintFile()); err == nil {
		_ = json.Unmarshal(data, &state)
	}
	return state[id]
}

// NextHint advances the chapter's hint level, up to levels, remembers it and
// returns it: 1 the first time, then 2, and so on, staying at the last.
func (w Workbook) NextHint(id string, levels int) (int, error) {
	level := min(w.HintsShown(id)+1, levels)
	return level, w.SawHint(id, level)
}

// SawHint remembers that the chapter's hint level was shown, when it is
// beyond the level reached so far: NextHint then goes on from it.
func (w Workbook) SawHint(id string, level int) error {
	state := hintState{}
	if data, err := os.ReadFile(w.hintFile()); err == nil {
		_ = json.Unmarshal(data, &state) // a damaged file starts over
	}
	if level <= state[id] {
		return nil
	}
	state[id] = level
	data, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(w.StateDir(), 0o755); err != nil {
		return err
	}
	return os.WriteFile(w.hintFile(), append(data, '\n'), 0o644)
}
