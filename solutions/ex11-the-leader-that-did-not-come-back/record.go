package ex11

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
)

// You do not need to change this file. It is the format of the two files on
// each server's disk, as chapter ex02 built it: one frame per record, a
// header (the payload's length and its CRC32, four bytes each, big-endian)
// and the record as JSON. logFile holds the log's entries, one frame each,
// in order; stateFile holds the server's term and vote, one frame per
// change, the last whole frame being the current one.

const (
	logFile   = "log"
	stateFile = "state"
)

// Entry is one record of the replicated log: the term of the leader that
// created it, and the client's write it carries (nil for a leader's no-op).
type Entry struct {
	Term  int64
	Write *Write `json:",omitempty"`
}

// What is the entry in words, as the hidden suite's monitor compares
// entries: "update deployments/web{replicas=5 rv=0}", or "no-op".
func (e Entry) What() string {
	if e.Write == nil {
		return "no-op"
	}
	return e.Write.String()
}

// Vote is what a server must not forget across a crash: the highest term
// it has seen, and whom it voted for in that term ("" for nobody yet).
type Vote struct {
	Term     int64
	VotedFor string `json:",omitempty"`
}

const headerSize = 8

// encode turns v into one whole frame, ready to Append to a file.
func encode(v any) []byte {
	payload, err := json.Marshal(v)
	if err != nil {
		panic(err) // an Entry or a Vote is plain data: this cannot happen
	}
	b := make([]byte, headerSize, headerSize+len(payload))
	binary.BigEndian.PutUint32(b[0:4], uint32(len(payload)))
	binary.BigEndian.PutUint32(b[4:8], crc32.ChecksumIEEE(payload))
	return append(b, payload...)
}

// decode reads the whole frames at the start of data, in order, each into
// a fresh T, and returns them with their byte offsets (ends[i] is where
// frame i ends) and good, the number of bytes they take. A crash may leave
// a torn last frame after them: data[good:] is what is left of it.
func decode[T any](data []byte) (records []T, ends []int, good int) {
	for good < len(data) {
		b := data[good:]
		if len(b) < headerSize {
			break
		}
		n := int(binary.BigEndian.Uint32(b[0:4]))
		if len(b)-headerSize < n {
			break
		}
		payload := b[headerSize : headerSize+n]
		if crc32.ChecksumIEEE(payload) != binary.BigEndian.Uint32(b[4:8]) {
			break
		}
		var r T
		if json.Unmarshal(payload, &r) != nil {
			break
		}
		records = append(records, r)
		good += headerSize + n
		ends = append(ends, good)
	}
	return records, ends, good
}
