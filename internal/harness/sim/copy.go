package sim

import (
	"reflect"
	"strings"
	"sync"
	"unsafe"
)

// The network carries data, not memory. Every node runs in one Go process,
// so a message that held a pointer, a slice or a map would hand the
// receiver the sender's own memory: two servers sharing one history through
// a single message, a change made after the send arriving without any
// message at all, a copy that outlives the sender's crash. So the world
// copies what it carries, as a wire would: the payload when it is sent
// (later changes by the sender do not travel) and again for each delivery
// (two deliveries of a duplicated message share nothing, and neither does
// the trace's record of it).
//
// A copy is deep: structs, arrays, slices, maps, pointers and the values
// inside interfaces are copied all the way down; two pointers to one value
// in a message point to one copy. Two things are shared rather than
// copied: values of types that hold no references at all (the copy Go makes
// is enough), and errors of the standard library (errors.New's values,
// fmt.Errorf's), which nobody can change and whose identity errors.Is
// compares. A function, a channel or an unsafe.Pointer cannot travel: the
// world stops with a MisuseError naming what carried it.
func copyMessage(v any, what func() string) any {
	if v == nil {
		return nil
	}
	rv := reflect.ValueOf(v)
	if info := infoOf(rv.Type()); !info.needs || info.shared {
		return v
	}
	dst := reflect.New(rv.Type()).Elem()
	dst.Set(rv)
	c := copier{what: what}
	c.fix(dst)
	return dst.Interface()
}

// copier copies one message.
type copier struct {
	what func() string // names the message, for a misuse report
	// seen maps each pointer already copied to its copy, so that two
	// pointers to one value point to one copy (and a cycle ends). It is made
	// at the first pointer: most messages hold none, and a map made up
	// front costs every message an allocation and a deeper stack.
	seen map[seenKey]reflect.Value
}

type seenKey struct {
	p unsafe.Pointer
	t reflect.Type
}

// open makes v, an addressable value, readable and settable even where it
// was reached through unexported fields: the copy must reach everything.
func open(v reflect.Value) reflect.Value {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// fix replaces, in place, every reference inside the addressable value v by
// a copy of what it refers to.
func (c *copier) fix(v reflect.Value) {
	t := v.Type()
	info := infoOf(t)
	if !info.needs {
		return
	}
	v = open(v)
	if info.owned {
		misuse("%s carries a %s, which belongs to the node that made it: a message carries data only, copied as it would be on a wire", c.what(), t)
	}
	switch t.Kind() {
	case reflect.Struct:
		for _, i := range info.fields {
			c.fix(v.Field(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			c.fix(v.Index(i))
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		n := reflect.MakeSlice(t, v.Len(), v.Len())
		reflect.Copy(n, v)
		if info.elemNeeds {
			for i := range n.Len() {
				c.fix(n.Index(i))
			}
		}
		v.Set(n)
	case reflect.Map:
		if v.IsNil() {
			return
		}
		n := reflect.MakeMapWithSize(t, v.Len())
		for it := v.MapRange(); it.Next(); {
			k := reflect.New(t.Key()).Elem()
			k.Set(it.Key())
			c.fix(k)
			e := reflect.New(t.Elem()).Elem()
			e.Set(it.Value())
			c.fix(e)
			n.SetMapIndex(k, e)
		}
		v.Set(n)
	case reflect.Pointer:
		if v.IsNil() || info.shared {
			return
		}
		key := seenKey{v.UnsafePointer(), t}
		if done, ok := c.seen[key]; ok {
			v.Set(done)
			return
		}
		n := reflect.New(t.Elem())
		if c.seen == nil {
			c.seen = map[seenKey]reflect.Value{}
		}
		c.seen[key] = n
		n.Elem().Set(open(v.Elem()))
		c.fix(n.Elem())
		v.Set(n)
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		inner := v.Elem()
		if in := infoOf(inner.Type()); !in.needs || in.shared {
			return
		}
		n := reflect.New(inner.Type()).Elem()
		n.Set(inner)
		c.fix(n)
		v.Set(n)
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		if !v.IsNil() {
			misuse("%s carries a %s (%s): a message carries data only, copied as it would be on a wire", c.what(), strings.ToLower(t.Kind().String()), t)
		}
	}
}

// typeInfo is what the copy needs to know of a type, found once per type
// (infoOf): every value of every message is asked it.
type typeInfo struct {
	needs     bool  // needsCopy
	shared    bool  // shared
	owned     bool  // harnessOwned
	fields    []int // a struct's fields that need a copy, in order
	elemNeeds bool  // a slice's elements need a copy
}

var typeInfos sync.Map // reflect.Type → *typeInfo

func infoOf(t reflect.Type) *typeInfo {
	if info, ok := typeInfos.Load(t); ok {
		return info.(*typeInfo)
	}
	info := &typeInfo{needs: needsCopy(t), shared: shared(t), owned: harnessOwned(t)}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if needsCopy(t.Field(i).Type) {
				info.fields = append(info.fields, i)
			}
		}
	case reflect.Slice:
		info.elemNeeds = needsCopy(t.Elem())
	}
	v, _ := typeInfos.LoadOrStore(t, info)
	return v.(*typeInfo)
}

// needsCopy reports whether a value of type t may hold a reference, so that
// Go's own copy of it would still share memory. Cached per type.
func needsCopy(t reflect.Type) bool {
	if v, ok := needsCopyCache.Load(t); ok {
		return v.(bool)
	}
	needsCopyCache.Store(t, true) // a type that refers to itself refers to something
	n := needsCopyOf(t)
	needsCopyCache.Store(t, n)
	return n
}

var needsCopyCache sync.Map // reflect.Type → bool

func needsCopyOf(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return t.Len() > 0 && needsCopy(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if needsCopy(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return true
	}
	return false
}

var errorType = reflect.TypeFor[error]()

// shared reports whether values of type t travel as they are: the
// standard library's errors, which nobody can change and whose identity
// errors.Is compares.
func shared(t reflect.Type) bool {
	if t.Kind() != reflect.Pointer || !t.Implements(errorType) {
		return false
	}
	p := t.Elem().PkgPath()
	first, _, _ := strings.Cut(p, "/")
	return p != "" && !strings.Contains(first, ".") && !strings.HasPrefix(p, modulePrefix)
}

// harnessOwned reports whether t is one of the harness's own working
// values (a Proc, a Queue, a Client, the world itself), which keep their
// insides to themselves: a struct of a harness package with an unexported
// field. Such a value is not data, and cannot travel.
func harnessOwned(t reflect.Type) bool {
	p := t.PkgPath()
	if t.Kind() != reflect.Struct || !strings.HasPrefix(p, modulePrefix+"internal/harness/") || strings.HasSuffix(p, "_test") {
		return false
	}
	for i := range t.NumField() {
		if !t.Field(i).IsExported() {
			return true
		}
	}
	return false
}

// modulePrefix is the workbook's own packages: not the standard library.
var modulePrefix = strings.SplitN(reflect.TypeFor[World]().PkgPath(), "/", 2)[0] + "/"
