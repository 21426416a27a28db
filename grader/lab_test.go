package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The lab needs a newer Go than the workbook; versions compare as numbers.
func TestLabGoVersionsCompareAsNumbers(t *testing.T) {
	for _, c := range []struct {
		have, need string
		ok         bool
	}{
		{"go1.26.8", "1.26.0", true},
		{"go1.26", "1.26.0", true},
		{"go1.27rc1", "1.26.0", true},
		{"go1.24.3", "1.26.0", false},
		{"go1.9", "1.26", false},
		{"devel go1.27-abc", "1.26.0", true},
	} {
		if got := atLeast(c.have, c.need); got != c.ok {
			t.Errorf("atLeast(%q, %q) = %v; want %v", c.have, c.need, got, c.ok)
		}
	}
	if v := goDirective([]byte("module onehistory/labs/etcd\n\ngo 1.26.0\n")); v != "1.26.0" {
		t.Errorf("goDirective = %q; want 1.26.0", v)
	}
}

// With a Go too old for the lab, grader lab-etcd says so in one line and
// runs nothing.
func TestLabEtcdWithAnOldGoSaysSo(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "go")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho go1.24.3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GO", fake)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"lab-etcd"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("exit %d; want %d", code, exitUsage)
	}
	if !strings.Contains(stderr.String(), "needs go1.26.0 or newer and this go is go1.24.3") || stdout.Len() != 0 {
		t.Errorf("stdout %q, stderr %q: want one line saying this go is too old", stdout.String(), stderr.String())
	}
}
