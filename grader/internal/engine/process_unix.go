//go:build unix

package engine

import (
	"os"
	"os/exec"
	"syscall"

	"onehistory/internal/harness/verdict"
)

// ownGroup starts cmd in a process group of its own, so that killGroup ends
// it and every process it started together.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills cmd's process group: the process and every process it
// started, such as a test binary stuck in an endless loop or a child it
// left behind.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
	}
}

func exeSuffix() string { return "" }

// verdictChannel is the hidden suite's private line to the grader: a pipe
// whose write end the test binary gets as file descriptor 3 (its first
// extra file), named with the run's nonce in verdict.Env.
type verdictChannel struct {
	env   string
	extra []*os.File
	r, w  *os.File
}

func newVerdictChannel(tmp, nonce string) (*verdictChannel, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	return &verdictChannel{env: verdict.Env + "=" + nonce + " 3", extra: []*os.File{w}, r: r, w: w}, nil
}

// started closes the grader's copy of the write end once the binary has
// its own, so that the read end sees the end when the binary's is gone.
func (c *verdictChannel) started() { c.w.Close() }

// ended is called once the binary has exited.
func (c *verdictChannel) ended() {}

// read reads the channel into v until it ends.
func (c *verdictChannel) read(v *verdicts) { v.read(c.r) }

// close ends a read still waiting.
func (c *verdictChannel) close() { c.r.Close() }
