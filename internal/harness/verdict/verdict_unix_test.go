//go:build unix

package verdict

import (
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pipe is a pipe as two bare descriptors, the read end and the write end,
// so that connect can own them as the test binary owns its extra files.
func pipe(t *testing.T) (int, int) {
	t.Helper()
	var p [2]int
	require.NoError(t, syscall.Pipe(p[:]))
	return p[0], p[1]
}

// keyPipe is a pipe holding key, its write end closed: the binary's fd 4.
func keyPipe(t *testing.T, key []byte) int {
	t.Helper()
	r, w := pipe(t)
	_, err := syscall.Write(w, key)
	require.NoError(t, err)
	syscall.Close(w)
	return r
}

// On Unix the environment names two descriptors and nothing else: the key
// arrives on the second, which connect reads to its end and closes, so
// that nothing later in the process can read it there.
func TestConnectReadsTheKeyFromItsPipeAndClosesIt(t *testing.T) {
	r, w := pipe(t)
	defer syscall.Close(r)
	kr := keyPipe(t, testKey)

	f, key := connect(strconv.Itoa(w) + " " + strconv.Itoa(kr))
	require.NotNil(t, f)
	defer f.Close()
	assert.Equal(t, testKey, key)
	var st syscall.Stat_t
	assert.Equal(t, syscall.EBADF, syscall.Fstat(kr, &st), "the key pipe is closed once read")
}

// A key cut short is no key: no channel.
func TestConnectRefusesAKeyCutShort(t *testing.T) {
	r, w := pipe(t)
	defer syscall.Close(r)
	kr := keyPipe(t, testKey[:5])
	f, key := connect(strconv.Itoa(w) + " " + strconv.Itoa(kr))
	assert.Nil(t, f)
	assert.Nil(t, key)
	var st syscall.Stat_t
	assert.Equal(t, syscall.EBADF, syscall.Fstat(w, &st), "the channel is closed too")
}
