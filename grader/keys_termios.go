//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"os"
	"syscall"
	"unsafe"
)

// keysByKey puts the terminal f reads from in a mode where each key reaches
// the grader as it is pressed, without Enter and without being echoed;
// Ctrl-C still interrupts. It returns what puts the terminal back as it
// was, or false when f is not a terminal (or will not change).
func keysByKey(f *os.File) (restore func(), ok bool) {
	var was syscall.Termios
	if termios(f.Fd(), getTermios, &was) != nil {
		return nil, false
	}
	now := was
	now.Lflag &^= syscall.ICANON | syscall.ECHO
	now.Cc[syscall.VMIN], now.Cc[syscall.VTIME] = 1, 0
	if termios(f.Fd(), setTermios, &now) != nil {
		return nil, false
	}
	return func() { _ = termios(f.Fd(), setTermios, &was) }, true
}

func termios(fd, request uintptr, t *syscall.Termios) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, request, uintptr(unsafe.Pointer(t))); errno != 0 {
		return errno
	}
	return nil
}
