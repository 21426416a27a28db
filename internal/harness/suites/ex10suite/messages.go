package ex10suite

import (
	"fmt"
	"reflect"
)

// appendMsg is one of the exercise's Appends as the suite reads it off the
// trace. The trace records the message values the servers sent, of the
// exercise's own type (server.go's Append, which the suite cannot import),
// so the suite reads them by their fields, never by how they print: a
// learner who changes Append's String loses no story.
type appendMsg struct {
	prev, commit int64
	from, to     int64 // the first and last entry it carries; 0 and 0 for one that only passes on the commit
}

// heartbeat reports whether the Append carries no entries: it only passes
// on the commit.
func (a appendMsg) heartbeat() bool { return a.from == 0 }

// entries names the entries the Append carries: "entry 5", "entries 5–7".
func (a appendMsg) entries() string {
	if a.from == a.to {
		return fmt.Sprintf("entry %d", a.from)
	}
	return fmt.Sprintf("entries %d–%d", a.from, a.to)
}

// readAppend reads msg as an Append: a struct named Append with integer
// fields Prev and Commit and a slice Entries. The entries it carries are
// named by their own Index fields where they have them (the exercise's
// Entry does), else counted on from Prev. Anything else is no Append.
func readAppend(msg any) (a appendMsg, ok bool) {
	v := reflect.ValueOf(msg)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct || v.Type().Name() != "Append" {
		return appendMsg{}, false
	}
	prev, commit, entries := v.FieldByName("Prev"), v.FieldByName("Commit"), v.FieldByName("Entries")
	if !isInt(prev) || !isInt(commit) || !entries.IsValid() || entries.Kind() != reflect.Slice {
		return appendMsg{}, false
	}
	a = appendMsg{prev: prev.Int(), commit: commit.Int()}
	if n := entries.Len(); n > 0 {
		a.from, a.to = a.prev+1, a.prev+int64(n)
		if first, last := indexOf(entries.Index(0)), indexOf(entries.Index(n-1)); first > 0 && last >= first {
			a.from, a.to = first, last
		}
	}
	return a, true
}

// isInt reports whether v is a field of a signed integer type.
func isInt(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	}
	return false
}

// indexOf is an entry's Index field, or 0 if it has none.
func indexOf(e reflect.Value) int64 {
	for e.Kind() == reflect.Pointer && !e.IsNil() {
		e = e.Elem()
	}
	if e.Kind() != reflect.Struct {
		return 0
	}
	if i := e.FieldByName("Index"); isInt(i) {
		return i.Int()
	}
	return 0
}

// readAppended reads msg as a follower's answer to an Append: a struct
// named Appended with an integer field Match, the last entry the follower
// says it holds durably. Anything else is no answer to an Append.
func readAppended(msg any) (match int64, ok bool) {
	v := reflect.ValueOf(msg)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct || v.Type().Name() != "Appended" {
		return 0, false
	}
	m := v.FieldByName("Match")
	if !isInt(m) {
		return 0, false
	}
	return m.Int(), true
}
