//go:build unix

package verdict

import "syscall"

// keepFromChildren marks fd close-on-exec, so that no process the test
// starts inherits the channel.
func keepFromChildren(fd int) { syscall.CloseOnExec(fd) }
