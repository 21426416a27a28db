package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/result"
	"onehistory/internal/harness/course"
)

// escape is a chapter file (the grader's own fixture: a chapter may import
// neither os nor os/exec) that starts `setsid sleep 300`: a process in a
// session, and so a process group, of its own, which the kill of the test
// binary's group does not reach, and which holds the binary's output open.
// It writes the process's pid to a file once the process has left the
// binary's group, and does not wait for it.
const escape = `package ex99

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

func init() {
	cmd := exec.Command("setsid", "sleep", "300")
	cmd.Stdout = os.Stdout
	if cmd.Start() != nil {
		return
	}
	// Until setsid has run, the process is still in the binary's group.
	for i := 0; i < 500; i++ {
		if pgid, err := syscall.Getpgid(cmd.Process.Pid); err == nil && pgid != syscall.Getpgrp() {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	os.WriteFile(%q, []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
}
`

// escapee grades root's fake chapter with opts and returns the pid of the
// process its code left behind.
func escapee(t *testing.T, root string, opts Options) (result.Chapter, int) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pid")
	write(t, root, "exercises/ex99-fake/escape.go", fmt.Sprintf(escape, pidFile))
	ch := gradeFake(t, opts)
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err, "the chapter's code started setsid sleep 300")
	pid, err := strconv.Atoi(string(data))
	require.NoError(t, err)
	return ch, pid
}

// alive reports whether pid is a live process running sleep 300 (not a
// zombie waiting for its parent).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data))
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return len(fields) > 2 && fields[2] != "Z" && strings.Contains(string(cmdline), "300")
}

// A process that leaves the test binary's process group survives the kill
// of that group: without the reaper it is still running once grading has
// returned, and, holding the binary's output open, it has held grading up
// for drainLimit and cost the chapter its output. With Options.Reap (as the grader command grades), the grader
// is a child subreaper: the process is handed to it when its parent dies,
// and killed and reaped once the binary has ended, before grading returns.
//
// Not parallel: the test process itself becomes a subreaper for a while,
// and the first half needs it not to be one.
func TestNoProcessOutlivesGrading(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc")
	}
	root := fakeWorkbook(t)
	write(t, root, "exercises/ex99-fake/fake.go", solved)

	opts := options(t, root)
	opts.SkipImportCheck = true
	ch, pid := escapee(t, root, opts)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	// It held the output open, so the grader waited drainLimit for its end
	// and then cut it short: the chapter's result is not to be trusted.
	t.Logf("without the reaper: %s %+v", ch.Status, ch.Problem)
	assert.True(t, alive(pid), "without the reaper, setsid sleep 300 (pid %d) outlives grading: the test shows nothing", pid)
	syscall.Kill(pid, syscall.SIGKILL)

	opts.Reap = true
	start := time.Now()
	ch, pid = escapee(t, root, opts)
	took := time.Since(start)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	assert.Equal(t, result.Pass, ch.Status, statuses(ch))
	assert.False(t, alive(pid), "setsid sleep 300 (pid %d) outlived grading", pid)
	assert.True(t, errors.Is(syscall.Kill(pid, 0), syscall.ESRCH), "pid %d is not even a zombie: the grader reaped it", pid)
	assert.Less(t, took, drainLimit, "the grader did not wait for the pipes the process held")
	assert.False(t, reaping(), "once grading returns, the test process is no subreaper any more")
}

// The sweep after one chapter's binary kills only what the engine did not
// start: chapters graded beside it, their builds and their test2json,
// carry on. Here ex98's code takes its time while ex99's binary, whose code
// escapes, ends and is swept; both pass.
func TestTheSweepSparesTheGradersOwnChildren(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc")
	}
	root := fakeWorkbook(t)
	write(t, root, "exercises/ex99-fake/fake.go", solved)
	pidFile := filepath.Join(t.TempDir(), "pid")
	write(t, root, "exercises/ex99-fake/escape.go", fmt.Sprintf(escape, pidFile))
	second := fake
	second.ID, second.Slug = "ex98", "second"
	write(t, root, "exercises/ex98-second/ex98_test.go", second.TestFile())
	write(t, root, "exercises/ex98-second/fake.go", "package ex98\n\nimport \"time\"\n\nfunc Behave(check string) string { time.Sleep(400 * time.Millisecond); return \"ok\" }\n")

	opts := options(t, root)
	opts.SkipImportCheck = true
	opts.Reap = true
	opts.Parallel = 2
	opts.Pristine = func(course.Chapter) map[string]string { return nil }
	rep := Grade(context.Background(), opts, []course.Chapter{second, fake})
	for _, ch := range rep.Chapters {
		assert.Equal(t, result.Pass, ch.Status, "%s: %s %+v", ch.ID, statuses(ch), ch.Problem)
	}
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, _ := strconv.Atoi(string(data))
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	assert.False(t, alive(pid), "setsid sleep 300 (pid %d) outlived grading", pid)
}
