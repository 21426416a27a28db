package main

import (
	"strings"
	"testing"
	"time"
)

// Input that is not a terminal is read a line at a time: q (or quit) and
// Enter quits, any other line grades now.
func TestWatchReadsLinesWhenInputIsNoTerminal(t *testing.T) {
	keys := make(chan watchKey)
	go readKeys(strings.NewReader("\nagain\nq\n"), false, keys)
	var got []watchKey
	for k := range keys {
		got = append(got, k)
	}
	want := []watchKey{keyGrade, keyGrade, keyQuit}
	if len(got) != len(want) {
		t.Fatalf("keys %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("keys %v, want %v", got, want)
		}
	}
}

// The banner says what is watched, when it was graded by this machine's
// clock, and how to quit as the input allows.
func TestWatchBanner(t *testing.T) {
	at := time.Date(2026, 1, 2, 9, 5, 7, 0, time.Local)
	if got, want := watchBanner("ex04", at, true), "watching ex04 · graded 09:05:07 · q quits · Enter or saving grades again"; got != want {
		t.Errorf("at a terminal:\n got %q\nwant %q", got, want)
	}
	if got := watchBanner("exercises/", at, false); !strings.Contains(got, " · q and Enter quits · ") {
		t.Errorf("reading lines: %q", got)
	}
}
