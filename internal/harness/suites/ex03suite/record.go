package ex03suite

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"onehistory/internal/harness/kube"
)

// The servers of the zoo log their records on disk as JSON, one a line,
// and read every one back at each boot: encoding/json's reflection was a
// twentieth of the suite's time. A record reads through decodeRecord,
// which reads a line exactly as json.Marshal wrote it (fields in order, no
// escapes, integers) directly, and hands anything else (a damaged line, a
// name with a quote in it) to json.Unmarshal: the value is the same
// either way.

// decodeRecord reads line, one record with its newline, into v: a
// *kube.Event, a *change or a *copyRecord.
func decodeRecord(line []byte, v any) error {
	r := reader{b: line}
	switch v := v.(type) {
	case *kube.Event:
		var ev kube.Event
		r.lit(`{"Type":`)
		ev.Type = kube.EventType(r.str())
		r.lit(`,"Object":`)
		ev.Object = r.object()
		if r.end() {
			*v = ev
			return nil
		}
	case *change:
		var c change
		c.Object, c.Deleted = r.objectDeleted()
		if r.end() {
			*v = c
			return nil
		}
	case *copyRecord:
		var c copyRecord
		c.Object, c.Deleted = r.objectDeleted()
		r.lit(`,"Own":`)
		c.Own = r.bool()
		if r.end() {
			*v = c
			return nil
		}
	}
	return json.Unmarshal(line, v)
}

// reader reads a line as json.Marshal writes it; at the first byte it does
// not expect, it fails, and reads nothing more.
type reader struct {
	b      []byte
	failed bool
}

// objectDeleted reads the fields a change and a copy record begin with:
// {"Object":...,"Deleted":...
func (r *reader) objectDeleted() (kube.Object, bool) {
	r.lit(`{"Object":`)
	o := r.object()
	r.lit(`,"Deleted":`)
	return o, r.bool()
}

// lit reads s.
func (r *reader) lit(s string) {
	if r.failed || !bytes.HasPrefix(r.b, []byte(s)) {
		r.failed = true
		return
	}
	r.b = r.b[len(s):]
}

// str reads a string without escapes, of valid UTF-8.
func (r *reader) str() string {
	r.lit(`"`)
	if r.failed {
		return ""
	}
	i := bytes.IndexByte(r.b, '"')
	if i < 0 {
		r.failed = true
		return ""
	}
	s := r.b[:i]
	for _, c := range s {
		if c == '\\' || c < 0x20 {
			r.failed = true
			return ""
		}
	}
	if !utf8.Valid(s) {
		r.failed = true
		return ""
	}
	r.b = r.b[i+1:]
	return string(s)
}

// int reads an integer as json.Marshal writes one: an optional minus sign
// and digits, without a leading zero.
func (r *reader) int() int64 {
	if r.failed {
		return 0
	}
	i := 0
	if i < len(r.b) && r.b[i] == '-' {
		i++
	}
	start := i
	for i < len(r.b) && r.b[i] >= '0' && r.b[i] <= '9' {
		i++
	}
	if i == start || (r.b[start] == '0' && i > start+1) {
		r.failed = true
		return 0
	}
	n, err := strconv.ParseInt(string(r.b[:i]), 10, 64)
	if err != nil {
		r.failed = true
		return 0
	}
	r.b = r.b[i:]
	return n
}

// bool reads true or false.
func (r *reader) bool() bool {
	switch {
	case r.failed:
	case bytes.HasPrefix(r.b, []byte("true")):
		r.b = r.b[4:]
		return true
	case bytes.HasPrefix(r.b, []byte("false")):
		r.b = r.b[5:]
	default:
		r.failed = true
	}
	return false
}

// object reads a kube.Object.
func (r *reader) object() kube.Object {
	var o kube.Object
	r.lit(`{"Kind":`)
	o.Kind = r.str()
	r.lit(`,"Name":`)
	o.Name = r.str()
	r.lit(`,"ResourceVersion":`)
	o.ResourceVersion = r.int()
	r.lit(`,"Replicas":`)
	o.Replicas = int(r.int())
	r.lit(`,"Owner":`)
	o.Owner = r.str()
	r.lit(`,"Image":`)
	o.Image = r.str()
	r.lit(`,"NodeName":`)
	o.NodeName = r.str()
	r.lit(`,"Status":{"Ready":`)
	o.Status.Ready = kube.ConditionStatus(r.str())
	r.lit(`,"Heartbeat":`)
	o.Status.Heartbeat = time.Duration(r.int())
	r.lit(`,"NoSchedule":`)
	o.Status.NoSchedule = r.bool()
	r.lit(`},"Lease":{"Holder":`)
	o.Lease.Holder = r.str()
	r.lit(`,"LeaseDurationSeconds":`)
	o.Lease.LeaseDurationSeconds = int(r.int())
	r.lit(`,"AcquireTime":`)
	o.Lease.AcquireTime = time.Duration(r.int())
	r.lit(`,"RenewTime":`)
	o.Lease.RenewTime = time.Duration(r.int())
	r.lit(`,"Transitions":`)
	o.Lease.Transitions = r.int()
	r.lit(`},"Fence":{"LeaseKey":`)
	o.Fence.LeaseKey = r.str()
	r.lit(`,"Token":`)
	o.Fence.Token = r.int()
	r.lit(`}}`)
	return o
}

// end reads the record's closing brace and newline, the line's last bytes,
// and reports whether all of it was read.
func (r *reader) end() bool {
	r.lit("}\n")
	return !r.failed && len(r.b) == 0
}
