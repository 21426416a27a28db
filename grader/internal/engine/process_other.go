//go:build !unix

package engine

import "os/exec"

// ownGroup does nothing where process groups are not available.
func ownGroup(cmd *exec.Cmd) {}

// killGroup kills the go command; where process groups are not available, a
// test binary it started may outlive it until the system reaps it.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
