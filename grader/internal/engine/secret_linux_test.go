package engine

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/grader/internal/result"
)

// probe is a chapter file that looks for the verdict channel's key
// everywhere a chapter's code could, as early as a chapter's code runs: in
// the initializer of a package-level variable (before the package's init
// functions). It writes what it found, hex-encoded, to a report file: the
// environment as the process sees it now and as the kernel kept it from
// the start (/proc/self/environ), the key file of the file channel, what
// reading descriptor 4 (where the key pipe was) gives, and what every open
// descriptor gives when reopened through /proc/self/fd. Reads are
// non-blocking, so that an empty pipe does not hold the init up.
const probe = `package ex99

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

var probed = lookForTheKey()

func readNow(fd int) string {
	buf := make([]byte, 4096)
	n, err := syscall.Read(fd, buf)
	if err != nil {
		return "error: " + err.Error()
	}
	return hex.EncodeToString(buf[:n])
}

func lookForTheKey() bool {
	found := map[string]string{}
	v, ok := os.LookupEnv("ONEHISTORY_VERDICTS")
	found["getenv"] = strconv.FormatBool(ok) + " " + v
	environ, _ := os.ReadFile("/proc/self/environ")
	found["environ"] = hex.EncodeToString(environ)
	for _, kv := range strings.Split(string(environ), "\x00") {
		if dir, ok := strings.CutPrefix(kv, "ONEHISTORY_VERDICTS=@"); ok {
			data, err := os.ReadFile(filepath.Join(dir, "key"))
			found["key file"] = hex.EncodeToString(data)
			if err != nil {
				found["key file"] = "error: " + err.Error()
			}
		}
	}
	found["read fd 4"] = readNow(4)
	entries, _ := os.ReadDir("/proc/self/fd")
	for _, e := range entries {
		if fd, _ := strconv.Atoi(e.Name()); fd <= 2 {
			continue
		}
		link, _ := os.Readlink("/proc/self/fd/" + e.Name())
		fd, err := syscall.Open("/proc/self/fd/"+e.Name(), syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			found["reopen fd "+e.Name()+" "+link] = "error: " + err.Error()
			continue
		}
		found["reopen fd "+e.Name()+" "+link] = readNow(fd)
		syscall.Close(fd)
	}
	data, _ := json.Marshal(found)
	os.WriteFile(%q, data, 0o644)
	return true
}
`

// The verdict channel's key reaches the test binary on a pipe that the
// verdict package reads to its end and closes in its init, and the
// environment names only descriptors. Go initializes a package after
// everything it imports, and the chapter's package imports (through its test
// file) the hidden suite, which imports package verdict: so by the time the
// chapter's first line runs, the key is nowhere it can look. This is the
// claim, tested: a chapter that looks everywhere, as early as it can, finds
// no trace of the key the grader made for that run, on the pipe channel and
// on the file channel other systems use; and the chapter still passes.
func TestTheChaptersCodeCannotFindTheKey(t *testing.T) {
	var (
		mu   sync.Mutex
		keys [][]byte
	)
	made := newKey
	newKey = func() ([]byte, error) {
		k, err := made()
		mu.Lock()
		keys = append(keys, k)
		mu.Unlock()
		return k, err
	}
	t.Cleanup(func() { newKey = made })

	for _, files := range []bool{false, true} {
		name := map[bool]string{false: "pipe channel", true: "file channel"}[files]
		t.Run(name, func(t *testing.T) {
			root := fakeWorkbook(t)
			report := filepath.Join(t.TempDir(), "found.json")
			write(t, root, "exercises/ex99-fake/fake.go", solved)
			write(t, root, "exercises/ex99-fake/probe.go", fmt.Sprintf(probe, report))
			opts := options(t, root)
			opts.SkipImportCheck = true
			opts.fileChannel = files
			mu.Lock()
			keys = nil
			mu.Unlock()

			ch := gradeFake(t, opts)
			require.Equal(t, result.Pass, ch.Status, "%s %+v", statuses(ch), ch.Problem)

			data, err := os.ReadFile(report)
			require.NoError(t, err, "the probe ran")
			var found map[string]string
			require.NoError(t, json.Unmarshal(data, &found))
			mu.Lock()
			require.Len(t, keys, 1)
			key := hex.EncodeToString(keys[0])
			mu.Unlock()
			for what, seen := range found {
				assert.NotContains(t, seen, key, "the key, found by the chapter's code in: %s", what)
			}

			assert.Equal(t, "false ", found["getenv"], "the variable is gone from the process's environment")
			environ, _ := hex.DecodeString(found["environ"])
			var kept string
			for _, kv := range strings.Split(string(environ), "\x00") {
				if strings.HasPrefix(kv, "ONEHISTORY_VERDICTS=") {
					kept = kv
				}
			}
			if files {
				assert.Regexp(t, `^ONEHISTORY_VERDICTS=@/.*/verdicts$`, kept, "the kernel's copy names the channel's folder")
				assert.Contains(t, found["key file"], "no such file", "the key file is gone")
			} else {
				assert.Equal(t, "ONEHISTORY_VERDICTS=3 4", kept, "the kernel's copy names two descriptors and nothing else")
			}
			for what, seen := range found {
				t.Logf("%s: %.80s", what, seen)
			}
		})
	}
}
