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

// pipeChannel is the hidden suite's private line to the grader where open
// files can be passed to a child: the test binary gets the write end of the
// channel's pipe as file descriptor 3 and the read end of a second pipe,
// which holds the run's key and is already closed at the grader's end, as
// file descriptor 4. verdict.Env says "3 4" and nothing more.
type pipeChannel struct {
	r, w   *os.File // the channel
	keyEnd *os.File // the key pipe's read end, the binary's fd 4
}

func newPipeChannel(key []byte) (*pipeChannel, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	kr, kw, err := os.Pipe()
	if err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	// The key is far smaller than a pipe's buffer: the write does not wait
	// for a reader.
	_, err = kw.Write(key)
	if cerr := kw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Close()
		w.Close()
		kr.Close()
		return nil, err
	}
	return &pipeChannel{r: r, w: w, keyEnd: kr}, nil
}

func (c *pipeChannel) env() string       { return verdict.Env + "=3 4" }
func (c *pipeChannel) extra() []*os.File { return []*os.File{c.w, c.keyEnd} }

// started closes the grader's copies of the ends the binary has its own of,
// so that the read end sees the end when the binary's is gone.
func (c *pipeChannel) started() {
	c.w.Close()
	c.keyEnd.Close()
}

func (c *pipeChannel) ended() {}

func (c *pipeChannel) read(v *verdicts) { v.read(c.r) }

// close ends a read still waiting, and closes the ends meant for a binary
// that never started.
func (c *pipeChannel) close() {
	c.r.Close()
	c.w.Close()
	c.keyEnd.Close()
}

// newVerdictChannel is a pipe channel, or a file channel when the engine's
// own tests ask for the one other systems use.
func newVerdictChannel(tmp string, key []byte, files bool) (verdictChannel, error) {
	if files {
		return newFileChannel(tmp, key)
	}
	return newPipeChannel(key)
}
