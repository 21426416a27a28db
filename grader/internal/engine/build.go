package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"onehistory/grader/internal/result"
)

// How the test binaries are built. One go command builds every chapter
// that is to be built,
//
//	go test -c -json -o <workbook>/.onehistory/build/<source>/ -vet=off -trimpath -overlay=<all chapters' overlays> ./exercises/ex01-.../ ./exercises/ex02-.../ ...
//
// so that the go command compiles what the chapters share once, compiles
// and links the chapters in parallel, and, because the binaries stay in
// the workbook's build folder between runs, links only the chapters whose
// code changed: the go command leaves a binary alone when its build ID
// says it is up to date. -json tells each package's build output and
// failure apart, so a chapter that does not compile costs that chapter
// alone. Whatever the one command cannot account for (a chapter it says
// nothing about, output it cannot attribute, the build's time limit) is
// built again chapter by chapter, each on its own (unit.build), exactly as
// a chapter graded alone is. Each binary is then linked into the chapter's
// own temporary folder and run from there, so a later build that replaces
// the kept one cannot change the binary a run uses.

// buildDir is the folder the workbook keeps its test binaries in, per
// source: exercises and stubs are the same packages, built differently.
func buildDir(opts Options) string {
	return filepath.Join(opts.Root, ".onehistory", "build", string(opts.Source))
}

// kept is where u's test binary is kept between runs: the name go test -c
// gives it in a folder of binaries.
func (u *unit) kept(opts Options) string {
	return filepath.Join(buildDir(opts), path.Base(u.dir)+".test"+exeSuffix())
}

// buildAll builds the test binaries of the units prepare left to build.
func buildAll(ctx context.Context, opts Options, units []*unit) {
	var todo []*unit
	for _, u := range units {
		if u.done == nil && u.ov != "" {
			todo = append(todo, u)
		}
	}
	if len(todo) == 0 {
		return
	}
	left := todo
	if err := os.MkdirAll(buildDir(opts), 0o755); err == nil {
		left = buildTogether(ctx, opts, todo)
	}
	parallel(opts.Parallel, len(left), func(i int) { left[i].build(ctx, opts) })
}

// buildTogether builds the units with one go command and decides each
// unit's build from what the command said of it; it returns the units it
// could not account for, to be built one by one.
func buildTogether(ctx context.Context, opts Options, units []*unit) []*unit {
	tmp, err := os.MkdirTemp("", "onehistory-grade-build-")
	if err != nil {
		return units
	}
	defer os.RemoveAll(tmp)
	ov, err := mergeOverlays(tmp, units)
	if err != nil {
		return units
	}
	args := []string{"test", "-c", "-json", "-o", buildDir(opts) + string(filepath.Separator), "-vet=off", "-trimpath", "-overlay=" + ov}
	for _, u := range units {
		args = append(args, "./"+u.dir+"/")
	}
	cmd := exec.Command(opts.Go, args...)
	cmd.Dir = opts.Root
	cmd.Env = environment(opts)
	events := newCapped(4 << 20)
	cmd.Stdout = writerFunc(func(p []byte) (int, error) { events.WriteString(string(p)); return len(p), nil })
	ownGroup(cmd)
	if err := procs.start(cmd); err != nil {
		return units
	}
	dog := watch(ctx, cmd, opts.BuildLimit)
	err = procs.wait(cmd)
	dog.release()
	if dog.fired() {
		if ctx.Err() != nil {
			for _, u := range units {
				u.finish(result.Setup, "grading was interrupted", "")
			}
			return nil
		}
		return units // built one by one, each within the limit
	}
	if events.Lost() > 0 {
		return units
	}
	said, unclaimed := buildOutputs(events.String(), units)
	var left []*unit
	for _, u := range units {
		r := said[u]
		switch {
		case r.failed:
			u.built(ctx, opts, r.output.String(), errors.New("build failed"), false)
		case err == nil && !unclaimed:
			u.built(ctx, opts, r.output.String(), nil, false)
		default:
			// The command failed, or said what no chapter claims: this
			// chapter's binary may not be this run's.
			left = append(left, u)
		}
	}
	return left
}

// buildSaid is what one go command said of one unit's build.
type buildSaid struct {
	output bytes.Buffer
	failed bool
}

// buildOutputs sorts the go command's -json build events by unit. A
// package belongs to the unit whose folder it is (its own package, its
// test variant, its external test package, its test main); unclaimed
// reports an event of any other package (the harness failing to build) or
// a line that is not an event.
func buildOutputs(stream string, units []*unit) (map[*unit]*buildSaid, bool) {
	said := map[*unit]*buildSaid{}
	for _, u := range units {
		said[u] = &buildSaid{}
	}
	unclaimed := false
	sc := bufio.NewScanner(strings.NewReader(stream))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e event
		if json.Unmarshal(line, &e) != nil {
			unclaimed = true
			continue
		}
		if e.Action != "build-output" && e.Action != "build-fail" {
			continue
		}
		u := owner(e.ImportPath, units)
		if u == nil {
			unclaimed = true
			continue
		}
		if e.Action == "build-fail" {
			said[u].failed = true
		}
		said[u].output.WriteString(e.Output)
	}
	return said, unclaimed
}

// owner is the unit whose folder the package named in a build event is:
// "m/exercises/ex02-x", "m/exercises/ex02-x [m/exercises/ex02-x.test]",
// "m/exercises/ex02-x_test [...]", "m/exercises/ex02-x.test".
func owner(importPath string, units []*unit) *unit {
	pkg, _, _ := strings.Cut(importPath, " ")
	pkg = strings.TrimSuffix(strings.TrimSuffix(pkg, ".test"), "_test")
	for _, u := range units {
		if pkg == u.dir || strings.HasSuffix(pkg, "/"+u.dir) {
			return u
		}
	}
	return nil
}

// mergeOverlays writes one overlay file, in dir, that holds every unit's
// (as prepare made it, not read back from its file): each replaces files in
// its own chapter's folder alone.
func mergeOverlays(dir string, units []*unit) (string, error) {
	all := overlay{Replace: map[string]string{}}
	for _, u := range units {
		maps.Copy(all.Replace, u.overlay.Replace)
	}
	return all.write(dir)
}

// linkOrCopy puts the file src at dst: a hard link where the file system
// allows one, else a copy.
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
