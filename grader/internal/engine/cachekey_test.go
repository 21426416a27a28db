package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// Two copies of the workbook build byte-identical test binaries (the grader
// builds with -trimpath), but a suite's output names files under the copy
// it ran in: one copy's cached result must never be read back in another.
func TestTheResultCacheKeepsCopiesOfTheWorkbookApart(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "ex01.test")
	if err := os.WriteFile(bin, []byte("the same binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	a := cacheKey(bin, Options{Root: "/home/learner/one-history"}, "TestEx01")
	b := cacheKey(bin, Options{Root: "/tmp/ci/one-history"}, "TestEx01")
	if a == "" || a == b {
		t.Fatalf("the same binary run in two copies of the workbook has keys %q and %q", a, b)
	}
	if again := cacheKey(bin, Options{Root: "/home/learner/one-history"}, "TestEx01"); again != a {
		t.Fatalf("the same run has two keys: %q and %q", a, again)
	}
}
