package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"onehistory/grader/internal/result"
	"onehistory/internal/harness/suite"
)

// The result cache keeps what a test binary's run came to, keyed by the
// binary's own bytes and everything else that reaches the run (SEED, RUNS,
// the time limit, the timeline's width), as go test's cache does for its
// results: grading the
// same code again, unchanged, gives the same answer without running it. Go
// builds are reproducible, so the same sources give the same binary. Only
// passes and plain failures are kept (not a "stuck" failure, which the
// simulator's wall-clock watchdog reports); a timeout, a panic, tampering
// or a problem is run again every time.
//
// The cache lives in the go command's build cache folder, in a folder of
// its own ("onehistory-grader"), so that it is shared by every copy of the
// workbook and cleaned with go clean -cache.

// cacheVersion changes whenever the meaning of a cached result does.
const cacheVersion = "onehistory-grader-results/v1"

var cacheDirs sync.Map

// resultCacheDir is where results are cached, or "" for nowhere.
func resultCacheDir(ctx context.Context, opts Options) string {
	switch opts.CacheDir {
	case "off":
		return ""
	case "":
	default:
		return opts.CacheDir
	}
	if d, ok := cacheDirs.Load(opts.Go); ok {
		return d.(string)
	}
	cmd := exec.CommandContext(ctx, opts.Go, "env", "GOCACHE")
	cmd.Dir = opts.Root
	cmd.Env = environment(opts)
	out, err := output(cmd, false)
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" || dir == "off" || !filepath.IsAbs(dir) {
		dir = ""
	} else {
		dir = filepath.Join(dir, "onehistory-grader")
	}
	cacheDirs.Store(opts.Go, dir)
	return dir
}

// cacheKey is the key of a run of the binary bin with opts.
func cacheKey(bin string, opts Options, test string) string {
	f, err := os.Open(bin)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	// The workbook's folder too: a suite writes files under it and names
	// them in its output (a history visualization), so a result from
	// another copy of the workbook would name that copy's files.
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00", cacheVersion, opts.Root, opts.Seed, opts.Runs, opts.Timeout, test)
	// Where the pictures go: the untouched stub's binary is the pristine
	// stub's, and its result names pictures in the folder of its source.
	fmt.Fprintf(h, "%s\x00", picturesDir(opts))
	// What the suites read besides SEED and RUNS: how wide to draw timelines.
	for _, kv := range opts.Env {
		if strings.HasPrefix(kv, "ONEHISTORY_") || strings.HasPrefix(kv, "COLUMNS=") {
			fmt.Fprintf(h, "%s\x00", kv)
		}
	}
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cached is a result as the cache keeps it: with the checksum of every
// picture its run drew, keyed by the path the result names it by.
type cached struct {
	result.Chapter
	Pictures map[string]string `json:"pictures_sha256,omitempty"`
}

// loadCached returns the result stored under key, if it is one a run
// settled (pass or fail) and every picture it names is still the one its
// run drew: a later run of the chapter removes an earlier run's pictures,
// and another run under the same name (a test grading the stubs another
// way, say) redraws them, so a report never names a picture that is gone
// or shows another run's failure; the chapter then runs again.
func loadCached(dir, key, root string) (result.Chapter, bool) {
	var c cached
	if dir == "" || key == "" {
		return c.Chapter, false
	}
	data, err := os.ReadFile(filepath.Join(dir, key[:2], key+".json"))
	if err != nil || json.Unmarshal(data, &c) != nil {
		return c.Chapter, false
	}
	settled := c.Status == result.Pass || c.Status == result.Fail
	return c.Chapter, settled && maps.Equal(c.Pictures, pictureSums(root, c.Chapter))
}

// pictureSums is the checksum of every picture res names, keyed by the
// name res gives it; a picture that cannot be read has none.
func pictureSums(root string, res result.Chapter) map[string]string {
	sums := map[string]string{}
	for _, c := range res.Checks {
		for _, f := range c.Failures {
			if f.HTML == "" {
				continue
			}
			path := filepath.FromSlash(f.HTML)
			if !filepath.IsAbs(path) {
				path = filepath.Join(root, path)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				sums[f.HTML] = "missing"
				continue
			}
			sum := sha256.Sum256(data)
			sums[f.HTML] = hex.EncodeToString(sum[:])
		}
	}
	if len(sums) == 0 {
		return nil
	}
	return sums
}

func storeCached(dir, key, root string, res result.Chapter) {
	if dir == "" || key == "" || !(res.Status == result.Pass || res.Status == result.Fail) {
		return
	}
	for _, c := range res.Checks {
		for _, f := range c.Failures {
			if f.Name == suite.StuckName {
				return // the one failure that depends on the wall clock: a loaded machine may not see it again
			}
		}
	}
	data, err := json.Marshal(cached{Chapter: res, Pictures: pictureSums(root, res)})
	if err != nil {
		return
	}
	sub := filepath.Join(dir, key[:2])
	if os.MkdirAll(sub, 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(sub, key+".*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(sub, key+".json")) != nil {
		os.Remove(tmp.Name())
	}
}
