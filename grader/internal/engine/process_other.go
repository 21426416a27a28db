//go:build !unix

package engine

import (
	"os/exec"
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

// newVerdictChannel is a file channel: open files cannot be passed to a
// child here.
func newVerdictChannel(tmp string, key []byte, files bool) (verdictChannel, error) {
	return newFileChannel(tmp, key)
}
