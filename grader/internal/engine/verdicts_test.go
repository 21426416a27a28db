package engine

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/result"
	"onehistory/internal/harness/verdict"
)

// What arrives on the verdict channel, line by line, and what the grader
// makes of it. An honest run of the fake chapter's suite writes these lines
// in this order; every story below changes the stream the way something
// other than the suite could, and the grader must see it.

var channelKey = bytes.Repeat([]byte{42}, verdict.KeySize)

// honest is what the suite writes for a chapter that passes alpha and
// fails beta.
func honest() []verdict.Line {
	return []verdict.Line{
		{Event: verdict.BeginEvent, Chapter: "ex99"},
		{Event: verdict.VerdictEvent, Check: "alpha", Passed: true},
		{Event: verdict.FailureEvent, Check: "beta", Failure: []byte(`{"name":"fake-failure","story":"server-1 answered wrongly"}`)},
		{Event: verdict.VerdictEvent, Check: "beta"},
		{Event: verdict.EndEvent},
	}
}

// signed numbers the lines in the order given and signs them, as the
// verdict package does: one []byte per line, without its newline.
func signed(t *testing.T, key []byte, lines []verdict.Line) [][]byte {
	t.Helper()
	var out [][]byte
	for i, l := range lines {
		l.Seq = i
		data, err := verdict.Sign(key, l)
		require.NoError(t, err)
		out = append(out, data)
	}
	return out
}

// readStream reads lines (each followed by a newline) as the channel.
func readStream(lines ...[]byte) *verdicts {
	v := newVerdicts(channelKey)
	var buf bytes.Buffer
	for _, l := range lines {
		buf.Write(l)
		buf.WriteByte('\n')
	}
	v.read(&buf)
	return v
}

func TestAnHonestStreamIsTakenAsItIs(t *testing.T) {
	v := readStream(signed(t, channelKey, honest())...)
	assert.True(t, v.began)
	assert.True(t, v.ended)
	assert.Equal(t, map[string]bool{"alpha": true, "beta": false}, v.passed)
	assert.Equal(t, "fake-failure", v.failures["beta"][0].Name)
	assert.Zero(t, v.nForged)
	assert.Empty(t, v.broken)
	assert.Empty(t, v.intruder)
}

func TestTamperedStreams(t *testing.T) {
	lines := signed(t, channelKey, honest())
	forged := func(l verdict.Line) []byte {
		data, err := verdict.Sign(bytes.Repeat([]byte{1}, verdict.KeySize), l)
		require.NoError(t, err)
		return data
	}
	for _, tc := range []struct {
		story  string
		stream [][]byte
		forged bool   // counted as a line the suite did not write
		broken string // the breach of the suite's own lines (a forged line leaves a gap)
	}{
		{"a writer that knows the channel but not the key adds a pass for beta",
			[][]byte{lines[0], lines[1], forged(verdict.Line{Seq: 2, Event: verdict.VerdictEvent, Check: "beta", Passed: true}), lines[4]}, true, "line 4 came where line 2 was due"},
		{"the old protocol's line, with a guessed nonce",
			[][]byte{lines[0], []byte(`{"nonce":"guess","event":"verdict","check":"beta","passed":true}`)}, true, ""},
		{"the suite's fail rewritten into a pass",
			[][]byte{lines[0], lines[1], lines[2], bytes.Replace(lines[3], []byte(`"event":"verdict"`), []byte(`"event":"verdict","passed":true`), 1), lines[4]}, true, "line 4 came where line 3 was due"},
		{"the suite's lines read back and written again: a repeat",
			[][]byte{lines[0], lines[1], lines[1], lines[2], lines[3], lines[4]}, false, "line 1 came again after line 1"},
		{"beta's failure and verdict taken off the channel: a gap",
			[][]byte{lines[0], lines[1], lines[4]}, false, "line 4 came where line 2 was due"},
		{"the lines put back out of order",
			[][]byte{lines[0], lines[2], lines[1], lines[3], lines[4]}, false, "line 2 came where line 1 was due"},
		{"the suite run a second time (-test.count=2)",
			append(lines, signed(t, channelKey, append(make([]verdict.Line, 5), honest()...))[5:]...), false, "line 5 (begin) came after the suite's end"},
	} {
		t.Run(tc.story, func(t *testing.T) {
			v := readStream(tc.stream...)
			if tc.forged {
				assert.Positive(t, v.nForged)
			} else {
				assert.Zero(t, v.nForged, v.forged)
			}
			assert.Equal(t, tc.broken, v.broken)
			res := result.Chapter{Checks: []result.Check{{Name: "alpha", Status: result.Pass}, {Name: "beta", Status: result.Fail}}}
			require.True(t, tampering(fake, newRecord(1000), v, outcome{}, &res), "classified as tampering")
			assert.Equal(t, result.Tampering, res.Problem.Kind)
			first, _, _ := strings.Cut(res.Problem.Summary, ".")
			t.Log(first)
		})
	}
}

// The protocol's rules on the suite's own lines, each broken once by a
// stream whose every line is signed and numbered in order (as if the suite
// itself had gone wrong, or its package been called out of turn).
func TestTheProtocolsRules(t *testing.T) {
	begin := verdict.Line{Event: verdict.BeginEvent, Chapter: "ex99"}
	alpha := verdict.Line{Event: verdict.VerdictEvent, Check: "alpha", Passed: true}
	end := verdict.Line{Event: verdict.EndEvent}
	for _, tc := range []struct {
		rule   string
		lines  []verdict.Line
		broken string
	}{
		{"exactly one begin", []verdict.Line{begin, begin, alpha, end}, "line 1 began the suite a second time"},
		{"the begin comes first", []verdict.Line{alpha, begin, end}, "line 0 (verdict) came before the suite began"},
		{"at most one verdict per check", []verdict.Line{begin, alpha, alpha, end}, `line 2 gave check "alpha" a second verdict`},
		{"nothing after the end", []verdict.Line{begin, alpha, end, end}, "line 3 (end) came after the suite's end"},
		{"no event the suite does not write", []verdict.Line{begin, {Event: "pass-everything"}}, `line 1 told of an event the suite does not write ("pass-everything")`},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			v := readStream(signed(t, channelKey, tc.lines)...)
			assert.Equal(t, tc.broken, v.broken)
		})
	}
	v := readStream(signed(t, channelKey, []verdict.Line{begin, alpha, alpha})...)
	assert.False(t, v.passed["alpha"], "a check given two verdicts is not passed")
}

// A call of the verdict package from outside the hidden suites arrives as
// a refusal naming the caller.
func TestARefusedCallerIsNamed(t *testing.T) {
	lines := honest()
	lines = append(lines[:1], append([]verdict.Line{{Event: verdict.RefusedEvent, Caller: "onehistory/exercises/ex99-fake.init.0"}}, lines[1:]...)...)
	v := readStream(signed(t, channelKey, lines)...)
	assert.Equal(t, "onehistory/exercises/ex99-fake.init.0", v.intruder)
	assert.Empty(t, v.broken, "the refusal is numbered like any line")
}

// A process that dies in the middle of writing a line leaves it without its
// newline: it is dropped, not taken for a forgery; it can only take away
// from what the suite said.
func TestALastLineCutShortIsDropped(t *testing.T) {
	lines := signed(t, channelKey, honest())
	var buf bytes.Buffer
	for _, l := range lines[:4] {
		buf.Write(l)
		buf.WriteByte('\n')
	}
	buf.Write(lines[4][:20])
	v := newVerdicts(channelKey)
	v.read(&buf)
	assert.Zero(t, v.nForged)
	assert.False(t, v.ended)
	assert.Equal(t, map[string]bool{"alpha": true, "beta": false}, v.passed)
}
