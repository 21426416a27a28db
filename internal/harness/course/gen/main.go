// Command gen writes the files the chapter registry owns: every chapter's thin
// test file, in its exercise and its solution folder, from
// course.Chapter.TestFile; and the pristine store
// (internal/harness/course/pristine/), a copy of every stub as it is now in
// exercises/. Run it through
//
//	go generate ./internal/harness/course
//
// after changing a registry entry or a stub. It prints one line per file it
// changes and nothing else.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"onehistory/internal/harness/course"
)

func main() {
	if err := generate(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func generate() error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	store := filepath.Join(root, "internal", "harness", "course", "pristine")
	keep := map[string]bool{}
	for _, c := range course.All() {
		for _, dir := range []string{c.Dir(), c.SolutionDir()} {
			abs := filepath.Join(root, filepath.FromSlash(dir))
			if _, err := os.Stat(abs); err != nil {
				fmt.Printf("gen: skipping %s: %s does not exist yet\n", c.ID, dir)
				continue
			}
			if err := write(filepath.Join(abs, c.TestFileName()), []byte(c.TestFile())); err != nil {
				return err
			}
		}
		stub, err := stubFiles(filepath.Join(root, filepath.FromSlash(c.Dir())))
		if err != nil {
			continue // the exercise folder does not exist yet; reported above
		}
		folder := filepath.Base(c.Dir())
		keep[folder] = true
		if err := refresh(filepath.Join(store, folder), stub); err != nil {
			return err
		}
	}
	// Drop the stored stubs of chapters that are no longer registered.
	entries, err := os.ReadDir(store)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() && !keep[e.Name()] {
			fmt.Println("gen: removing", filepath.Join("internal/harness/course/pristine", e.Name()))
			if err := os.RemoveAll(filepath.Join(store, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// stubFiles reads the stub files of an exercise folder.
func stubFiles(dir string) (map[string][]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if e.Type().IsRegular() && course.IsStubFile(e.Name()) {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			files[e.Name()] = data
		}
	}
	return files, nil
}

// refresh makes folder hold exactly the stub's files, each with the pristine
// suffix.
func refresh(folder string, stub map[string][]byte) error {
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(folder)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), course.PristineSuffix)
		if _, ok := stub[name]; !ok {
			fmt.Println("gen: removing", relative(filepath.Join(folder, e.Name())))
			if err := os.Remove(filepath.Join(folder, e.Name())); err != nil {
				return err
			}
		}
	}
	names := make([]string, 0, len(stub))
	for name := range stub {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := write(filepath.Join(folder, name+course.PristineSuffix), stub[name]); err != nil {
			return err
		}
	}
	return nil
}

// write writes data to file unless it already holds exactly that.
func write(file string, data []byte) error {
	if old, err := os.ReadFile(file); err == nil && bytes.Equal(old, data) {
		return nil
	}
	fmt.Println("gen: writing", relative(file))
	return os.WriteFile(file, data, 0o644)
}

// moduleRoot walks up from the working directory to the workbook's go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(data), "module "+course.Module+"\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod of module " + course.Module + " above the working directory")
		}
		dir = parent
	}
}

// relative shortens a path below the working directory's module for printing.
func relative(file string) string {
	if root, err := moduleRoot(); err == nil {
		if rel, err := filepath.Rel(root, file); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return file
}
