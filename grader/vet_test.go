package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/workbook"
)

// The world's rules run under go vet too, with the grader as its tool: a
// learner's editor or CI that knows go vet finds the same findings, rule
// named, as the grader's refusal.
func TestTheRulesRunUnderGoVet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the grader")
	}
	wb, err := workbook.Find(".")
	require.NoError(t, err)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	tool := filepath.Join(t.TempDir(), "grader")
	build := exec.Command(goCmd, "build", "-o", tool, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	// The reference solution keeps the rules.
	vet := exec.Command(goCmd, "vet", "-vettool="+tool, "./solutions/ex04-the-write-that-arrived-late")
	vet.Dir = wb.Root
	out, err = vet.CombinedOutput()
	require.NoError(t, err, "%s", out)

	// One file more, laid over the solution: a package-level counter.
	dir := t.TempDir()
	leak := filepath.Join(dir, "leak.go")
	require.NoError(t, os.WriteFile(leak, []byte("package ex04\n\nvar writes int\n\nfunc count() { writes++ }\n"), 0o644))
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {wb.Path("solutions/ex04-the-write-that-arrived-late/leak.go"): leak}})
	require.NoError(t, err)
	ov := filepath.Join(dir, "overlay.json")
	require.NoError(t, os.WriteFile(ov, overlay, 0o644))
	vet = exec.Command(goCmd, "vet", "-overlay="+ov, "-vettool="+tool, "./solutions/ex04-the-write-that-arrived-late")
	vet.Dir = wb.Root
	out, err = vet.CombinedOutput()
	require.Error(t, err, "%s", out)
	assert.Contains(t, string(out), "leak.go:5:16: changes the package-level variable writes in count [package-state: no package-level state]")
}
