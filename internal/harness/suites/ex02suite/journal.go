package ex02suite

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The journal is the apiserver's side of every world: what it answered and
// when, what its disk held at that instant, what each crash left on the
// disk (read back from the world once it has run) and what each boot
// recovered from it. A failing world is explained from it, the most
// specific cause first: a write the store failed, a write it refused found
// in the history it recovered, a torn record left in the log, a deletion
// undone, an acknowledgement sent before the change was on
// disk, a record on disk the boot did not read back, a change read before
// it was on disk.

// answer is one request the apiserver answered, as it answered it.
type answer struct {
	boot     int // the incarnation that answered
	client   string
	req      any
	start    time.Duration // when the apiserver took the request
	answered time.Duration // when it sent the answer
	obj      kube.Object   // the object answered (writes, gets)
	list     kube.List     // the list answered
	err      error
	// durable: a write whose bytes, appended while it was handled, were
	// all synced when it was answered; appended: it appended any.
	durable, appended bool
	file              string // the file a write appended to, if one file grew
}

// write reports whether the answer was to a write.
func (a answer) write() bool { return kube.IsWrite(a.req) }

// acked reports whether the answer told a writer its change was accepted.
func (a answer) acked() bool { return a.write() && a.err == nil }

// crashRec is one crash of the apiserver: when it struck and when the node
// was restarted (zero: never), what it did to the disk, and the boot after
// it.
type crashRec struct {
	at, restart           time.Duration
	bootAfter             *bootRec
	unsynced, kept, shorn int // bytes unsynced, of those kept, and cut by the next boot
}

// torn reports whether the crash kept part of what was unsynced.
func (c crashRec) torn() bool { return c.kept > 0 && c.kept < c.unsynced }

// bootRec is one boot: what Open recovered.
type bootRec struct {
	n         int
	at        time.Duration
	head      int64 // the resourceVersion of the last change recovered
	objects   map[string]kube.Object
	changes   map[int64]kube.Event // the recovered history, as a watch from 0 replays it, by resourceVersion
	sizeFound int                  // bytes on the disk when the boot began: what the last crash left
	sizeOpen  int                  // bytes on the disk when Open returned
	ok        bool
	watched   bool // changes holds the whole recovered history: every kind's watch from 0 answered
}

// skipped reports whether the boot's recovered history reaches past rv and
// yet has no change at rv.
func (b *bootRec) skipped(rv int64) bool {
	_, ok := b.changes[rv]
	return b.watched && rv <= b.head && !ok
}

type journal struct {
	w       *sim.World
	answers []answer
	boots   []*bootRec
	found   []image // what the disk held as each boot began, in order: boots that panicked included
}

// disk is the total size and durable size of the apiserver's files.
func (j *journal) disk() (size, synced int) {
	d := j.w.Disk(apiserver)
	for _, name := range d.Files() {
		f := d.Open(name)
		size += f.Size()
		synced += f.Synced()
	}
	return size, synced
}

// sizes is the size of each of the apiserver's files, in the order they
// were created.
func (j *journal) sizes() []int {
	d := j.w.Disk(apiserver)
	names := d.Files()
	out := make([]int, len(names))
	for i, name := range names {
		out[i] = d.Open(name).Size()
	}
	return out
}

// serve wraps the store's handler: the store answers, the journal notes.
func (j *journal) serve(boot int, s kube.Storage) sim.Handler {
	inner := kube.Handler(s)
	return func(p *sim.Proc, from sim.NodeID, req any) (any, error) {
		start := p.Now()
		var before []int // each file's size as the write began
		if kube.IsWrite(req) {
			before = j.sizes()
		}
		resp, err := inner(p, from, req)
		a := answer{boot: boot, client: string(from), req: req, start: start, answered: p.Now(), err: err}
		switch r := resp.(type) {
		case kube.Object:
			a.obj = r
		case kube.List:
			a.list = r
		}
		if a.write() {
			size0 := 0
			for _, n := range before {
				size0 += n
			}
			size1, synced1 := j.disk()
			a.appended = size1 > size0
			a.durable = a.appended && synced1 >= size1
			for i, n := range j.sizes() {
				if i >= len(before) && n > 0 || i < len(before) && n > before[i] {
					a.file = j.w.Disk(apiserver).Files()[i]
				}
			}
		}
		j.answers = append(j.answers, a)
		return resp, err
	}
}

// booted notes what a boot recovered, read from the store before it
// serves; found is the size of the disk before Open.
func (j *journal) booted(p *sim.Proc, n int, s kube.Storage, found int) {
	b := &bootRec{n: n, at: p.Now(), objects: map[string]kube.Object{}, changes: map[int64]kube.Event{}, sizeFound: found, ok: true, watched: true}
	for _, kind := range []string{"deployments", "pods"} {
		l, err := s.List(p, kind, kube.ReadOptions{})
		if err != nil {
			b.ok = false
			continue
		}
		b.head = max(b.head, l.ResourceVersion)
		for _, o := range l.Items {
			b.objects[o.Key()] = o
		}
		evs, err := s.Watch(p, kind, 0, 0)
		if err != nil {
			b.watched = false
			continue // a store may keep only recent changes: then the objects alone tell
		}
		for _, ev := range evs {
			b.changes[ev.Object.ResourceVersion] = ev
		}
	}
	b.sizeOpen, _ = j.disk()
	j.boots = append(j.boots, b)
}

// crashes reads the apiserver's crashes back from the world that ran: when
// each struck and ended (the world's faults), what it did to the disk's
// unsynced bytes (as the world recorded it at the instant of the crash), and
// the boot that came after it, the first to finish Open since.
func (j *journal) crashes() []*crashRec {
	unsynced, kept := map[time.Duration]int{}, map[time.Duration]int{}
	for _, l := range j.w.DiskLosses(apiserver) {
		unsynced[l.At] += l.Unsynced
		kept[l.At] += l.Kept
	}
	crashed := []*crashRec{}
	for _, f := range j.w.Faults() {
		if f.Kind != sim.FaultCrash || !f.Touches(apiserver) {
			continue
		}
		c := &crashRec{at: f.Start, unsynced: unsynced[f.Start], kept: kept[f.Start]}
		if !f.Open {
			c.restart = f.End
		}
		crashed = append(crashed, c)
	}
	for _, b := range j.boots {
		var last *crashRec
		for _, c := range crashed {
			if c.at < b.at {
				last = c
			}
		}
		if last != nil && last.bootAfter == nil {
			last.bootAfter, last.shorn = b, b.sizeFound-b.sizeOpen
		}
	}
	return crashed
}

// explain looks for the most specific cause of a failure in the journal,
// or returns nil if the apiserver's answers and boots are all consistent.
func (j *journal) explain() *suite.Failure {
	if x := j.internalError(); x != nil {
		return x
	}
	if x := j.unnumberedAck(); x != nil {
		return x
	}
	// The first boot that went wrong is where the cause is.
	for _, c := range j.crashes() {
		if c.bootAfter == nil || !c.bootAfter.ok {
			continue
		}
		for _, f := range []func(*crashRec) *suite.Failure{j.refusedLogged, j.tornKept, j.resurrected, j.lostAck, j.unsyncedRead} {
			if x := f(c); x != nil {
				return x
			}
		}
	}
	return nil
}

// internalError: a write the store answered with an error of its own, not
// one of the API's: two writes numbered alike, most often, when the write
// path lets a second writer in between numbering a change and applying it.
func (j *journal) internalError() *suite.Failure {
	for _, a := range j.answers {
		var se kube.StatusError
		if !a.write() || a.err == nil || errors.As(a.err, &se) {
			continue
		}
		name, why := "internal-error", ""
		if strings.Contains(a.err.Error(), "is not after the last applied change") {
			name = "duplicate-version"
			why = ": two writes were numbered the same resourceVersion, the second while the first was still syncing " +
				"(the write path must admit one change at a time between Propose and Apply)"
			if !j.overlapped(a) {
				name = "wrong-version"
				why = ": no other write was in the write path then, so the change it logged and applied was numbered " +
					"with a version already taken, as an update that changes nothing is (it must take no resourceVersion, " +
					"write nothing to the log, and answer ok with the stored object)"
			}
		}
		return &suite.Failure{Name: name, At: a.answered, Story: fmt.Sprintf("at %s the apiserver answered %s's %v with an error of its own%s: %v",
			suite.FormatTime(a.answered), a.client, a.req, why, a.err)}
	}
	return nil
}

// unnumberedAck: a write answered ok with an object of no resourceVersion,
// as if nothing were stored; every ok names the object as stored, the
// version of the change that wrote it (an update that changes nothing: the
// object as it stands).
func (j *journal) unnumberedAck() *suite.Failure {
	for _, a := range j.answers {
		if !a.acked() || a.obj.ResourceVersion != 0 {
			continue
		}
		return &suite.Failure{Name: "wrong-version", At: a.answered, Story: fmt.Sprintf(
			"at %s the apiserver answered %s's %v with ok and %s, of resourceVersion 0, though every object stored has one: "+
				"an ok tells the writer the object as stored (for an update that changes nothing, the object as it stands), "+
				"so that its next conditional write can name that version",
			suite.FormatTime(a.answered), a.client, a.req, a.obj)}
	}
	return nil
}

// overlapped reports whether another write was in the write path while a
// was.
func (j *journal) overlapped(a answer) bool {
	for _, b := range j.answers {
		if b.write() && b.boot == a.boot && b.start < a.answered && a.start < b.answered && (b.start != a.start || b.client != a.client) {
			return true
		}
	}
	return false
}

// lostAt finds the first change acknowledged before crash c that the boot
// after it did not recover: its resourceVersion is after the last one
// recovered, or the recovered history reaches past it and skips it.
func (j *journal) lostAt(c *crashRec) *answer {
	var first *answer
	for i := range j.answers {
		a := &j.answers[i]
		rv := a.obj.ResourceVersion
		if a.acked() && a.answered <= c.at && (rv > c.bootAfter.head || c.bootAfter.skipped(rv)) && (first == nil || rv < first.obj.ResourceVersion) {
			first = a
		}
	}
	return first
}

// refusedLogged: the boot after crash c recovered a change that the
// apiserver had refused before the crash. A refused create or update is
// found by its object with the value it carried, which no write the
// apiserver took and did not refuse carried (every write of a busy world
// carries a value of its own); a refused deletion, which has no value, by
// more deletions of its object recovered than the apiserver took and did
// not refuse. The refusal reached the log, and the replay took it for a
// change.
func (j *journal) refusedLogged(c *crashRec) *suite.Failure {
	b := c.bootAfter
	if !b.watched {
		return nil
	}
	// What each write would leave: "deployments/a=7", or "-deployments/a" for a deletion.
	mark := func(req any) (string, bool) {
		switch r := req.(type) {
		case kube.CreateRequest:
			return fmt.Sprint(r.Object.Key(), "=", r.Object.Value()), true
		case kube.UpdateRequest:
			return fmt.Sprint(r.Object.Key(), "=", r.Object.Value()), true
		case kube.DeleteRequest:
			return "-" + r.Key, true
		}
		return "", false
	}
	took := map[string]int{} // writes taken and not refused before the crash, by mark
	for _, ev := range j.w.Trace().Events() {
		if ev.At > c.at {
			break
		}
		if m, ok := mark(ev.Msg); ok && ev.Kind == sim.EvRecv && ev.Node == apiserver {
			took[m]++
		}
	}
	var refused []answer
	for _, a := range j.answers {
		if m, ok := mark(a.req); ok && a.err != nil && a.answered <= c.at {
			took[m]--
			refused = append(refused, a)
		}
	}
	found := map[string][]int64{} // the recovered changes, by mark
	for _, rv := range slices.Sorted(maps.Keys(b.changes)) {
		ev := b.changes[rv]
		m := fmt.Sprint(ev.Object.Key(), "=", ev.Object.Value())
		if ev.Type == kube.Deleted {
			m = "-" + ev.Object.Key()
		}
		found[m] = append(found[m], rv)
	}
	for _, a := range refused {
		m, _ := mark(a.req)
		if rvs := found[m]; len(rvs) > took[m] {
			rv := rvs[len(rvs)-1]
			return j.refusedFound(c, a, rv, b.changes[rv])
		}
	}
	return nil
}

// refusedFound tells the refused write a as the change ev at rv that the
// boot after crash c recovered.
func (j *journal) refusedFound(c *crashRec, a answer, rv int64, ev kube.Event) *suite.Failure {
	logged := "the refused change reached the log"
	if a.appended {
		logged = "the apiserver appended it to the log while it handled the write, before it knew the answer was no"
	}
	return &suite.Failure{Name: "refused-write-logged", At: a.answered, Story: fmt.Sprintf(
		"the apiserver refused %s's %v at %s (%v), yet the boot at %s, after the crash at %s, recovered that change as rv %d, %v: "+
			"%s, and the replay took it for a change. A write the apiserver answered no to must leave no trace in the history, "+
			"on disk as in memory",
		a.client, a.req, suite.FormatTime(a.answered), reason(a.err), suite.FormatTime(c.bootAfter.at), suite.FormatTime(c.at), rv, ev, logged),
		Details: j.bootLines()}
}

// tornKept: a crash kept a torn record, the next boot left it in the log,
// and a later boot lost changes acknowledged after it.
func (j *journal) tornKept(at *crashRec) *suite.Failure {
	lost := j.lostAt(at)
	if lost == nil {
		return nil
	}
	for _, c := range j.crashes() {
		if c.at >= at.at || c.bootAfter == nil || !c.torn() || c.shorn > 0 || lost.answered < c.bootAfter.at {
			continue
		}
		if ev, ok := j.readWhole(c); ok {
			return &suite.Failure{Name: "torn-record-kept", At: c.at, Story: j.tornReadWhole(c, at, ev, lost), Details: j.bootLines()}
		}
		return &suite.Failure{Name: "torn-record-kept", At: c.at, Story: fmt.Sprintf(
			"the crash at %s tore the last record of the log (it kept %dB of %dB unsynced), and the boot at %s recovered %d changes "+
				"but left the torn bytes in the file: every record appended after them sat behind bytes no reader gets past. "+
				"%s's %v, answered ok (rv %d) at %s, was one of them: the boot after the crash at %s stopped at the torn record and lost it",
			suite.FormatTime(c.at), c.kept, c.unsynced, suite.FormatTime(c.bootAfter.at), c.bootAfter.head,
			lost.client, lost.req, lost.obj.ResourceVersion, suite.FormatTime(lost.answered), suite.FormatTime(at.at)),
			Details: j.bootLines()}
	}
	return nil
}

// readWhole finds the change the boot after the torn crash c recovered
// from the torn record itself: the last change it recovered, which no
// answer before the crash had acknowledged, was the one whose record the
// crash was syncing, and the boot took what was left of that record for
// the whole of it (a line without its newline, most often).
func (j *journal) readWhole(c *crashRec) (kube.Event, bool) {
	b := c.bootAfter
	ev, ok := b.changes[b.head]
	if !ok || b.head == 0 {
		return kube.Event{}, false
	}
	for _, a := range j.answers {
		if a.acked() && a.answered <= c.at && a.obj.ResourceVersion >= b.head {
			return kube.Event{}, false
		}
	}
	return ev, true
}

// tornReadWhole tells a torn record that the boot after the crash c read
// back as the change ev and left as it was: the record lost appended after
// it, and the boot after the crash at, which could read neither.
func (j *journal) tornReadWhole(c, at *crashRec, ev kube.Event, lost *answer) string {
	rv := ev.Object.ResourceVersion
	story := fmt.Sprintf("the crash at %s tore the last record of the log, keeping all of it but its last %dB (%dB of %dB unsynced), "+
		"and the boot at %s read the torn record back as whole: it recovered rv %d, %v, a change whose writer was never answered, "+
		"and left the record as the crash had cut it, so that the next record appended ran on from its torn end. "+
		"%s's %v, answered ok (rv %d) at %s, was appended there: the boot after the crash at %s could not read past the torn record's end",
		suite.FormatTime(c.at), c.unsynced-c.kept, c.kept, c.unsynced, suite.FormatTime(c.bootAfter.at), rv, ev,
		lost.client, lost.req, lost.obj.ResourceVersion, suite.FormatTime(lost.answered), suite.FormatTime(at.at))
	if at.shorn > 0 {
		story += fmt.Sprintf(", cut %dB off the log", at.shorn)
	}
	story += fmt.Sprintf(" and lost the acknowledged rv %d", lost.obj.ResourceVersion)
	if at.bootAfter.head < rv {
		story += fmt.Sprintf(", and rv %d too", rv)
		if r := j.readOf(rv, c.bootAfter.n); r != nil {
			story += fmt.Sprintf(", which %s had read at %s", r.client, suite.FormatTime(r.answered))
		}
	}
	return story
}

// readOf is the first read answered by boot n that showed the change at
// rv, or nil.
func (j *journal) readOf(rv int64, n int) *answer {
	for i, a := range j.answers {
		if a.boot != n || a.write() || a.err != nil {
			continue
		}
		if a.obj.ResourceVersion == rv || slices.ContainsFunc(a.list.Items, func(o kube.Object) bool { return o.ResourceVersion == rv }) {
			return &j.answers[i]
		}
	}
	return nil
}

// resurrected: a boot recovered an object, as it was at or before an
// acknowledged deletion of it, or recovered the deletion itself as another
// kind of change: the deletion was replayed as something else.
func (j *journal) resurrected(c *crashRec) *suite.Failure {
	b := c.bootAfter
	for _, a := range j.answers {
		d, del := a.req.(kube.DeleteRequest)
		if !del || !a.acked() || a.answered > c.at || (a.appended && !a.durable) {
			continue // a deletion acknowledged before its record was synced is a lost acknowledgement (lostAck)
		}
		deleted := fmt.Sprintf("%s deleted %s (answered ok, rv %d, at %s), yet the boot at %s after the crash at %s recovered ",
			a.client, d.Key, a.obj.ResourceVersion, suite.FormatTime(a.answered), suite.FormatTime(b.at), suite.FormatTime(c.at))
		why := "the log was replayed without the deletion's meaning"
		if rv := a.obj.ResourceVersion; rv > b.head || b.skipped(rv) {
			why = fmt.Sprintf("the deletion's record (rv %d) was synced to the log, and the boot's history of changes, up to rv %d, "+
				"has no rv %d: Open either stopped reading before that record or read it and did not replay it as a deletion", rv, b.head, rv)
		}
		if !a.appended {
			why = "the deletion was never written to the log, so the replay knew nothing of it"
		}
		if o, ok := b.objects[d.Key]; ok && o.ResourceVersion <= a.obj.ResourceVersion {
			return &suite.Failure{Name: "resurrected-deletion", At: b.at,
				Story: deleted + fmt.Sprintf("it as %s: %s, and an object the cluster had removed came back", o, why)}
		}
		// Or its deletion came back as something else, though the object
		// was written again since.
		if ev, ok := b.changes[a.obj.ResourceVersion]; ok && ev.Type != kube.Deleted && ev.Object.Key() == d.Key {
			return &suite.Failure{Name: "resurrected-deletion", At: b.at, Story: deleted + fmt.Sprintf("that change as %s: "+
				"the log was replayed without the deletion's meaning, and for a while an object the cluster had removed was there again", ev)}
		}
	}
	return nil
}

// lostAck: an acknowledged change a boot did not recover; either it was
// answered before its record was on disk, or it was on disk and the boot
// did not read it back.
func (j *journal) lostAck(c *crashRec) *suite.Failure {
	a := j.lostAt(c)
	if a == nil {
		return nil
	}
	acked := fmt.Sprintf("the apiserver answered %s's %v with ok (rv %d) at %s",
		a.client, a.req, a.obj.ResourceVersion, suite.FormatTime(a.answered))
	recv := ""
	if r, ok := j.receivedAt(*a); ok {
		recv = fmt.Sprintf("; %s received the ok at %s", a.client, suite.FormatTime(r))
	}
	if !a.durable {
		how := "before its record on disk was synced"
		if !a.appended {
			how = "without writing the change to its disk"
		}
		return &suite.Failure{Name: "lost-acknowledged-write", At: a.answered, Story: acked + fmt.Sprintf(
			", %s, and crashed at %s %s%s; it came back at %s, after %s without a cluster, holding changes up to rv %d, without it",
			how, suite.FormatTime(c.at), j.struck(c), recv, suite.FormatTime(c.bootAfter.at), suite.FormatTime(c.bootAfter.at-c.at), c.bootAfter.head),
			Details: j.bootLines()}
	}
	synced := acked + fmt.Sprintf(" after syncing it to disk, yet the boot at %s, after the crash at %s, ",
		suite.FormatTime(c.bootAfter.at), suite.FormatTime(c.at))
	in, on := "in the log", "on the disk"
	if n := len(j.w.Disk(apiserver).Files()); n > 1 && a.file != "" {
		in = fmt.Sprintf("in %s, one of the %d files on the apiserver's disk,", a.file, n)
		on = in
	}
	if c.bootAfter.skipped(a.obj.ResourceVersion) {
		return &suite.Failure{Name: "unrecovered-write", At: c.bootAfter.at, Story: synced + fmt.Sprintf(
			"recovered a history of changes up to rv %d that skips rv %d: the record was %s and Open did not replay it, "+
				"so the history after the crash is not the one clients were answered from before it", c.bootAfter.head, a.obj.ResourceVersion, in),
			Details: j.bootLines()}
	}
	return &suite.Failure{Name: "unrecovered-write", At: c.bootAfter.at, Story: synced + fmt.Sprintf(
		"recovered changes only up to rv %d: the record was %s and Open did not read it back", c.bootAfter.head, on),
		Details: j.bootLines()}
}

// struck says where in the write path crash c struck, as the journal saw
// it: between writes, in the middle of a sync (and what it did to the bytes
// not yet synced), and with which "ok" on its way to a client.
func (j *journal) struck(c *crashRec) string {
	var where string
	switch {
	case c.torn():
		where = fmt.Sprintf("in the middle of a sync, tearing the record being synced (the disk kept %dB of the %dB not yet synced)", c.kept, c.unsynced)
	case c.unsynced > 0 && c.kept == 0:
		where = fmt.Sprintf("in the middle of a sync, losing the %dB not yet synced", c.unsynced)
	case c.unsynced > 0:
		where = fmt.Sprintf("in the middle of a sync (the disk kept all %dB not yet synced)", c.unsynced)
	default:
		where = "between writes, with nothing unsynced on its disk"
	}
	for _, a := range j.answers {
		if r, ok := j.receivedAt(a); ok && a.acked() && a.answered <= c.at && r > c.at {
			return where + fmt.Sprintf(", with the ok for %s's %v on its way", a.client, a.req)
		}
	}
	return where
}

// unsyncedRead: a read answered with a change that the next boot did not
// recover: the change was visible before it was on disk.
func (j *journal) unsyncedRead(c *crashRec) *suite.Failure {
	b := c.bootAfter
	for _, a := range j.answers {
		if a.answered > c.at || a.err != nil || a.write() {
			continue
		}
		rv := a.obj.ResourceVersion
		if _, isList := a.req.(kube.ListRequest); isList {
			rv = a.list.ResourceVersion
		}
		if rv > b.head {
			return &suite.Failure{Name: "read-of-unsynced-write", At: a.answered, Story: fmt.Sprintf(
				"the apiserver answered %s's %v at %s with the change at rv %d before that change was on disk; it crashed at %s "+
					"and came back at %s with changes only up to rv %d: a reader saw a change the history never kept",
				a.client, a.req, suite.FormatTime(a.answered), rv, suite.FormatTime(c.at), suite.FormatTime(b.at), b.head), Details: j.bootLines()}
		}
	}
	return nil
}

// receivedAt is when the client received the answer, from the trace.
func (j *journal) receivedAt(a answer) (time.Duration, bool) {
	for _, e := range j.w.Trace().Events() {
		if e.Kind == sim.EvRecvReply && e.At >= a.answered && string(e.Node) == a.client && e.Peer == apiserver && e.Msg == any(a.obj) {
			return e.At, true
		}
	}
	return 0, false
}

// bootLines lists the crashes and what each boot recovered, for details.
func (j *journal) bootLines() string {
	var b strings.Builder
	b.WriteString("the apiserver's crashes and boots:\n")
	for _, c := range j.crashes() {
		fmt.Fprintf(&b, "  crashed at %s with %dB unsynced, of which the disk kept %dB", suite.FormatTime(c.at), c.unsynced, c.kept)
		if c.bootAfter != nil {
			fmt.Fprintf(&b, "; booted at %s, recovered up to rv %d", suite.FormatTime(c.bootAfter.at), c.bootAfter.head)
			if c.shorn > 0 {
				fmt.Fprintf(&b, ", cutting %dB off the log", c.shorn)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
