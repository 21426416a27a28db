package render

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"onehistory/grader/internal/result"
	"onehistory/internal/harness/course"
)

// Progress is the live line a terminal shows while chapters run:
// "grading 2/6 · running ex03 ex04 · 1.2 s". It redraws in place and Done
// erases it, so the report that follows starts on a clean line. Use it only
// when the output is a terminal.
type Progress struct {
	w       io.Writer
	total   int
	done    int
	running map[string]bool
	start   time.Time
	mu      sync.Mutex
	stop    chan struct{}
	wg      sync.WaitGroup
}

// NewProgress starts a progress line for total chapters, redrawn every
// tenth of a second until Done.
func NewProgress(w io.Writer, total int) *Progress {
	p := &Progress{w: w, total: total, running: map[string]bool{}, start: time.Now(), stop: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.draw()
			}
		}
	}()
	return p
}

// Started notes a chapter that began.
func (p *Progress) Started(ch course.Chapter) {
	p.mu.Lock()
	p.running[ch.ID] = true
	p.mu.Unlock()
	p.draw()
}

// Finished notes a chapter that ended.
func (p *Progress) Finished(ch result.Chapter) {
	p.mu.Lock()
	delete(p.running, ch.ID)
	p.done++
	p.mu.Unlock()
	p.draw()
}

// Done stops redrawing and erases the line.
func (p *Progress) Done() {
	close(p.stop)
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\x1b[K")
}

func (p *Progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := make([]string, 0, len(p.running))
	for id := range p.running {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	line := fmt.Sprintf("grading %d/%d", p.done, p.total)
	if len(ids) > 0 {
		line += " · running " + strings.Join(ids, " ")
	}
	line += " · " + seconds(time.Since(p.start))
	fmt.Fprint(p.w, "\r\x1b[K"+line)
}
