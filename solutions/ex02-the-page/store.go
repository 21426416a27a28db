package ex02

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// Store is the apiserver's storage: the one history of accepted changes,
// numbered by resourceVersion, that every request reads and writes. It
// implements kube.Storage; the hidden suite serves it with kube.Serve on the
// node "apiserver".
//
// The processes of the node share a Store without a lock, since only one
// process runs at a time; the write path holds writing only because it
// blocks (Sync).
type Store struct {
	// mem is the history in memory: the state every read is served from.
	// It dies with the process; wal is what makes it again.
	mem *kube.MemStore
	// writing admits one write at a time: Propose numbers a change against
	// what mem has applied, and Sync blocks between Propose and Apply.
	writing sim.Mutex
	// wal is the write-ahead log: one frame per accepted change, in order.
	wal *sim.File
}

// A frame is header, then payload: the payload's length and its CRC32
// (IEEE), four bytes each, big-endian. A crash can keep any prefix of what
// was not yet synced, so the last frame may be short; the checksum also
// catches a frame whose bytes are wrong, which the simulated disk never
// does and a real one sometimes does.
const headerSize = 8

// frame wraps a payload for the log.
func frame(payload []byte) []byte {
	b := make([]byte, headerSize, headerSize+len(payload))
	binary.BigEndian.PutUint32(b[0:4], uint32(len(payload)))
	binary.BigEndian.PutUint32(b[4:8], crc32.ChecksumIEEE(payload))
	return append(b, payload...)
}

// nextFrame reads the frame at the start of b. ok is false if b does not
// begin with a whole frame whose checksum holds.
func nextFrame(b []byte) (payload []byte, size int, ok bool) {
	if len(b) < headerSize {
		return nil, 0, false
	}
	n := int(binary.BigEndian.Uint32(b[0:4]))
	if len(b)-headerSize < n {
		return nil, 0, false
	}
	payload = b[headerSize : headerSize+n]
	if crc32.ChecksumIEEE(payload) != binary.BigEndian.Uint32(b[4:8]) {
		return nil, 0, false
	}
	return payload, headerSize + n, true
}

// Open is the apiserver's boot: it rebuilds the history from the log, at
// start and again after every restart.
func Open(p *sim.Proc) *Store {
	s := &Store{
		mem:     kube.NewMemStore(0),
		writing: sim.Mutex{Name: "writing"},
		wal:     p.Disk().Open("wal"),
	}
	data := s.wal.ReadAll()
	good := 0 // the end of the last whole frame
	for good < len(data) {
		payload, size, ok := nextFrame(data[good:])
		if !ok {
			break
		}
		ev, err := decodeEvent(payload)
		if err != nil {
			break // a frame whose checksum holds decodes; be safe anyway
		}
		if err := s.mem.Apply(p, ev); err != nil {
			panic(fmt.Sprintf("ex02: the log is out of order at byte %d: %v", good, err))
		}
		good += size
	}
	if good < len(data) {
		// The torn tail of the last crash: drop it, or the next record
		// would be appended after it and the next recovery would stop at
		// the torn bytes, losing everything written after them.
		p.Logf("wal: dropping a torn record (%dB after byte %d)", len(data)-good, good)
		s.wal.Truncate(good)
	}
	p.Logf("store opened: %d changes recovered", s.mem.ResourceVersion())
	return s
}

// commit makes the accepted change ev part of the history: it is on disk
// (synced) before anyone can read it and before its writer hears "ok".
func (s *Store) commit(p *sim.Proc, ev kube.Event) error {
	s.wal.Append(frame(encodeEvent(ev)))
	s.wal.Sync(p) // a crash before this returns may lose ev: nobody has seen it
	return s.mem.Apply(p, ev)
}

// write decides a change, commits it and returns the stored object: the
// whole write path of Create, Update and Delete.
func (s *Store) write(p *sim.Proc, req any) (kube.Object, error) {
	s.writing.Lock(p)
	defer s.writing.Unlock()
	ev, changed, err := s.mem.Propose(req)
	if err != nil || !changed {
		return ev.Object, err
	}
	if err := s.commit(p, ev); err != nil {
		return kube.Object{}, err
	}
	return ev.Object, nil
}

// Create stores a new object, or answers AlreadyExists.
func (s *Store) Create(p *sim.Proc, obj kube.Object) (kube.Object, error) {
	return s.write(p, kube.CreateRequest{Object: obj})
}

// Update replaces an object; a non-zero obj.ResourceVersion is a
// precondition (Conflict if the object has changed since). An absent object
// is NotFound.
func (s *Store) Update(p *sim.Proc, obj kube.Object) (kube.Object, error) {
	return s.write(p, kube.UpdateRequest{Object: obj})
}

// Delete removes an object, conditionally on a non-zero resourceVersion, or
// answers NotFound. It returns the object with the deletion's version.
func (s *Store) Delete(p *sim.Proc, key string, resourceVersion int64) (kube.Object, error) {
	return s.write(p, kube.DeleteRequest{Key: key, ResourceVersion: resourceVersion})
}

// Get returns the object at key, or NotFound.
func (s *Store) Get(p *sim.Proc, key string, opts kube.ReadOptions) (kube.Object, error) {
	return s.mem.Get(p, key, opts)
}

// List returns every object of kind and the resourceVersion it reflects.
func (s *Store) List(p *sim.Proc, kind string, opts kube.ReadOptions) (kube.List, error) {
	return s.mem.List(p, kind, opts)
}

// Watch returns the changes to kind after resourceVersion, waiting up to
// wait for at least one.
func (s *Store) Watch(p *sim.Proc, kind string, resourceVersion int64, wait time.Duration) ([]kube.Event, error) {
	return s.mem.Watch(p, kind, resourceVersion, wait)
}

var _ kube.Storage = (*Store)(nil)
