package verdict

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testKey = bytes.Repeat([]byte{7}, KeySize)

// A signed line reads back as it was written, and only under its key: a
// writer that knows the channel but not the key cannot make one, and one
// that changes a signed line (a fail into a pass) breaks its signature.
func TestOnlyTheKeyMakesALineThatHolds(t *testing.T) {
	l := Line{Seq: 3, Event: VerdictEvent, Check: "alpha"}
	data, err := Sign(testKey, l)
	require.NoError(t, err)
	got, err := Verify(testKey, data)
	require.NoError(t, err)
	assert.Equal(t, l, got)

	_, err = Verify(bytes.Repeat([]byte{8}, KeySize), data)
	assert.ErrorIs(t, err, ErrUnsigned, "another key")

	passed := bytes.Replace(data, []byte(`"event":"verdict"`), []byte(`"event":"verdict","passed":true`), 1)
	_, err = Verify(testKey, passed)
	assert.ErrorIs(t, err, ErrUnsigned, "a fail rewritten into a pass")

	for _, forged := range []string{
		`{"seq":3,"event":"verdict","check":"alpha","passed":true}`,
		`0000 {"seq":3}`,
		"",
	} {
		_, err = Verify(testKey, []byte(forged))
		assert.ErrorIs(t, err, ErrUnsigned, forged)
	}
}

// Where descriptors cannot be passed on, the key is a file in the
// channel's folder, removed once read.
func TestConnectReadsTheKeyFileAndRemovesIt(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, KeyFile), testKey, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, LinesFile), nil, 0o600))

	f, key := connect("@" + dir)
	require.NotNil(t, f)
	assert.Equal(t, testKey, key)
	assert.NoFileExists(t, filepath.Join(dir, KeyFile))
	f.Close()
}

// Without a key there is no channel: an old-style value that carried a
// secret, a key cut short, descriptors that are not.
func TestConnectRefusesWhatIsNotAChannel(t *testing.T) {
	for _, v := range []string{"", "0123abcd 3", "3", "3 3", "1 2", "x y", "@" + t.TempDir()} {
		f, key := connect(v)
		assert.Nil(t, f, v)
		assert.Nil(t, key, v)
	}
}

// A call from outside the hidden suites (here, this test) gives no verdict:
// the line that goes out names the caller instead, numbered like any other.
func TestACallerOutsideTheSuitesIsRefusedAndNamed(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	mu.Lock()
	out, key, seq = w, testKey, 0
	mu.Unlock()
	defer func() {
		mu.Lock()
		out, key, seq = nil, nil, 0
		mu.Unlock()
	}()

	Checked("alpha", true)
	End()
	w.Close()

	sc := bufio.NewScanner(r)
	var lines []Line
	for sc.Scan() {
		l, err := Verify(testKey, sc.Bytes())
		require.NoError(t, err)
		lines = append(lines, l)
	}
	require.Len(t, lines, 2)
	for i, l := range lines {
		assert.Equal(t, i, l.Seq)
		assert.Equal(t, RefusedEvent, l.Event)
		assert.False(t, l.Passed)
		assert.Equal(t, "testing.tRunner", l.Caller, "the first caller outside package verdict")
	}
}
