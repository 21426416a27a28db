package ex02suite

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// walStore is a write-ahead-logged store as the chapter asks for one
// (length-framed records, appended and synced before they are applied, a
// torn tail cut off at boot), with two of the slips the judges must tell.
type walStore struct {
	mem     *kube.MemStore
	writing sim.Mutex
	wal     *sim.File
	// shutOnNo: a write that changes nothing or is refused returns with the
	// write lock still held.
	shutOnNo   bool
	lines      bool // records end with a newline, not after a length
	logRefused bool // a conditional update is logged before its precondition is checked
}

// slips are the mistakes a walStore may be built with. lines frames its
// records by newlines instead of lengths, and reads a last line without its
// newline as a whole record, as a line scanner does; with leaveTorn as
// well, it skips such a line as torn but leaves it in the file, and panics
// on a line that is not one record.
// logRefused logs a conditional write before checking its precondition,
// and numbers each change by its place in the log at replay.
type slips struct{ shutOnNo, replayLatest, lines, leaveTorn, logRefused bool }

func openWAL(x slips) func(p *sim.Proc) kube.Storage {
	return func(p *sim.Proc) kube.Storage {
		s := &walStore{mem: kube.NewMemStore(0), writing: sim.Mutex{Name: "writing"}, wal: p.Disk().Open("wal"), shutOnNo: x.shutOnNo, lines: x.lines, logRefused: x.logRefused}
		data := s.wal.ReadAll()
		good := 0
		var evs []kube.Event
		for x.lines && good < len(data) {
			line, _, whole := bytes.Cut(data[good:], []byte("\n"))
			if x.leaveTorn && !whole {
				break
			}
			var ev kube.Event
			if json.Unmarshal(line, &ev) != nil {
				if x.leaveTorn {
					panic("the log is corrupt")
				}
				break
			}
			evs = append(evs, ev)
			good = min(len(data), good+len(line)+1)
		}
		for !x.lines && good+4 <= len(data) {
			n := int(binary.BigEndian.Uint32(data[good:]))
			if len(data)-good-4 < n {
				break
			}
			var ev kube.Event
			if json.Unmarshal(data[good+4:good+4+n], &ev) != nil {
				break
			}
			evs = append(evs, ev)
			good += 4 + n
		}
		if !x.leaveTorn {
			s.wal.Truncate(good)
		}
		if x.replayLatest { // only the last change of each object
			last := map[string]kube.Event{}
			for _, ev := range evs {
				last[ev.Object.Key()] = ev
			}
			evs = evs[:0]
			for _, ev := range last {
				evs = append(evs, ev)
			}
			slices.SortFunc(evs, func(a, b kube.Event) int { return int(a.Object.ResourceVersion - b.Object.ResourceVersion) })
		}
		for _, ev := range evs {
			if x.logRefused {
				ev.Object.ResourceVersion = s.mem.ResourceVersion() + 1
			}
			if err := s.mem.Apply(p, ev); err != nil {
				panic(err)
			}
		}
		return s
	}
}

func (s *walStore) write(p *sim.Proc, req any) (kube.Object, error) {
	s.writing.Lock(p)
	if u, ok := req.(kube.UpdateRequest); ok && s.logRefused && u.Object.ResourceVersion != 0 {
		blind := u
		blind.Object.ResourceVersion = 0
		if ev, changed, err := s.mem.Propose(blind); err == nil && changed {
			if _, _, err := s.mem.Propose(req); err != nil {
				s.log(p, ev) // logged, then refused
				s.writing.Unlock()
				return kube.Object{}, err
			}
		}
	}
	ev, changed, err := s.mem.Propose(req)
	if err != nil || !changed {
		if !s.shutOnNo {
			s.writing.Unlock()
		}
		return ev.Object, err
	}
	defer s.writing.Unlock()
	s.log(p, ev)
	return ev.Object, s.mem.Apply(p, ev)
}

// log appends ev to the log and syncs it.
func (s *walStore) log(p *sim.Proc, ev kube.Event) {
	b, _ := json.Marshal(ev)
	if s.lines {
		b = append(b, '\n')
	} else {
		s.wal.Append(binary.BigEndian.AppendUint32(nil, uint32(len(b))))
	}
	s.wal.Append(b)
	s.wal.Sync(p)
}

func (s *walStore) Create(p *sim.Proc, o kube.Object) (kube.Object, error) {
	return s.write(p, kube.CreateRequest{Object: o})
}

func (s *walStore) Update(p *sim.Proc, o kube.Object) (kube.Object, error) {
	return s.write(p, kube.UpdateRequest{Object: o})
}

func (s *walStore) Delete(p *sim.Proc, key string, rv int64) (kube.Object, error) {
	return s.write(p, kube.DeleteRequest{Key: key, ResourceVersion: rv})
}

func (s *walStore) Get(p *sim.Proc, key string, opts kube.ReadOptions) (kube.Object, error) {
	return s.mem.Get(p, key, opts)
}

func (s *walStore) List(p *sim.Proc, kind string, opts kube.ReadOptions) (kube.List, error) {
	return s.mem.List(p, kind, opts)
}

func (s *walStore) Watch(p *sim.Proc, kind string, rv int64, wait time.Duration) ([]kube.Event, error) {
	return s.mem.Watch(p, kind, rv, wait)
}

// A logged store passes the judges of crash-points and outage, though
// some of the writes in flight at a crash timed out: a timeout across a
// crash is not a stalled write path. Across the worlds the writers wrote
// both kinds, deleted conditionally, and got answers to lists.
func TestALoggedStorePassesCrashPointsAndOutage(t *testing.T) {
	ch := chapter(openWAL(slips{}))
	timedOut, kinds, condDeletes := 0, map[string]bool{}, 0
	for seed := int64(1); seed <= 5; seed++ {
		assert.Nil(t, ch.Verdict("crash-points", "crashes", seed), "seed %d", seed)
		assert.Nil(t, ch.Verdict("outage", "outage", seed), "seed %d", seed)
		c := crashWorld(seed, openWAL(slips{}))
		for _, op := range c.History.Operations() {
			if op.Result.Outcome == check.Indefinite {
				timedOut++
			}
			if op.Acknowledged() {
				kinds[strings.SplitN(op.Input.Key, "/", 2)[0]] = true
			}
			if op.Input.Kind == check.KindDelete && op.Input.IfVersion != 0 {
				condDeletes++
			}
		}
		c.Close()
	}
	assert.Positive(t, timedOut, "no write was in flight at a crash")
	assert.Equal(t, map[string]bool{"deployments": true, "pods": true}, kinds)
	assert.Positive(t, condDeletes)
}

// Crashes that never struck the write path prove nothing, once there are
// enough worlds to tell.
func TestCrashesThatMissedTheWritePathAreAVacuousRun(t *testing.T) {
	seeds := make([]int64, 50)
	for i := range seeds {
		seeds[i] = int64(i + 1)
	}
	missed := scene.Counts{"crashes": 100, "unsynced": 30, "in-flight": 12}
	assert.Nil(t, struckTheWritePath(missed, seeds[:10]), "ten worlds are too few to tell")
	f := struckTheWritePath(missed, seeds)
	require.NotNil(t, f)
	assert.Equal(t, "vacuous-run", f.Name)
	assert.Equal(t, int64(1), f.Seed)
	assert.Contains(t, f.Story, "100 crashes: 30 during a sync (0 leaving a torn record), 12 with an acknowledgement in flight")
	missed["torn"] = 1
	assert.Nil(t, struckTheWritePath(missed, seeds))
}

// A write path that a refusal leaves locked answers nothing more until the
// next crash: the first write that times out while the apiserver is up is
// told as a stalled write, with the last write answered before it.
func TestAWritePathLeftLockedIsAStalledWrite(t *testing.T) {
	ch := chapter(openWAL(slips{shutOnNo: true}))
	for seed := int64(1); seed <= 20; seed++ {
		f := ch.Verdict("crash-points", "crashes", seed)
		if f == nil {
			continue
		}
		assert.Equal(t, "write-stalled", f.Name)
		assert.Contains(t, f.Story, "though the apiserver was up")
		assert.Regexp(t, `the last write it answered before it was writer-\d's .*, answered (not-found|already-exists|conflict|ok) at`, f.Story)
		return
	}
	t.Fatal("no world of 20 caught the write path left locked")
}

// A conditional update refused on its precondition, but logged before the
// precondition was checked, is back after the restart: the first such
// write is told as refused and yet recovered, with the change the boot
// made of it.
func TestARefusedWriteInTheLogIsARefusedWriteLogged(t *testing.T) {
	ch := chapter(openWAL(slips{logRefused: true}))
	for seed := int64(1); seed <= 20; seed++ {
		f := ch.Verdict("crash-points", "crashes", seed)
		if f == nil {
			continue
		}
		assert.Equal(t, "refused-write-logged", f.Name)
		assert.Regexp(t, `^the apiserver refused writer-\d's UPDATE .* at [\d.]+ms \(Conflict\), yet the boot at [\d.]+ms, after the crash at [\d.]+ms, `+
			`recovered that change as rv \d+, MODIFIED .*: the apiserver appended it to the log while it handled the write`, f.Story)
		return
	}
	t.Fatal("no world of 20 caught the refused write in the log")
}

// A boot that replays only the last change of each object recovers the
// objects but a history with holes in it: the first acknowledged change it
// skips is told as an unrecovered write, a record the replay skipped.
func TestAReplayThatSkipsRecordsIsAnUnrecoveredWrite(t *testing.T) {
	f := chapter(openWAL(slips{replayLatest: true})).Verdict("crash-points", "crashes", 1)
	require.NotNil(t, f)
	assert.Equal(t, "unrecovered-write", f.Name)
	assert.Contains(t, f.Story, "that skips rv")
	assert.Contains(t, f.Story, "Open did not replay it")
}

// The torn edge tears the record being synced at its last byte. A store
// that frames by length cuts it off at boot and passes; a store of lines
// that takes the last line, its newline torn away, for a whole record
// recovers the change, leaves the bytes, and runs the next acknowledged
// record on from them: the boot after the second crash loses both, and the
// story says which record was read back whole, at which crash, and which
// acknowledged change and which change a reader had seen went with it.
func TestALineReadBackWholeThoughTornIsATornRecordKept(t *testing.T) {
	for seed := int64(1); seed <= edgeSeeds; seed++ {
		c := edgeWorld(seed, openWAL(slips{}))
		x := c.j.crashes()[0]
		assert.Equal(t, 1, x.unsynced-x.kept, "seed %d: the first crash tears the last byte", seed)
		c.Close()
		assert.Nil(t, chapter(openWAL(slips{})).Verdict("crash-points", "edge", seed), "seed %d", seed)
	}
	f := chapter(openWAL(slips{lines: true})).Verdict("crash-points", "edge", 1)
	require.NotNil(t, f)
	assert.Equal(t, "torn-record-kept", f.Name)
	assert.Regexp(t, `^the crash at [\d.]+ms tore the last record of the log, keeping all of it but its last 1B \(\d+B of \d+B unsynced\), `+
		`and the boot at [\d.]+ms read the torn record back as whole: it recovered rv (\d+), ADDED deployments/web-\d+\{.*\}, a change whose writer was never answered`, f.Story)
	assert.Regexp(t, `writer-1's CREATE deployments/web-\d+\{.*\}, answered ok \(rv \d+\) at [\d.]+ms, was appended there: `+
		`the boot after the crash at 140ms could not read past the torn record's end, cut \d+B off the log and lost the acknowledged rv \d+, `+
		`and rv \d+ too, which reader had read at [\d.]+ms$`, f.Story)
}

// A boot that panics on the torn record the edge's first crash left is
// told by that record: which write it was, where the log ends, what the
// crash kept of it, where in Open the boot panicked, and that it boots
// with the record cut off; a boot that panics on a log of whole records is
// told that the log was whole. A boot that cuts the torn record off passes.
func TestABootThatPanicsIsToldByTheLogItWasHanded(t *testing.T) {
	panicky := func(at int) func(p *sim.Proc) kube.Storage { // the boot that panics: 3, after the synced crash
		boots := 0
		return func(p *sim.Proc) kube.Storage {
			if boots++; boots == at {
				tornPanic(p.Disk().Open("wal").ReadAll())
			}
			return openWAL(slips{})(p)
		}
	}
	tornPanics := func(p *sim.Proc) kube.Storage { // the boot that panics on a log that does not end with a whole record
		data := p.Disk().Open("wal").ReadAll()
		for len(data) >= 4 && len(data)-4 >= int(binary.BigEndian.Uint32(data)) {
			data = data[4+binary.BigEndian.Uint32(data):]
		}
		if len(data) > 0 {
			tornPanic(data)
		}
		return openWAL(slips{})(p)
	}
	f := chapter(tornPanics).Verdict("crash-points", "edge", 1)
	require.NotNil(t, f)
	assert.Equal(t, "boot-failed-on-torn-record", f.Name)
	assert.Regexp(t, `^the crash at [\d.]+ms tore the record the apiserver was syncing for writer-1's CREATE deployments/web-\d+\{.*\}: `+
		`of the (\d+)B the log had not synced yet, from byte \d+ on, it kept \d+B, so the log's last record ends 1B short, at byte \d+\. `+
		`The boot at [\d.]+ms could not read past it: Open panicked in tornPanic at judge_test.go:\d+ \(torn\), and the apiserver never came back\. `+
		`With those \d+B cut off, the same Open boots from that log`, f.Story)
	assert.Contains(t, f.Details, "tornPanic")

	f = chapter(panicky(3)).Verdict("crash-points", "edge", 1)
	require.NotNil(t, f)
	assert.Equal(t, "boot-failed-on-whole-log", f.Name)
	assert.Regexp(t, `^the boot at [\d.]+ms could not recover the log the crash at 140ms left: \d+B of whole records, all synced, none torn\. `+
		`Open panicked in tornPanic at judge_test.go:\d+ \(torn\), and the apiserver never came back\. Every byte it was handed`, f.Story)

	assert.Nil(t, chapter(openWAL(slips{})).Verdict("crash-points", "edge", 1))
}

// A boot that panics on every restart panics on the log the torn edge's
// first crash left too, but not because of its torn record: booted again
// on that log with the torn record cut out, it panics all the same, so the
// story blames how it reads whole records, and says which record was torn.
func TestABootThatPanicsWithTheTornRecordCutOutIsToldByTheWholeLog(t *testing.T) {
	restarts := func(p *sim.Proc) kube.Storage {
		if p.Now() > 0 {
			tornPanic(nil)
		}
		return openWAL(slips{})(p)
	}
	f := chapter(restarts).Verdict("crash-points", "edge", 1)
	require.NotNil(t, f)
	assert.Equal(t, "boot-failed-on-whole-log", f.Name)
	assert.Regexp(t, `^the boot at [\d.]+ms could not recover the log it was given: \d+B, among them the \d+B of a record the crash at [\d.]+ms tore, from byte \d+ on\. `+
		`Open panicked in tornPanic at judge_test.go:\d+ \(torn\), and the apiserver never came back\. `+
		`With the torn record cut out, the same Open does not boot from the \d+B of whole records left either \(it panicked in tornPanic at judge_test.go:\d+: torn\)`, f.Story)
}

// A store of lines that skips a last line without its newline as torn, and
// leaves it in the file, boots after the edge's first crash; the next
// record runs on from the torn line, and the boot after the second crash
// panics on a line that is two records. The story blames the torn record
// the first boot left, with what was appended after it, since the same
// Open boots from the log with the torn bytes cut out.
func TestATornLineLeftInTheLogIsABootFailedOnTheTornRecord(t *testing.T) {
	f := chapter(openWAL(slips{lines: true, leaveTorn: true})).Verdict("crash-points", "edge", 1)
	require.NotNil(t, f)
	assert.Equal(t, "boot-failed-on-torn-record", f.Name)
	assert.Regexp(t, `^the crash at [\d.]+ms tore the record the apiserver was syncing for writer-1's CREATE deployments/web-\d+\{.*\}: `+
		`of the (\d+)B the log had not synced yet, from byte \d+ on, it kept \d+B, 1B short of the record's end\. `+
		`The boot at [\d.]+ms left those bytes in the log, and the \d+B appended after them ran on from the torn record's end\. `+
		`The boot at 155ms could not read past it: Open panicked in func\d+ at judge_test.go:\d+ \(the log is corrupt\), and the apiserver never came back\. `+
		`With the torn \d+B cut out, the same Open boots from that log`, f.Story)
}

// tornPanic is a decoder that gives up on a log the way a slice past its
// end does.
func tornPanic([]byte) { panic("torn") }
