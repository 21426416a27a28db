//go:build !unix

package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"onehistory/internal/harness/verdict"
)

// ownGroup does nothing where process groups are not available.
func ownGroup(cmd *exec.Cmd) {}

// killGroup kills the process; where process groups are not available, a
// process it started may outlive it until the system reaps it.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func exeSuffix() string { return ".exe" }

// verdictChannel is the hidden suite's private line to the grader. Where
// open files cannot be passed to a child, it is a file in the grader's own
// folder for the chapter, named with the run's nonce in verdict.Env, and
// read once the binary has exited.
type verdictChannel struct {
	env   string
	extra []*os.File
	path  string
	done  chan struct{}
	once  sync.Once
}

func newVerdictChannel(tmp, nonce string) (*verdictChannel, error) {
	path := filepath.Join(tmp, "verdicts")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		return nil, err
	}
	return &verdictChannel{env: verdict.Env + "=" + nonce + " @" + path, path: path, done: make(chan struct{})}, nil
}

func (c *verdictChannel) started() {}

func (c *verdictChannel) ended() { c.once.Do(func() { close(c.done) }) }

func (c *verdictChannel) read(v *verdicts) {
	<-c.done
	f, err := os.Open(c.path)
	if err != nil {
		return
	}
	defer f.Close()
	v.read(f)
}

func (c *verdictChannel) close() { c.ended() }
