package rules

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"onehistory/internal/harness/course"
)

// Rule is one of the world's rules: a kind of thing a chapter's code may
// not do, with the reason in the world's own terms.
type Rule string

// The rules, in the order the report explains them.
const (
	// Imports: only the packages a chapter needs, as the compiler sees them.
	Imports Rule = "imports"
	// PackageState: no package-level variable that is written after
	// initialisation or that shares what it points to.
	PackageState Rule = "package-state"
	// ForeignState: no writes to another package's variables, or to what
	// they point to, and no keeping a reference to them.
	ForeignState Rule = "foreign-state"
	// ProcessState: no process-wide settings of the standard packages.
	ProcessState Rule = "process-state"
	// WallClock: no real clock and no real timers.
	WallClock Rule = "wall-clock"
	// Goroutines: no go statements, and nothing that starts a goroutine.
	Goroutines Rule = "go-statement"
	// World: nothing beyond the node: no world, no other node's disk, no trace.
	World Rule = "world"
	// Answer: not the harness's own answer to the chapter.
	Answer Rule = "harness-answer"
	// Files: Go files only, and no compiler directives that reach around the rules.
	Files Rule = "files"
	// Unanalysable: every file the compiler would build must be analysed.
	Unanalysable Rule = "unanalysable"
)

// Rules lists every rule in the order the report explains them.
var Rules = []Rule{Imports, PackageState, ForeignState, ProcessState, WallClock, Goroutines, World, Answer, Files, Unanalysable}

// Title is the rule in a few words.
func (r Rule) Title() string {
	switch r {
	case Imports:
		return "only the packages a chapter needs"
	case PackageState:
		return "no package-level state"
	case ForeignState:
		return "no writing another package's variables"
	case ProcessState:
		return "no process-wide settings"
	case WallClock:
		return "no wall clock, no real timers"
	case Goroutines:
		return "no go statements"
	case World:
		return "nothing beyond your node"
	case Answer:
		return "not the harness's own answer"
	case Files:
		return "Go code only"
	case Unanalysable:
		return "every file analysed"
	}
	return string(r)
}

// Why says why the rule exists, in the simulated world's own terms.
func (r Rule) Why() string {
	switch r {
	case Imports:
		return "time, randomness, the disk and the network come from the simulated world; a package that reaches the real ones (files, processes, the runtime, memory below Go's types) steps outside it"
	case PackageState:
		return "every simulated node runs in one Go process, so a package-level variable is memory that every server shares and that survives their crashes; keep state in your server's struct, which only its node can reach and a crash takes with it"
	case ForeignState:
		return "another package's variables are shared by every simulated node and by the hidden suite; changing them, or keeping a reference through which they change, passes messages outside the simulated network"
	case ProcessState:
		return "a standard package's process-wide settings are shared by every simulated node and survive their crashes; make what you need (log.New) and keep it in your server's struct"
	case WallClock:
		return "the machine's clock and real timers are outside the simulated world, so a run would no longer replay from its seed; use p.Now or p.Clock for the time, p.Sleep to wait, and a sim.Queue or sim.Cond with a timeout for a timer"
	case Goroutines:
		return "a goroutine the world does not schedule runs outside virtual time and outside the seed's control; start concurrent work with p.Go(name, func(p *sim.Proc) { ... })"
	case World:
		return "your code runs on one node and gets only that node (its *sim.Proc, its disk, the network through p.Call); the world, the other nodes' disks and the trace belong to the harness"
	case Answer:
		return "the harness holds its own answer to this chapter, for the hidden suite; code that wraps or calls it earns nothing: build it yourself"
	case Files:
		return "the go command would build assembly, C or object files, and compiler directives such as go:linkname or go:embed, into the chapter, beyond what the rules can check"
	case Unanalysable:
		return "the compiler would build a file the rules could not read, so nothing it does could be checked"
	}
	return ""
}

// Finding is one place where a chapter's code breaks a rule.
type Finding struct {
	Rule    Rule
	File    string // the file, relative to the module root, slash-separated
	Line    int    // 0 when the finding is about the whole file or folder
	Column  int
	Message string // what the code does there: "the package-level variable cache is written in (*Server).apply"
}

// String is "exercises/ex04-x/server.go:12: what the code does [rule]".
func (f Finding) String() string {
	where := f.File
	if f.Line > 0 {
		where = fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return fmt.Sprintf("%s: %s [%s]", where, f.Message, f.Rule)
}

// Explain renders findings for a report: each finding on its line, then,
// once per rule broken, why the rule exists.
func Explain(findings []Finding) string {
	var b strings.Builder
	seen := map[Rule]bool{}
	for _, f := range findings {
		fmt.Fprintf(&b, "%s\n", f)
		seen[f.Rule] = true
	}
	for _, r := range Rules {
		if seen[r] {
			fmt.Fprintf(&b, "\nrule %s (%s): %s.\n", r, r.Title(), r.Why())
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// Sort orders findings by file, line and column.
func Sort(findings []Finding) {
	sort.SliceStable(findings, func(i, j int) bool {
		a, b := findings[i], findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// StdAllowed lists the standard packages a chapter's code may import: data
// structures, text, encoding, errors, time values and synchronization.
// Nothing here opens files, starts processes, exits, reads a randomness the
// seed does not decide or reaches below Go's safety: time, randomness, the
// network and the disk come from the simulated world (package sim). What
// these packages offer that does step outside the world (time.Now,
// log.SetOutput, a go statement's cousins) is refused by the other rules.
var StdAllowed = []string{
	"bufio", "bytes", "cmp", "container/heap", "container/list", "container/ring", "context",
	"encoding/base64", "encoding/binary", "encoding/hex", "encoding/json",
	"errors", "fmt", "hash", "hash/adler32", "hash/crc32", "hash/crc64", "hash/fnv",
	"io", "iter", "log", "maps", "math", "math/bits", "path", "regexp", "slices", "sort",
	"strconv", "strings", "sync", "sync/atomic", "text/tabwriter", "time",
	"unicode", "unicode/utf16", "unicode/utf8",
}

// HarnessAllowed lists the harness packages (below course.Module) every
// chapter's code may import; a chapter's registry entry may add more
// (course.Chapter.Imports).
var HarnessAllowed = []string{"internal/harness/sim", "internal/harness/kube", "internal/harness/check"}

// whyNot says why some packages are refused, for the report.
var whyNot = map[string]string{
	"os":            "it reads and writes files, starts processes and ends the process",
	"os/exec":       "it runs other programs",
	"os/signal":     "it intercepts the process's signals",
	"syscall":       "it talks to the operating system directly",
	"unsafe":        "it reaches below Go's type safety (and go:linkname into any package)",
	"plugin":        "it loads code the grader never saw",
	"reflect":       "it reaches into the harness's values",
	"runtime":       "it controls the Go runtime",
	"runtime/debug": "it controls the Go runtime and writes to open files",
	"io/ioutil":     "it reads and writes files",
	"io/fs":         "it reads files",
	"path/filepath": "it walks the file system",
	"net":           "the network comes from the simulated world",
	"math/rand":     "randomness comes from the simulated world (p.Rand), so that every failure replays from its seed",
	"math/rand/v2":  "randomness comes from the simulated world (p.Rand), so that every failure replays from its seed",
	"crypto/rand":   "randomness comes from the simulated world (p.Rand), so that every failure replays from its seed",
	"hash/maphash":  "it seeds itself from the process's own randomness, so a run would not replay from its seed",
	"testing":       "the hidden suite does the testing",
	"embed":         "a chapter's code is its Go files",
	"C":             "cgo runs C code the rules cannot check",
}

// Config is what the rules need to know of one chapter.
type Config struct {
	Chapter   string          // "ex04"
	Allowed   map[string]bool // import paths the chapter's code may import
	Forbidden map[string]bool // "import/path.Name" of the harness's own answers
}

// ForChapter is the configuration of chapter ch.
func ForChapter(ch course.Chapter) Config {
	c := Config{Chapter: ch.ID, Allowed: map[string]bool{}, Forbidden: map[string]bool{}}
	for _, p := range StdAllowed {
		c.Allowed[p] = true
	}
	for _, p := range append(append([]string{}, HarnessAllowed...), ch.Imports...) {
		c.Allowed[path.Join(course.Module, p)] = true
	}
	for _, id := range ch.Forbidden {
		c.Forbidden[path.Join(course.Module, id)] = true
	}
	return c
}

// AllowedText lists what chapter ch's code may import, for the report.
func AllowedText(ch course.Chapter) string {
	harness := append(append([]string{}, HarnessAllowed...), ch.Imports...)
	for i, p := range harness {
		harness[i] = path.Join(course.Module, p)
	}
	return "A chapter's code may import:\n  " + strings.Join(StdAllowed, " ") + "\n  " + strings.Join(harness, " ")
}
