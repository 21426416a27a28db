package main

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPty opens a pseudo-terminal: the side a terminal emulator holds
// (keys are written to it) and the side a program reads as its terminal.
func openPty(t *testing.T) (keyboard, tty *os.File) {
	t.Helper()
	keyboard, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { keyboard.Close() })
	var n uint32
	unlock := int32(0)
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, keyboard.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("cannot unlock the pseudo-terminal: %v", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, keyboard.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("cannot name the pseudo-terminal: %v", e)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("cannot open the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return keyboard, tty
}

// At a terminal, watch hears q the moment it is pressed, without Enter, and
// leaves the terminal as it found it: reading lines, echoing keys.
func TestWatchHearsQWithoutEnterAndPutsTheTerminalBack(t *testing.T) {
	keyboard, tty := openPty(t)
	var before syscall.Termios
	if err := termios(tty.Fd(), getTermios, &before); err != nil {
		t.Fatal(err)
	}
	if before.Lflag&syscall.ICANON == 0 {
		t.Fatal("a new pseudo-terminal should read lines")
	}
	restore, ok := keysByKey(tty)
	if !ok {
		t.Fatal("keysByKey: the pseudo-terminal would not change")
	}
	keys := make(chan watchKey)
	go readKeys(tty, true, keys)
	if _, err := keyboard.Write([]byte("xq")); err != nil {
		t.Fatal(err)
	}
	for _, want := range []watchKey{keyOther, keyQuit} {
		select {
		case got := <-keys:
			if got != want {
				t.Fatalf("key %v, want %v", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("q without Enter never reached watch")
		}
	}
	restore()
	var after syscall.Termios
	if err := termios(tty.Fd(), getTermios, &after); err != nil {
		t.Fatal(err)
	}
	if after.Lflag != before.Lflag || after.Cc != before.Cc {
		t.Errorf("the terminal was not put back: lflag %#x, was %#x", after.Lflag, before.Lflag)
	}
}
