package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"onehistory/grader/internal/workbook"
)

// labEtcdCmd is `grader lab-etcd [flags]`: the etcd lab (labs/etcd,
// book/lab-etcd.md), the ex03 drill against a real three-member etcd. It
// is a module of its own that needs a newer Go than the workbook, so the
// grader runs it with that module's go command, never downloading a
// toolchain (GOTOOLCHAIN=local), and passes its flags (-drill solution,
// -only mirror, -runs 5) through. Its result is outside the score: the exit
// status is the lab's own (0 every configuration judged right, 1 not, 2 the
// lab could not run or this Go is too old).
func labEtcdCmd(args []string, stdout, stderr io.Writer) int {
	wd, err := os.Getwd()
	if err != nil {
		return fail(stderr, "%v", err)
	}
	wb, err := workbook.Find(wd)
	if err != nil {
		return fail(stderr, "%v; run the grader inside your clone of the workbook", err)
	}
	dir := wb.Path("labs/etcd")
	mod, err := os.ReadFile(dir + "/go.mod")
	if err != nil {
		return fail(stderr, "no etcd lab in this workbook: %v", err)
	}
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	need := goDirective(mod)
	have, err := goVersion(goCmd)
	if err != nil {
		return fail(stderr, "lab-etcd: %v", err)
	}
	if !atLeast(have, need) {
		return fail(stderr, "the etcd lab needs go%s or newer and this go is %s; it is outside the score, so nothing else changes (https://go.dev/dl/)", need, have)
	}
	fmt.Fprintln(stdout, "The etcd lab is outside the score: real etcd, real time. Its first build takes a minute or more.")
	// Built, then run (go run would add its own "exit status 1" line).
	bin := wb.Path("bin/lab-etcd")
	build := exec.Command(goCmd, "build", "-o", bin, "./cmd/lab-etcd")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	build.Stdout, build.Stderr = stderr, stderr
	if err := build.Run(); err != nil {
		return fail(stderr, "lab-etcd: building the lab: %v", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return exitFailed
	}
	return exitUsage
}

// goDirective is the version in a go.mod's go line: "1.26.0".
func goDirective(mod []byte) string {
	for _, line := range strings.Split(string(mod), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "go "); ok {
			return strings.TrimSpace(v)
		}
	}
	return "0"
}

// goVersion is what goCmd says its version is, without downloading any
// other: "go1.26.8".
func goVersion(goCmd string) (string, error) {
	cmd := exec.Command(goCmd, "env", "GOVERSION")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("cannot ask %s for its version: %v", goCmd, err)
	}
	return string(bytes.TrimSpace(out)), nil
}

// atLeast reports whether the Go version have ("go1.26.8") is need
// ("1.26.0") or newer, comparing numbers: go1.9 is older than go1.26.
func atLeast(have, need string) bool {
	if i := strings.Index(have, "go"); i >= 0 {
		have = have[i+len("go"):] // "devel go1.27-abc" too
	}
	h, n := versionNumbers(have), versionNumbers(need)
	for i := range max(len(h), len(n)) {
		var a, b int
		if i < len(h) {
			a = h[i]
		}
		if i < len(n) {
			b = n[i]
		}
		if a != b {
			return a > b
		}
	}
	return true
}

// versionNumbers is "1.26.8" as [1 26 8]; a suffix (rc1, a build tag after
// a space or a dash) ends the number it is on.
func versionNumbers(v string) []int {
	var out []int
	for _, part := range strings.Split(strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == '-' })[0], ".") {
		digits := part
		if i := strings.IndexFunc(part, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
			digits = part[:i]
		}
		n, _ := strconv.Atoi(digits)
		out = append(out, n)
	}
	return out
}
