package check_test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
)

// Each file in testdata/linearizable is one history and the verdict the
// linearizability checker must reach on it. The comment says what the
// history shows; the "history" section lists the operations, one a line:
//
//	client        server    call  return  operation                       result
//	controller-b  server-1  400   405     update deployments/web 5 if-rv=1  ok rv=2
//	controller-a  server-2  410   412     read deployments/web             found 3 rv=1
//	controller-b  server-1  100   300     write deployments/web 5          timeout
//	controller-b  server-1  100   -       write deployments/web 5          pending
//
// Operations: read KEY, write KEY V, create KEY V, delete KEY [if-rv=N],
// update KEY V if-rv=N or if-value=W. Results: ok rv=N, found V rv=N, not-found,
// already-exists, conflict, refused, timeout (the client gave up at
// "return"), pending (it never heard back). Times are virtual milliseconds.
//
// The "want" section is "linearizable", or "illegal NAME [at Nms]" followed
// by "story: words" lines the violation's story must contain.
func TestLinearizableHistories(t *testing.T) {
	files, err := filepath.Glob("testdata/linearizable/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			require.NoError(t, err)
			var history, want string
			for _, f := range ar.Files {
				switch f.Name {
				case "history":
					history = string(f.Data)
				case "want":
					want = string(f.Data)
				default:
					t.Fatalf("%s: unknown section %q", file, f.Name)
				}
			}
			h, err := parseHistory(history)
			require.NoError(t, err, file)
			l := check.Linearizable(h, 0)
			judge(t, l, want)
		})
	}
}

// judge compares the checker's verdict with the file's "want" section.
func judge(t *testing.T, l *check.Linearization, want string) {
	lines := strings.Split(strings.TrimSpace(want), "\n")
	head := strings.Fields(lines[0])
	if head[0] == "linearizable" {
		require.Equal(t, check.VerdictLinearizable, l.Verdict, "violation: %v", l.Violation)
		assert.True(t, l.OK())
		assert.Nil(t, l.Violation)
		return
	}
	require.Equal(t, "illegal", head[0], "want must start with linearizable or illegal")
	require.Equal(t, check.VerdictIllegal, l.Verdict, "violation: %v", l.Violation)
	v := l.Violation
	found(t, v, head[1], course.OneHistory)
	if len(head) == 4 && head[2] == "at" {
		assert.Equal(t, mustMillis(t, head[3]), v.At)
	}
	for _, line := range lines[1:] {
		if s, ok := strings.CutPrefix(line, "story: "); ok {
			assert.Contains(t, v.Story, s)
		}
	}
	assert.NotEmpty(t, v.Ops)
	assert.Contains(t, v.Details, "✗")
}

func mustMillis(t *testing.T, s string) time.Duration {
	n, err := strconv.ParseFloat(strings.TrimSuffix(s, "ms"), 64)
	require.NoError(t, err)
	return time.Duration(n * float64(time.Millisecond))
}

// parseHistory reads a history section (see TestLinearizableHistories).
func parseHistory(text string) (*check.History, error) {
	h := check.NewHistory()
	for n, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if err := parseOp(h, strings.Fields(line)); err != nil {
			return nil, fmt.Errorf("history line %d %q: %w", n+1, line, err)
		}
	}
	return h, nil
}

func parseOp(h *check.History, f []string) error {
	if len(f) < 6 {
		return fmt.Errorf("want: client server call return operation... result")
	}
	client, server := f[0], f[1]
	call, err := strconv.Atoi(f[2])
	if err != nil {
		return err
	}
	in, rest, err := parseInput(f[4:])
	if err != nil {
		return err
	}
	id := h.Call(client, server, in, ms(call))
	if len(rest) == 0 {
		return fmt.Errorf("no result")
	}
	if rest[0] == "pending" {
		return nil
	}
	ret, err := strconv.Atoi(f[3])
	if err != nil {
		return err
	}
	if rest[0] == "timeout" {
		h.Timeout(id, ms(ret))
		return nil
	}
	r, err := parseResult(rest)
	if err != nil {
		return err
	}
	h.Return(id, r, ms(ret))
	return nil
}

// parseInput reads "read KEY", "write KEY V", "update KEY V if-rv=N", ...
// and returns what follows it.
func parseInput(f []string) (check.Input, []string, error) {
	need := map[string]int{"read": 2, "delete": 2, "write": 3, "create": 3, "update": 4}[f[0]]
	if need == 0 || len(f) < need {
		return check.Input{}, nil, fmt.Errorf("unknown or short operation %q", strings.Join(f, " "))
	}
	key := f[1]
	switch f[0] {
	case "read":
		return check.Read(key), f[2:], nil
	case "delete":
		if rv, ok := strings.CutPrefix(strings.Join(f[2:3], ""), "if-rv="); ok {
			n, err := strconv.ParseInt(rv, 10, 64)
			return check.DeleteIfVersion(key, n), f[3:], err
		}
		return check.Delete(key), f[2:], nil
	}
	value, err := strconv.Atoi(f[2])
	if err != nil {
		return check.Input{}, nil, err
	}
	switch f[0] {
	case "write":
		return check.Write(key, value), f[3:], nil
	case "create":
		return check.Create(key, value), f[3:], nil
	}
	if rv, ok := strings.CutPrefix(f[3], "if-rv="); ok {
		n, err := strconv.ParseInt(rv, 10, 64)
		return check.UpdateIfVersion(key, value, n), f[4:], err
	}
	if old, ok := strings.CutPrefix(f[3], "if-value="); ok {
		n, err := strconv.Atoi(old)
		return check.UpdateIfValue(key, value, n), f[4:], err
	}
	return check.Input{}, nil, fmt.Errorf("an update needs if-rv=N or if-value=V, not %q", f[3])
}

// parseResult reads "ok rv=N", "found V rv=N", "not-found", ...
func parseResult(f []string) (check.Result, error) {
	rv := func(s string) (int64, error) {
		v, ok := strings.CutPrefix(s, "rv=")
		if !ok {
			return 0, fmt.Errorf("want rv=N, not %q", s)
		}
		return strconv.ParseInt(v, 10, 64)
	}
	switch f[0] {
	case "ok":
		if len(f) != 2 {
			return check.Result{}, fmt.Errorf("want: ok rv=N")
		}
		n, err := rv(f[1])
		return check.Acked(n), err
	case "found":
		if len(f) != 3 {
			return check.Result{}, fmt.Errorf("want: found V rv=N")
		}
		v, err := strconv.Atoi(f[1])
		if err != nil {
			return check.Result{}, err
		}
		n, err := rv(f[2])
		return check.Found(v, n), err
	case "not-found":
		return check.Fail(check.NotFound), nil
	case "already-exists":
		return check.Fail(check.AlreadyExists), nil
	case "conflict":
		return check.Fail(check.Conflict), nil
	case "refused":
		return check.Fail(check.Refused), nil
	}
	return check.Result{}, fmt.Errorf("unknown result %q", strings.Join(f, " "))
}
