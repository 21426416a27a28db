//go:build unix

package main

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// terminalWidth is the width in characters of the terminal w writes to, or 0
// when w is not a terminal.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !terminal(w) {
		return 0
	}
	var size struct{ rows, cols, x, y uint16 }
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&size)))
	if errno != 0 {
		return 0
	}
	return int(size.cols)
}
