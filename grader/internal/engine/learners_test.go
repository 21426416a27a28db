package engine

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/result"
)

// Each archive in testdata/learners is a learner's code for the fake
// chapter and what the grader must make of it. Its comment says why, in
// prose, then lists the expectations, one "key: value" a line:
//
//	timeout: 1s          the grading's time limit (options default otherwise)
//	max-output: 65536    the output cap
//	status: error        the chapter's status
//	points: 3            the points it earns
//	checks: alpha=pass beta=error
//	failure: beta        the check whose failure is told
//	failure-name: NAME   the failure's name
//	problem: panic       the problem's kind
//	check: beta          the check the problem struck
//	at: FILE:LINE [LINE...]  where the problem points (one of the lines)
//	summary: TEXT        the problem's summary contains TEXT (repeatable)
//	summary-is: TEXT     the problem's summary is TEXT
//	summary-not: TEXT    the problem's summary does not contain TEXT
//	output: TEXT         the output kept contains TEXT
//	cut: yes             some output was cut
//	rules: off           grade without the world's rules, to show what the
//	                     defences after them do on their own
//
// Its files are written over the fake workbook.
func TestWhatTheGraderMakesOfALearnersCode(t *testing.T) {
	names, err := filepath.Glob("testdata/learners/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, names)
	for _, name := range names {
		t.Run(strings.TrimSuffix(filepath.Base(name), ".txtar"), func(t *testing.T) {
			t.Parallel()
			a, err := txtar.ParseFile(name)
			require.NoError(t, err)
			root := fakeWorkbook(t)
			for _, f := range a.Files {
				write(t, root, f.Name, string(f.Data))
			}
			opts := options(t, root)
			want := expectations(t, string(a.Comment))
			if v, ok := want["timeout"]; ok {
				d, err := time.ParseDuration(v[0])
				require.NoError(t, err)
				opts.Timeout = d
			}
			if v, ok := want["rules"]; ok && v[0] == "off" {
				opts.SkipImportCheck = true
			}
			if v, ok := want["max-output"]; ok {
				n, err := strconv.Atoi(v[0])
				require.NoError(t, err)
				opts.MaxOutput = n
			}
			ch := gradeFake(t, opts)
			judge(t, ch, want)
			if opts.MaxOutput > 0 {
				assert.LessOrEqual(t, len(ch.Output), opts.MaxOutput+200, "output kept within the cap")
			}
		})
	}
}

// expectations reads the "key: value" lines of an archive's comment; the
// prose before them, and blank lines, are skipped.
func expectations(t *testing.T, comment string) map[string][]string {
	t.Helper()
	want := map[string][]string{}
	for _, line := range strings.Split(comment, "\n") {
		key, value, ok := strings.Cut(line, ": ")
		if !ok || strings.ContainsAny(key, " ,.") {
			continue
		}
		want[key] = append(want[key], value)
	}
	require.NotEmpty(t, want["status"], "every archive says what status its code earns")
	return want
}

// judge compares a graded chapter with an archive's expectations.
func judge(t *testing.T, ch result.Chapter, want map[string][]string) {
	t.Helper()
	for key, values := range want {
		for _, v := range values {
			switch key {
			case "timeout", "max-output", "rules":
			case "status":
				assert.Equal(t, v, string(ch.Status), statuses(ch))
			case "points":
				assert.Equal(t, v, strconv.Itoa(ch.Points))
			case "checks":
				assert.Equal(t, v, statuses(ch))
			case "failure", "failure-name":
				if assert.NotNil(t, ch.Failure, "a failure told") {
					got := ch.Failure.Check
					if key == "failure-name" {
						got = ch.Failure.Name
					}
					assert.Equal(t, v, got)
				}
			case "output":
				assert.Contains(t, ch.Output, v)
			case "cut":
				assert.Positive(t, ch.Cut)
			case "problem", "check", "at", "summary", "summary-is", "summary-not":
				require.NotNil(t, ch.Problem, "a problem reported")
				judgeProblem(t, ch.Problem, key, v)
			default:
				t.Errorf("unknown expectation %q", key)
			}
		}
	}
}

func judgeProblem(t *testing.T, p *result.Problem, key, v string) {
	t.Helper()
	switch key {
	case "problem":
		assert.Equal(t, v, string(p.Kind))
	case "check":
		assert.Equal(t, v, p.Check)
	case "at":
		file, lines, _ := strings.Cut(v, ":")
		assert.Equal(t, file, p.File)
		assert.Contains(t, strings.Fields(lines), strconv.Itoa(p.Line), p.Summary)
	case "summary":
		assert.Contains(t, p.Summary, v)
	case "summary-is":
		assert.Equal(t, v, p.Summary)
	case "summary-not":
		assert.NotContains(t, p.Summary, v)
	}
}
