package main

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"onehistory/grader/internal/result"
	"onehistory/grader/internal/workbook"
)

// provenance says whose work a run in wb graded, with what, and when
// (started): the student's repository and commit as grader collect
// recorded them when the exercises were collected, else wb's own; the
// course commit is wb's, whose grader and hidden suites graded. Whatever
// git cannot tell is left empty.
func provenance(wb workbook.Workbook, collected *result.Collection, started time.Time) result.Provenance {
	p := result.Provenance{
		GraderVersion: graderVersion(),
		Time:          started.UTC().Truncate(time.Second),
	}
	top := false
	p.CourseCommit, top = gitCommitOfTop(wb.Root)
	if collected != nil {
		p.Repository, p.Commit = collected.Repository, collected.Commit
	} else if top {
		p.Repository, p.Commit = gitRemote(wb.Root), p.CourseCommit
	}
	return p
}

// gitCommit is the HEAD commit of the git checkout whose top folder is dir,
// or "" when dir is not the top of one (a folder inside another checkout
// does not borrow that checkout's commit) or git cannot say.
func gitCommit(dir string) string {
	commit, _ := gitCommitOfTop(dir)
	return commit
}

// gitRepository is the remote origin of the git checkout whose top folder
// is dir, without any user name or password a URL may carry, or "".
func gitRepository(dir string) string {
	if _, top := gitCommitOfTop(dir); !top {
		return ""
	}
	return gitRemote(dir)
}

// gitCommitOfTop asks git once whether dir is the top folder of a git
// checkout, and for its HEAD commit if it is.
func gitCommitOfTop(dir string) (commit string, top bool) {
	lines := gitLines(dir, "rev-parse", "--show-toplevel", "HEAD")
	if lines == nil { // a checkout with no commit yet
		lines = gitLines(dir, "rev-parse", "--show-toplevel")
	}
	if len(lines) < 1 || lines[0] == "" || !same(lines[0], dir) {
		return "", false
	}
	if len(lines) > 1 {
		commit = lines[1]
	}
	return commit, true
}

// gitRemote is the remote origin of the checkout dir is in, without
// credentials, or "".
func gitRemote(dir string) string {
	return withoutCredentials(git(dir, "remote", "get-url", "origin"))
}

// withoutCredentials is a remote's URL with its user information removed:
// https://token@github.com/o/r becomes https://github.com/o/r. An scp-like
// address (git@github.com:o/r.git) names no secret and stays.
func withoutCredentials(remote string) string {
	u, err := url.Parse(remote)
	if err != nil || u.Scheme == "" || u.User == nil {
		return remote
	}
	u.User = nil
	return u.String()
}

// git runs git in dir and returns its first line of output, or "" when git
// is missing, fails, or takes more than a few seconds.
func git(dir string, args ...string) string {
	if lines := gitLines(dir, args...); len(lines) > 0 {
		return lines[0]
	}
	return ""
}

// gitLines runs git in dir and returns its lines of output, trimmed, or
// nothing when git is missing, fails, or takes more than a few seconds.
func gitLines(dir string, args ...string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		lines = append(lines, filepath.ToSlash(strings.TrimSpace(line)))
	}
	return lines
}

// graderVersion is this binary's module version when it was installed at
// one, else the VCS revision go build stamped into it ("+dirty" when the
// checkout had changes), else "".
func graderVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "+dirty"
	}
	return rev
}
