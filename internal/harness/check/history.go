package check

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"
)

// Kind is what an operation asks of the store.
type Kind int

// The kinds of operation the key-value model knows. A Kubernetes-style
// "update with a resourceVersion precondition" is KindCompareAndSet on the
// version; a plain "put" is KindWrite.
const (
	KindRead          Kind = iota + 1 // read one key: returns (value, version) or NotFound
	KindWrite                         // unconditional write: always succeeds, creating the key if needed
	KindCompareAndSet                 // conditional write: succeeds only if the precondition holds, else Conflict
	KindCreate                        // create: succeeds only if the key is absent, else AlreadyExists
	KindDelete                        // delete: succeeds only if the key exists (and, with IfVersion, is at that version), else NotFound (or Conflict)
)

// String is the kind's lower-case name: "read", "write", "compare-and-set",
// "create", "delete".
func (k Kind) String() string {
	switch k {
	case KindRead:
		return "read"
	case KindWrite:
		return "write"
	case KindCompareAndSet:
		return "compare-and-set"
	case KindCreate:
		return "create"
	case KindDelete:
		return "delete"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Mutates reports whether an operation of this kind may change the store.
func (k Kind) Mutates() bool { return k != KindRead }

// Input is what a client asked: the kind, the key and, for writes, the new
// value and the precondition. Build one with Read, ListItem, Write, Create,
// Delete, UpdateIfVersion or UpdateIfValue.
//
// Values are compared after normalization: every integer type becomes int64
// and every string type becomes string, so Write(k, 5) and Found(int64(5), v)
// agree. Any other value must be comparable with ==.
type Input struct {
	Kind  Kind
	Key   string
	Value any // the value written (KindWrite, KindCompareAndSet, KindCreate)

	// The precondition of KindCompareAndSet: the current value must equal
	// IfValue when ByValue is set, and the current version must equal
	// IfVersion otherwise. A KindDelete with a non-zero IfVersion is
	// conditional on the version in the same way.
	IfVersion int64
	IfValue   any
	ByValue   bool

	// List is, for a read that is one key of a list, the kind listed
	// ("deployments"); "" for a get. The checkers judge it as any read;
	// the stories name it as the list it was.
	List string
}

// Read asks for key's current value and version.
func Read(key string) Input { return Input{Kind: KindRead, Key: key} }

// ListItem is key as a list of kind found it: a read of key, at the
// list's call and return, told as a list.
func ListItem(kind, key string) Input { return Input{Kind: KindRead, Key: key, List: kind} }

// Write sets key to value unconditionally; it succeeds whatever the key
// held, and creates the key if it was absent.
func Write(key string, value any) Input {
	return Input{Kind: KindWrite, Key: key, Value: normalize(value)}
}

// Create sets key to value only if key is absent; otherwise the store answers
// AlreadyExists.
func Create(key string, value any) Input {
	return Input{Kind: KindCreate, Key: key, Value: normalize(value)}
}

// Delete removes key; if it is absent the store answers NotFound.
func Delete(key string) Input { return Input{Kind: KindDelete, Key: key} }

// DeleteIfVersion removes key only if its current version is version:
// Kubernetes' delete with a resourceVersion precondition. A stale version is
// a Conflict; an absent key is NotFound (or Conflict).
func DeleteIfVersion(key string, version int64) Input {
	return Input{Kind: KindDelete, Key: key, IfVersion: version}
}

// UpdateIfVersion sets key to value only if key's current version is version:
// Kubernetes' update with a resourceVersion precondition. A stale version is a
// Conflict; an absent key is NotFound (or Conflict).
func UpdateIfVersion(key string, value any, version int64) Input {
	return Input{Kind: KindCompareAndSet, Key: key, Value: normalize(value), IfVersion: version}
}

// UpdateIfValue sets key to value only if key currently holds expected;
// otherwise the store answers Conflict (or NotFound if key is absent).
func UpdateIfValue(key string, value, expected any) Input {
	return Input{Kind: KindCompareAndSet, Key: key, Value: normalize(value), IfValue: normalize(expected), ByValue: true}
}

// Verb names what the operation did, for a story: its kind's name, but
// "list" for a read that was one key's place in a LIST.
func (in Input) Verb() string {
	if in.Kind == KindRead && in.List != "" {
		return "list"
	}
	return in.Kind.String()
}

// String describes the input briefly: "read deployments/web",
// "write deployments/web=5", "update deployments/web to 8 if rv=3".
func (in Input) String() string {
	switch in.Kind {
	case KindRead:
		if in.List != "" {
			return "list " + in.List + " (" + in.Key + ")"
		}
		return "read " + in.Key
	case KindWrite:
		return "write " + in.Key + "=" + formatValue(in.Value)
	case KindCreate:
		return "create " + in.Key + "=" + formatValue(in.Value)
	case KindDelete:
		if in.IfVersion != 0 {
			return "delete " + in.Key + " if " + in.precondition()
		}
		return "delete " + in.Key
	case KindCompareAndSet:
		return "update " + in.Key + " to " + formatValue(in.Value) + " if " + in.precondition()
	}
	return in.Kind.String() + " " + in.Key
}

func (in Input) precondition() string {
	if in.ByValue {
		return "value=" + formatValue(in.IfValue)
	}
	return fmt.Sprintf("rv=%d", in.IfVersion)
}

// Outcome is how an operation ended, as far as its client knows.
type Outcome int

// The outcomes. Pending, Indefinite and Refused say nothing about the state of
// the store; the others are definite answers from it.
const (
	// Pending: called and not (yet) returned. Checkers treat a pending
	// operation as Indefinite.
	Pending Outcome = iota
	// OK: the read returned a value, or the write was acknowledged.
	OK
	// NotFound: the key was absent (a read, a delete, a conditional update).
	NotFound
	// AlreadyExists: a create found the key present.
	AlreadyExists
	// Conflict: a compare-and-set, or a conditional delete, found its
	// precondition false.
	Conflict
	// Refused: a definite failure known to have had no effect, such as
	// Unavailable before the request reached storage, or TooManyRequests.
	Refused
	// Indefinite: the client gave up (a timeout) without knowing the
	// outcome; a write may have taken effect at any point after its call,
	// or never.
	Indefinite
)

// String is the outcome's kebab-case name: "ok", "not-found", "indefinite", ...
func (o Outcome) String() string {
	switch o {
	case Pending:
		return "pending"
	case OK:
		return "ok"
	case NotFound:
		return "not-found"
	case AlreadyExists:
		return "already-exists"
	case Conflict:
		return "conflict"
	case Refused:
		return "refused"
	case Indefinite:
		return "indefinite"
	}
	return fmt.Sprintf("outcome(%d)", int(o))
}

// Definite reports whether the outcome is an answer from the store about its
// state: OK, NotFound, AlreadyExists or Conflict.
func (o Outcome) Definite() bool {
	return o == OK || o == NotFound || o == AlreadyExists || o == Conflict
}

// Result is what a client learned when its operation returned. Build one with
// Found, Acked or Fail.
//
// Version 0 means "not reported": the checkers then check the value alone.
// Versions a store reports must grow with every change of a key (a
// Kubernetes resourceVersion does); a write that changes nothing may keep the
// version it had.
type Result struct {
	Outcome Outcome
	Value   any   // the value read (KindRead with OK)
	Version int64 // the version read, or the version the write created
}

// Found is the result of a read that returned value at version.
func Found(value any, version int64) Result {
	return Result{Outcome: OK, Value: normalize(value), Version: version}
}

// Acked is the result of a write, compare-and-set, create or delete that the
// store acknowledged, creating version (0 if not reported).
func Acked(version int64) Result { return Result{Outcome: OK, Version: version} }

// Fail is the result of an operation that ended with the definite failure o:
// NotFound, AlreadyExists, Conflict or Refused. For a timeout use
// History.Timeout: it is not a definite failure.
func Fail(o Outcome) Result { return Result{Outcome: o} }

// OpID names an operation of one History. IDs are given in call order,
// starting at 0, so the same run records the same IDs.
type OpID int

// Operation is one recorded client operation. Times are virtual, measured
// from the start of the world.
type Operation struct {
	ID     OpID
	Client string // who called: "controller-a", "kubectl"
	Server string // where the request was sent: "server-2"
	Input  Input
	Call   time.Duration // when the client sent the request
	Return time.Duration // when it got its answer or gave up; zero while Pending
	Result Result

	// callSeq and returnSeq are the order in which the History heard of the
	// call and the return, among all its calls and returns: within one
	// virtual instant, the order they happened in (see porcupineHistory).
	callSeq, returnSeq int
}

// Indefinite reports whether the operation's effect is unknown: it timed out
// or never returned.
func (op Operation) Indefinite() bool {
	return op.Result.Outcome == Indefinite || op.Result.Outcome == Pending
}

// Precedes reports whether op returned before next was called, so that
// every single history puts op first. Two that meet at one virtual instant
// are in the order the History heard of them: a client answered at 110ms
// that asks again at 110ms asks after it was answered.
func (op Operation) Precedes(next Operation) bool {
	if op.Indefinite() {
		return false
	}
	if op.Return != next.Call {
		return op.Return < next.Call
	}
	return op.returnSeq != 0 && op.returnSeq < next.callSeq
}

// Completed reports whether the operation returned a definite answer from the
// store (see Outcome.Definite).
func (op Operation) Completed() bool { return op.Result.Outcome.Definite() }

// Acknowledged reports whether the operation is a change the store told its
// client it accepted.
func (op Operation) Acknowledged() bool {
	return op.Input.Kind.Mutates() && op.Result.Outcome == OK
}

// String tells the operation in one line:
// "#4 controller-a read deployments/web from server-2 [410ms, 412ms] → 3 (rv 2)".
func (op Operation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s", op.ID, op.Client, op.Input)
	if op.Server != "" {
		fmt.Fprintf(&b, " via %s", op.Server)
	}
	if op.Result.Outcome == Pending {
		fmt.Fprintf(&b, " [%s, …] → pending", formatTime(op.Call))
		return b.String()
	}
	fmt.Fprintf(&b, " [%s, %s] → %s", formatTime(op.Call), formatTime(op.Return), op.resultString())
	return b.String()
}

func (op Operation) resultString() string {
	r := op.Result
	switch {
	case r.Outcome == OK && op.Input.Kind == KindRead:
		return formatValue(r.Value) + versionSuffix(r.Version)
	case r.Outcome == OK:
		if r.Version != 0 {
			return fmt.Sprintf("ok (rv %d)", r.Version)
		}
		return "ok"
	case r.Outcome == Indefinite:
		return "timed out"
	}
	return r.Outcome.String()
}

func versionSuffix(v int64) string {
	if v == 0 {
		return ""
	}
	return fmt.Sprintf(" (rv %d)", v)
}

// History is the record of a run's client operations, in call order. Clients
// (or the harness around them) call Call when an operation starts and Return
// or Timeout when it ends.
//
// The zero History is empty and ready to use. It is safe for concurrent use,
// though the world runs one process at a time and needs no lock.
type History struct {
	mu sync.Mutex
	// chunks hold the operations in call order, each chunk twice as large
	// as the one before up to opsChunk: a call never copies the
	// operations recorded before it, as a growing slice would.
	chunks [][]Operation
	n      int // operations recorded
	seen   int // calls and returns recorded so far
}

// opsChunk is the most operations one chunk of a History holds.
const opsChunk = 256

// NewHistory returns an empty History.
func NewHistory() *History { return &History{} }

// Call records that client sent in to server at virtual time at, and returns
// the operation's ID, to be passed to Return or Timeout. Values in in are
// normalized (see Input). Call panics if a value is not comparable.
func (h *History) Call(client, server string, in Input, at time.Duration) OpID {
	in.Value = normalize(in.Value)
	in.IfValue = normalize(in.IfValue)
	h.mu.Lock()
	defer h.mu.Unlock()
	id := OpID(h.n)
	h.seen++
	if len(h.chunks) == 0 || len(h.chunks[len(h.chunks)-1]) == cap(h.chunks[len(h.chunks)-1]) {
		size := 16
		if len(h.chunks) > 0 {
			size = min(2*cap(h.chunks[len(h.chunks)-1]), opsChunk)
		}
		h.chunks = append(h.chunks, make([]Operation, 0, size))
	}
	last := len(h.chunks) - 1
	h.chunks[last] = append(h.chunks[last], Operation{ID: id, Client: client, Server: server, Input: in, Call: at, callSeq: h.seen})
	h.n++
	return id
}

// Return records that operation id returned r at virtual time at. A Result
// whose Outcome is Pending or Indefinite is recorded as a timeout. Return
// panics if id was not returned by Call, if the operation has already ended,
// or if at is before the call.
func (h *History) Return(id OpID, r Result, at time.Duration) {
	r.Value = normalize(r.Value)
	if r.Outcome == Pending {
		r.Outcome = Indefinite
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	op := h.pending(id, at)
	op.Result = r
	op.Return = at
	h.seen++
	op.returnSeq = h.seen
}

// Timeout records that the client of operation id gave up at virtual time at
// without learning the outcome: the operation is indefinite. It panics as
// Return does.
func (h *History) Timeout(id OpID, at time.Duration) { h.Return(id, Result{Outcome: Indefinite}, at) }

func (h *History) pending(id OpID, at time.Duration) *Operation {
	if id < 0 || int(id) >= h.n {
		panic(fmt.Sprintf("check: History has no operation #%d", id))
	}
	op := h.op(int(id))
	if op.Result.Outcome != Pending {
		panic(fmt.Sprintf("check: operation %s has already ended", op))
	}
	if at < op.Call {
		panic(fmt.Sprintf("check: operation #%d returns at %s, before its call at %s", id, formatTime(at), formatTime(op.Call)))
	}
	return op
}

// Operations returns a copy of the recorded operations in call order
// (operation i has ID i). Operations still pending have Outcome Pending.
func (h *History) Operations() []Operation {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == 0 {
		return nil
	}
	out := make([]Operation, 0, h.n)
	for _, c := range h.chunks {
		out = append(out, c...)
	}
	return out
}

// op is the i-th operation recorded.
func (h *History) op(i int) *Operation {
	for _, c := range h.chunks {
		if i < len(c) {
			return &c[i]
		}
		i -= len(c)
	}
	panic(fmt.Sprintf("check: History has no operation #%d", i))
}

// Len is the number of operations recorded.
func (h *History) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// normalize turns every integer into int64 and every string type into string,
// so that values compare equal however a caller spelled them. It panics on a
// value that cannot be compared with ==.
func normalize(v any) any {
	switch v.(type) {
	case nil, int64, string, bool: // already normal: most values, normalized once already
		return v
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return int64(rv.Uint())
	case reflect.String:
		return rv.String()
	case reflect.Bool:
		return rv.Bool()
	}
	if !rv.Type().Comparable() {
		panic(fmt.Sprintf("check: value %v of type %T cannot be compared with ==", v, v))
	}
	return v
}

// sameValue reports whether a and b are the same value after normalization.
func sameValue(a, b any) bool { return normalize(a) == normalize(b) }

// formatValue prints a value as the stories tell it: 5, nginx:1.25, <none>.
func formatValue(v any) string {
	if v == nil {
		return "<none>"
	}
	return fmt.Sprint(v)
}
