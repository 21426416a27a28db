package course

import (
	"embed"
	"io/fs"
	"path"
	"strings"
)

// PristineSuffix ends the name of every file in the pristine store, so that
// the copies are not Go files and are never compiled.
const PristineSuffix = ".txt"

// pristine is the store of stubs as shipped, refreshed by go generate (see
// gen/). Each chapter has a folder named like its exercise folder.
//
//go:embed pristine
var pristine embed.FS

// Pristine returns the chapter's stub exactly as the workbook ships it: the
// Go files of its exercise folder other than test files, by file name
// ("store.go"), with their text. It returns an empty map for a chapter whose
// stub was never stored (go generate ./internal/harness/course stores it).
// The map is the caller's to keep.
func (c Chapter) Pristine() map[string]string {
	files := map[string]string{}
	dir := path.Join("pristine", path.Base(c.Dir()))
	entries, err := fs.ReadDir(pristine, dir)
	if err != nil {
		return files
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), PristineSuffix) {
			continue
		}
		data, err := fs.ReadFile(pristine, path.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		files[strings.TrimSuffix(e.Name(), PristineSuffix)] = string(data)
	}
	return files
}

// IsStubFile reports whether a file name in an exercise folder belongs to the
// stub a learner edits: a Go file that is not a test file. The thin test file
// and any other _test.go file are the grader's business, not the stub's.
func IsStubFile(name string) bool {
	return strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")
}
