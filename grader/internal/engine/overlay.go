package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"onehistory/grader/internal/result"
	"onehistory/internal/harness/course"
)

// overlay is the file the go command's -overlay flag reads: each path in
// Replace is read from the file it maps to instead, or treated as absent when
// it maps to "".
type overlay struct {
	Replace map[string]string
}

// writeOverlay prepares the grader's view of the chapter's folder in tmp and
// returns it, and the path of the overlay file that holds it. In that view:
//
//   - the thin test file is the registry's canonical text, whatever the
//     folder holds (or whether it holds one at all);
//   - every other _test.go file is hidden, so a learner's TestMain or extra
//     test cannot run;
//   - for the Stubs source, the stub files are the pristine ones and any other
//     Go file in the folder is hidden, so the learner's edits do not count.
func writeOverlay(tmp, dir string, ch course.Chapter, src result.Source, pristine map[string]string) (overlay, string, error) {
	ov := overlay{Replace: map[string]string{}}
	canonical := filepath.Join(tmp, ch.TestFileName())
	if err := os.WriteFile(canonical, []byte(ch.TestFile()), 0o644); err != nil {
		return ov, "", err
	}
	ov.Replace[filepath.Join(dir, ch.TestFileName())] = canonical

	entries, err := os.ReadDir(dir)
	if err != nil {
		return ov, "", err
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || name == ch.TestFileName() {
			continue
		}
		if strings.HasSuffix(name, "_test.go") {
			ov.Replace[filepath.Join(dir, name)] = ""
			continue
		}
		if src == result.Stubs {
			if _, ok := pristine[name]; !ok {
				ov.Replace[filepath.Join(dir, name)] = ""
			}
		}
	}
	if src == result.Stubs {
		stubs := filepath.Join(tmp, "stub")
		if err := os.MkdirAll(stubs, 0o755); err != nil {
			return ov, "", err
		}
		for name, text := range pristine {
			file := filepath.Join(stubs, name)
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				return ov, "", err
			}
			ov.Replace[filepath.Join(dir, name)] = file
		}
	}

	file, err := ov.write(tmp)
	return ov, file, err
}

// ownTests are the learner's own test files in the chapter's folder abs
// (dir, relative to the root): every _test.go file but the chapter's thin
// test file, which writeOverlay hides, sorted (os.ReadDir's order).
func ownTests(abs, dir string, ch course.Chapter) []string {
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, "_test.go") && name != ch.TestFileName() && !e.IsDir() {
			out = append(out, dir+"/"+name)
		}
	}
	return out
}

// write writes the overlay as overlay.json in dir and returns its path.
func (ov overlay) write(dir string) (string, error) {
	data, err := json.MarshalIndent(ov, "", "\t")
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, "overlay.json")
	return file, os.WriteFile(file, data, 0o644)
}
