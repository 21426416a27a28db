package ex02suite

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// A boot whose Open panicked is judged by the log it was handed. The crash
// may have torn a record into it, at its end or, left there by an earlier
// boot, in its middle; or every byte of it is a whole record. To tell which
// of them Open could not read, the suite boots the same Open once more, in a
// world of its own, on that log with the torn records cut out: if it boots
// there, the torn record was what it could not read past.

// image is what the apiserver's disk held at an instant: each file's bytes,
// the files in the order they were created.
type image struct {
	at    time.Duration
	names []string
	files map[string][]byte
}

// size is the image's bytes, all files together.
func (m image) size() int {
	n := 0
	for _, b := range m.files {
		n += len(b)
	}
	return n
}

// image is what the apiserver's disk holds now.
func (j *journal) image() image {
	d := j.w.Disk(apiserver)
	m := image{at: j.w.Now(), names: d.Files(), files: map[string][]byte{}}
	for _, name := range m.names {
		m.files[name] = d.Open(name).ReadAll()
	}
	return m
}

// tear is what a crash kept of a record it tore: the first bytes of it,
// at off in file, as the boot after the crash found them.
type tear struct {
	crash     time.Duration // when the crash struck
	boot      time.Duration // when the boot after it began
	file      string
	off       int    // where the unsynced bytes began: the torn record's first byte
	kept      []byte // what the crash kept of them
	unsynced  int    // how many were unsynced
	appended  int    // bytes of file after the torn ones, in the log a later boot was handed
	atTheEnd  bool   // nothing follows the torn bytes: the crash was the last before the boot
	fileBytes int    // the size of file in the log handed to the boot
}

// tears lists the torn records in the log m handed to a boot: every crash
// before it that kept part of the bytes it caught unsynced, whose bytes
// still stand where the boot after that crash found them.
func (j *journal) tears(m image) []tear {
	var out []tear
	for _, l := range j.w.DiskLosses(apiserver) {
		if l.Kept == 0 || l.Kept >= l.Unsynced || l.At >= m.at {
			continue
		}
		var after *image // the first boot after the crash: the one it handed the torn record to
		for i := range j.found {
			if j.found[i].at > l.At {
				after = &j.found[i]
				break
			}
		}
		if after == nil {
			continue
		}
		data := after.files[l.File]
		off := len(data) - l.Kept
		have := m.files[l.File]
		if off < 0 || len(have) < len(data) || !bytes.Equal(have[off:len(data)], data[off:]) {
			continue // the boot after it cut it off, or the file was rewritten since
		}
		out = append(out, tear{crash: l.At, boot: after.at, file: l.File, off: off, kept: data[off:], unsynced: l.Unsynced,
			appended: len(have) - len(data), atTheEnd: len(have) == len(data), fileBytes: len(have)})
	}
	return out
}

// without is m with the torn records ts cut out of it, the bytes on either
// side of each joined.
func (m image) without(ts []tear) image {
	out := image{at: m.at, names: m.names, files: map[string][]byte{}}
	for name, b := range m.files {
		out.files[name] = slices.Clone(b)
	}
	ts = slices.Clone(ts)
	slices.SortFunc(ts, func(a, b tear) int { return b.off - a.off }) // the last first: earlier offsets stay put
	for _, t := range ts {
		b := out.files[t.file]
		out.files[t.file] = append(b[:t.off:t.off], b[t.off+len(t.kept):]...)
	}
	return out
}

// reboot boots open once, in a world of its own made from seed, on a disk
// that holds m, and returns why it did not boot: nil when Open returned.
func reboot(seed int64, open func(p *sim.Proc) kube.Storage, m image) error {
	w := sim.New(seed)
	defer w.Close()
	booted := false
	w.AddNode(apiserver, func(p *sim.Proc) {
		for _, name := range m.names {
			f := p.Disk().Open(name)
			f.Append(m.files[name])
			f.Sync(p)
		}
		open(p)
		booted = true
		w.Stop()
	})
	if err := w.Run(time.Minute); err != nil {
		return err
	}
	if !booted {
		return errors.New("Open did not return")
	}
	return nil
}

// ran: the world ran to its end. A boot whose Open panicked is told by the
// log it was handed. If the same Open boots from that log with its torn
// records cut out, the torn record is to blame: which write it was, what the
// crash kept of it, and, when an earlier boot left it in the log, what was
// appended after it. Otherwise the log's whole records are, and the boot
// is. Either way the apiserver never came back, which is the clause's
// breach; where in Open it panicked, and why, come after.
func ran(c *cluster) *suite.Failure {
	var pe *sim.PanicError
	if !errors.As(c.Err, &pe) || !strings.HasPrefix(pe.Proc, string(apiserver)+"/main") || len(c.j.found) == 0 {
		return scene.Ran(c.Scene)
	}
	var x *crashRec // the last crash before the boot
	for _, k := range c.j.crashes() {
		if k.at <= pe.At {
			x = k
		}
	}
	handed := c.j.found[len(c.j.found)-1]
	at := pe.At.Round(100 * time.Microsecond) // as the failure's time is told
	panicked := fmt.Sprintf("Open panicked%s (%v), and the apiserver never came back", openFrame(pe.Stack), pe.Value)
	f := suite.Failure{At: pe.At, Details: pe.Stack}
	ts := c.j.tears(handed)
	var again error
	if len(ts) > 0 {
		again = reboot(c.W.Seed(), c.open, handed.without(ts))
	}
	switch {
	case len(ts) > 0 && again == nil:
		t := ts[0]
		f.Name = "boot-failed-on-torn-record"
		if t.atTheEnd {
			f.Story = fmt.Sprintf("the crash at %s tore the record the apiserver was syncing%s: of the %dB the log had not synced yet, from byte %d on, "+
				"it kept %dB, so the log's last record ends %dB short, at byte %d. The boot at %s could not read past it: %s. "+
				"With those %dB cut off, the same Open boots from that log: a boot must take a record a crash cut short for the end of the log, and cut it off",
				suite.FormatTime(t.crash), c.syncing(t.crash), t.unsynced, t.off, len(t.kept), t.unsynced-len(t.kept), t.fileBytes,
				suite.FormatTime(at), panicked, len(t.kept))
			break
		}
		f.Story = fmt.Sprintf("the crash at %s tore the record the apiserver was syncing%s: of the %dB the log had not synced yet, from byte %d on, "+
			"it kept %dB, %dB short of the record's end. The boot at %s left those bytes in the log, and the %dB appended after them "+
			"ran on from the torn record's end. The boot at %s could not read past it: %s. "+
			"With the torn %dB cut out, the same Open boots from that log: a boot must take a record a crash cut short for the end of the log, "+
			"and cut it off before anything is appended after it",
			suite.FormatTime(t.crash), c.syncing(t.crash), t.unsynced, t.off, len(t.kept), t.unsynced-len(t.kept),
			suite.FormatTime(t.boot), t.appended, suite.FormatTime(at), panicked, len(t.kept))
	case len(ts) > 0:
		t := ts[0]
		f.Name = "boot-failed-on-whole-log"
		f.Story = fmt.Sprintf("the boot at %s could not recover the log it was given: %dB, among them the %dB of a record the crash at %s tore, from byte %d on. "+
			"%s. With the torn record cut out, the same Open does not boot from the %dB of whole records left either (%s): "+
			"the fault is in how Open reads back the records the apiserver wrote whole",
			suite.FormatTime(at), handed.size(), len(t.kept), suite.FormatTime(t.crash), t.off,
			suite.UpperFirst(panicked), handed.size()-len(t.kept), rebootError(again))
	default:
		f.Name = "boot-failed-on-whole-log"
		left := "the log it was given"
		if x != nil {
			left = fmt.Sprintf("the log the crash at %s left", suite.FormatTime(x.at))
		}
		size, synced := c.j.disk()
		f.Story = fmt.Sprintf("the boot at %s could not recover %s: %dB of whole records, %s, none torn. %s. "+
			"Every byte it was handed is a record the apiserver wrote itself, so the fault is in how Open reads them back",
			suite.FormatTime(at), left, size, syncedTail(size, synced, x), suite.UpperFirst(panicked))
	}
	return c.told(&f)
}

// rebootError is why a second boot on the log without its torn records did
// not boot, in a few words: where it panicked and with what, or the run's
// error's first line.
func rebootError(err error) string {
	var pe *sim.PanicError
	if errors.As(err, &pe) {
		return fmt.Sprintf("it panicked%s: %v", openFrame(pe.Stack), pe.Value)
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	return first
}

// syncedTail says how much of a log of size bytes was synced, and what
// the crash x, which tore nothing, did to the bytes it caught unsynced.
func syncedTail(size, synced int, x *crashRec) string {
	out := "all synced"
	if synced < size {
		out = fmt.Sprintf("%dB of them synced", synced)
	}
	if x != nil && x.unsynced > x.kept {
		out += fmt.Sprintf(" (the crash dropped the %dB it caught unsynced)", x.unsynced-x.kept)
	}
	return out
}

// syncing names the write the apiserver had taken and not answered when
// a crash struck at at, read from the world's trace: the one whose record
// it was syncing.
func (c *cluster) syncing(at time.Duration) string {
	var took *sim.Event
	for _, ev := range c.W.Trace().Events() {
		if ev.At > at {
			break
		}
		switch {
		case ev.Kind == sim.EvRecv && ev.Node == apiserver && kube.IsWrite(ev.Msg):
			took = &ev
		case ev.Kind == sim.EvReply && ev.Node == apiserver && took != nil && ev.Peer == took.Peer:
			took = nil
		}
	}
	if took == nil {
		return ""
	}
	return fmt.Sprintf(" for %s's %v", took.Peer, took.Msg)
}

// openFrame is where a boot's panic struck, read from its stack: the frame
// below the runtime's panic, " in nextFrame at store.go:57", or "".
func openFrame(stack string) string {
	lines := strings.Split(stack, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "panic(") {
			continue
		}
		for j := i + 2; j+1 < len(lines); j += 2 { // a frame is a function's line, then its file's
			fn, _, _ := strings.Cut(lines[j], "(")
			if strings.HasPrefix(fn, "runtime.") {
				continue
			}
			fn = fn[strings.LastIndex(fn, ".")+1:]
			file, _, _ := strings.Cut(strings.TrimSpace(lines[j+1]), " ")
			return fmt.Sprintf(" in %s at %s", fn, file[strings.LastIndex(file, "/")+1:])
		}
	}
	return ""
}
