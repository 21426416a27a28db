package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/result"
	"onehistory/internal/harness/suite"
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

// A cached result names the pictures its run drew; a later run of the
// chapter (another seed, say) removes them, and another run under the same
// names (a test grading the stubs another way) redraws them. Served from
// the cache, the report would name files that are gone, or pictures of
// another run's failure: it is served only while every picture it names is
// the one its run drew, and otherwise the chapter runs again.
func TestACachedResultIsServedOnlyWhileItsPicturesAreItsOwn(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".onehistory"), 0o755))
	drawn := filepath.Join(root, ".onehistory", "ex04-story-seed-1.html")
	require.NoError(t, os.WriteFile(drawn, []byte("<html>stale-read at 2017.2ms"), 0o644))
	res := result.Chapter{Status: result.Fail, Checks: []result.Check{{Name: "story", Failures: []suite.Failure{{HTML: ".onehistory/ex04-story-seed-1.html"}}}}}
	key := strings.Repeat("ab", 32)
	storeCached(cache, key, root, res)

	_, ok := loadCached(cache, key, root)
	assert.True(t, ok, "the picture is the run's own: the result is served")

	require.NoError(t, os.WriteFile(drawn, []byte("<html>stale-read at 912.4ms"), 0o644))
	_, ok = loadCached(cache, key, root)
	assert.False(t, ok, "another run drew over the picture: the chapter must run again")

	require.NoError(t, os.Remove(drawn))
	_, ok = loadCached(cache, key, root)
	assert.False(t, ok, "the picture is gone: the chapter must run again")

	plain := strings.Repeat("cd", 32)
	storeCached(cache, plain, root, result.Chapter{Status: result.Pass, Checks: []result.Check{{Name: "story"}}})
	_, ok = loadCached(cache, plain, root)
	assert.True(t, ok, "a result without pictures is served")
}

// The stubs' and the solutions' pictures go to folders of their own, so
// that make test never replaces the learner's, and their results are
// cached apart from the learner's.
func TestStubsAndSolutionsDrawTheirPicturesApart(t *testing.T) {
	assert.Equal(t, "", picturesDir(Options{Root: "/wb", Source: result.Exercises}))
	assert.Equal(t, filepath.Join("/wb", ".onehistory", "stubs"), picturesDir(Options{Root: "/wb", Source: result.Stubs}))
	env := environment(Options{Root: "/wb", Source: result.Solutions, Env: []string{suite.PicturesEnv + "=/elsewhere"}})
	assert.Contains(t, env, suite.PicturesEnv+"="+filepath.Join("/wb", ".onehistory", "solutions"))
	assert.NotContains(t, env, suite.PicturesEnv+"=/elsewhere")
}
