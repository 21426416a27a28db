package engine

import (
	"os"
	"path/filepath"
	"sync"

	"onehistory/internal/harness/verdict"
)

// verdictChannel is the hidden suite's private line to the grader (package
// verdict) for one run of a test binary: what the binary's environment and
// extra files must hold, and how the grader reads what arrives.
type verdictChannel interface {
	env() string       // the binary's verdict.Env=... entry, which names the channel and holds no secret
	extra() []*os.File // the binary's extra files (ExtraFiles)
	started()          // the binary has started (or failed to)
	ended()            // the binary has exited
	read(v *verdicts)  // reads the channel into v until it ends
	close()            // ends a read still waiting
}

// fileChannel is the channel where open files cannot be passed to a child
// (Windows): a folder of the grader's own for the chapter, named in
// verdict.Env as "@DIR", holding the run's key (verdict.KeyFile, which the
// verdict package reads and removes in its init) and the lines
// (verdict.LinesFile), read once the binary has exited. The engine's tests
// use it on Unix too, so that it keeps working.
type fileChannel struct {
	dir  string
	done chan struct{}
	once sync.Once
}

func newFileChannel(tmp string, key []byte) (*fileChannel, error) {
	dir := filepath.Join(tmp, "verdicts")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, verdict.KeyFile), key, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, verdict.LinesFile), nil, 0o600); err != nil {
		return nil, err
	}
	return &fileChannel{dir: dir, done: make(chan struct{})}, nil
}

func (c *fileChannel) env() string       { return verdict.Env + "=@" + c.dir }
func (c *fileChannel) extra() []*os.File { return nil }
func (c *fileChannel) started()          {}
func (c *fileChannel) ended()            { c.once.Do(func() { close(c.done) }) }
func (c *fileChannel) close()            { c.ended() }

func (c *fileChannel) read(v *verdicts) {
	<-c.done
	f, err := os.Open(filepath.Join(c.dir, verdict.LinesFile))
	if err != nil {
		return
	}
	defer f.Close()
	v.read(f)
}
