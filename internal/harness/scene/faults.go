package scene

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"onehistory/internal/harness/sim"
)

// A Fault is one thing that goes wrong in a scene, declared as a value: it
// schedules itself in the world and describes itself from the same fields,
// so that what a story or a page says about a fault is what was built.
type Fault interface {
	// String describes the fault: "slow link server-1 ↔ server-2 (380–400ms)
	// from 1000ms for 500ms".
	String() string
	// inject schedules the fault in s's world.
	inject(s *Scene)
}

// Inject schedules faults in the world; each is recorded in the world's
// fault list when it begins, for the timeline, the vacuous-run guard and the
// porcupine view.
func (s *Scene) Inject(faults ...Fault) {
	for _, f := range faults {
		f.inject(s)
		s.declared = append(s.declared, f)
	}
}

// Declared lists the faults injected, in the order they were declared.
func (s *Scene) Declared() []Fault { return append([]Fault(nil), s.declared...) }

// DeclaredOf lists the faults of type F injected, in the order they were
// declared: scene.DeclaredOf[scene.Crash](s).
func DeclaredOf[F Fault](s *Scene) []F {
	var out []F
	for _, f := range s.declared {
		if f, ok := f.(F); ok {
			out = append(out, f)
		}
	}
	return out
}

// Describe lists the declared faults, one a line.
func (s *Scene) Describe() string {
	lines := make([]string, len(s.declared))
	for i, f := range s.declared {
		lines[i] = "  " + f.String()
	}
	return strings.Join(lines, "\n")
}

// SlowLink slows the links between A and B, both ways, to Link from From
// for For, then puts back Normal (the scene's default latency if zero). It
// composes with the other faults on the same link (see Cut): a spell that
// begins or ends while the link is cut leaves it cut.
type SlowLink struct {
	A, B      sim.NodeID
	Link      sim.Link
	From, For time.Duration
	Normal    sim.Link // the link before and after; zero: the world's default
}

func (f SlowLink) desc() string {
	return fmt.Sprintf("slow link %s ↔ %s (%s)", f.A, f.B, describeLink(f.Link))
}

func (f SlowLink) String() string {
	return f.desc() + " from " + millis(f.From) + " for " + millis(f.For)
}

func (f SlowLink) inject(s *Scene) {
	s.slow(sim.Fault{Kind: sim.FaultSlow, Desc: f.desc(), Nodes: []sim.NodeID{f.A, f.B}, Start: f.From, End: f.From + f.For},
		f.Link, f.Normal, bothWays(f.A, f.B)...)
}

// slow puts link in force on each way given for the span of fault, which it
// records, then puts back normal (the world's default link if zero).
func (s *Scene) slow(fault sim.Fault, link, normal sim.Link, ways ...[2]sim.NodeID) {
	spell := &linkSpell{link: link}
	if normal != (sim.Link{}) {
		spell.after = &normal
	}
	s.cast(spell, fault, ways...)
}

// cast puts spell in force on each way given for the span of fault, which
// it records as the spell begins. A spell composes with the other spells
// on the same way (see Cut).
func (s *Scene) cast(spell *linkSpell, fault sim.Fault, ways ...[2]sim.NodeID) {
	s.W.At(fault.Start, func() {
		s.beginSpell(spell, ways...)
		s.W.Fault(fault)
	})
	s.W.At(fault.End, func() { s.endSpell(spell, ways...) })
}

// A linkSpell is one fault in force on a link: a SlowLink's or a
// SlowOneWay's spell (link) or a Cut (cut), and the link it puts back when
// it ends (after; nil: the world's default).
type linkSpell struct {
	link  sim.Link
	cut   bool
	after *sim.Link
}

// linkFaults are the spells in force on one way of a link, in the order they
// began, and the link the last one to end put back.
type linkFaults struct {
	spells []*linkSpell
	after  *sim.Link
}

// bothWays are the two ways of the link between a and b.
func bothWays(a, b sim.NodeID) [][2]sim.NodeID { return [][2]sim.NodeID{{a, b}, {b, a}} }

// beginSpell puts spell in force on each way (from, to) given.
func (s *Scene) beginSpell(spell *linkSpell, ways ...[2]sim.NodeID) {
	for _, way := range ways {
		lf := s.linkFaults(way)
		lf.spells = append(lf.spells, spell)
		s.setLink(way, lf)
	}
}

// endSpell ends spell on each way given.
func (s *Scene) endSpell(spell *linkSpell, ways ...[2]sim.NodeID) {
	for _, way := range ways {
		lf := s.linkFaults(way)
		lf.spells = slices.DeleteFunc(lf.spells, func(x *linkSpell) bool { return x == spell })
		lf.after = spell.after
		s.setLink(way, lf)
	}
}

// linkFaults is the spells of one way of a link.
func (s *Scene) linkFaults(way [2]sim.NodeID) *linkFaults {
	if s.links == nil {
		s.links = map[[2]sim.NodeID]*linkFaults{}
	}
	if s.links[way] == nil {
		s.links[way] = &linkFaults{}
	}
	return s.links[way]
}

// setLink derives one way of a link from every spell in force on it, so
// that faults compose whatever order they begin and end in: cut while any
// cut lasts; else the link of the spell that began last; else, once none is
// left, what the last to end put back.
func (s *Scene) setLink(way [2]sim.NodeID, lf *linkFaults) {
	from, to := way[0], way[1]
	switch {
	case slices.ContainsFunc(lf.spells, func(x *linkSpell) bool { return x.cut }):
		s.W.SetLink(from, to, sim.Link{Drop: 1})
	case len(lf.spells) > 0:
		s.W.SetLink(from, to, lf.spells[len(lf.spells)-1].link)
	case lf.after != nil:
		s.W.SetLink(from, to, *lf.after)
	default:
		s.W.ResetLink(from, to)
	}
}

// Partition splits the network into Groups from From for For (zero: until
// the run ends); nodes named in no group form one more group together. Heal
// ends every partition at once, so partitions in one scene must not overlap.
type Partition struct {
	Groups    [][]sim.NodeID
	From, For time.Duration
}

func (f Partition) String() string {
	parts := make([]string, len(f.Groups))
	for i, g := range f.Groups {
		names := make([]string, len(g))
		for j, id := range g {
			names[j] = string(id)
		}
		parts[i] = strings.Join(names, " ")
	}
	return spanned("partition "+strings.Join(parts, " | ")+" | the rest", f.From, f.For)
}

// spanned is what a fault does, then when: "from 500ms for 30ms", or only
// "from 500ms" for a fault that lasts to the end of the world (span 0).
func spanned(what string, from, span time.Duration) string {
	s := what + " from " + millis(from)
	if span > 0 {
		s += " for " + millis(span)
	}
	return s
}

func (f Partition) inject(s *Scene) {
	w := s.W
	w.At(f.From, func() { w.Partition(f.Groups...) })
	if f.For > 0 {
		w.At(f.From+f.For, func() { w.Heal() })
	}
}

// Crash stops Node at At, its memory gone and what it synced kept, and
// restarts it For later (zero: it stays down).
type Crash struct {
	Node    sim.NodeID
	At, For time.Duration
}

func (f Crash) String() string {
	if f.For == 0 {
		return fmt.Sprintf("crash %s at %s", f.Node, millis(f.At))
	}
	return fmt.Sprintf("crash %s at %s, restart %s later", f.Node, millis(f.At), millis(f.For))
}

func (f Crash) inject(s *Scene) {
	w := s.W
	w.At(f.At, func() {
		if w.Up(f.Node) {
			w.Crash(f.Node)
		}
	})
	if f.For > 0 {
		w.At(f.At+f.For, func() {
			if !w.Up(f.Node) {
				w.Restart(f.Node)
			}
		})
	}
}

// Skew sets Node's clock By ahead (negative: behind) of virtual time from
// From on: what p.Clock() reads there, not when things happen.
type Skew struct {
	Node sim.NodeID
	By   time.Duration
	From time.Duration
}

func (f Skew) String() string {
	return fmt.Sprintf("clock of %s skewed by %s from %s", f.Node, signed(f.By), millis(f.From))
}

func (f Skew) inject(s *Scene) {
	w := s.W
	w.At(f.From, func() {
		w.SetSkew(f.Node, f.By)
		w.Fault(sim.Fault{Kind: sim.FaultSkew, Desc: fmt.Sprintf("clock of %s skewed by %s", f.Node, signed(f.By)), Nodes: []sim.NodeID{f.Node}, Start: f.From, End: f.From})
	})
}

// describeLink is "380–400ms", with loss and duplication if any.
func describeLink(l sim.Link) string {
	s := millis(l.Min)
	if l.Max != l.Min {
		s = strings.TrimSuffix(s, "ms") + "–" + millis(l.Max)
	}
	if l.Drop > 0 {
		s += fmt.Sprintf(", %g%% lost", 100*l.Drop)
	}
	if l.Duplicate > 0 {
		s += fmt.Sprintf(", %g%% duplicated", 100*l.Duplicate)
	}
	if l.Tail > 0 {
		s += fmt.Sprintf(", %g%% up to %s", 100*l.Tail, millis(l.TailMax))
	}
	return s
}

// millis prints a duration as the workbook prints every time: "400ms",
// "1234.5ms".
func millis(d time.Duration) string { return sim.FormatTime(d) }

func signed(d time.Duration) string {
	if d < 0 {
		return "-" + millis(-d)
	}
	return "+" + millis(d)
}

// SlowDisk makes every Sync on Node's disk take Sync from From on, for For
// (0: to the end of the world), instead of the world's sync latency: a disk
// that is slow next to the others, as a follower's may be. With Upto above
// Sync, each Sync takes its own latency, drawn in [Sync, Upto]: a disk
// that is slow by turns, as a busy one is. Several SlowDisks on one node
// make its disk slow over time, episode by episode; they must not overlap
// (the end of one puts back the world's latency).
type SlowDisk struct {
	Node sim.NodeID
	Sync time.Duration
	Upto time.Duration // the longest a Sync takes; 0 or Sync: every Sync takes Sync
	From time.Duration
	For  time.Duration
}

func (f SlowDisk) String() string {
	span := millis(f.Sync)
	if f.Upto > f.Sync {
		span = strings.TrimSuffix(span, "ms") + "–" + millis(f.Upto)
	}
	return spanned(fmt.Sprintf("disk of %s syncing in %s", f.Node, span), f.From, f.For)
}

func (f SlowDisk) inject(s *Scene) {
	w := s.W
	w.At(f.From, func() {
		if f.Upto > f.Sync {
			w.SetDiskSyncLatencies(f.Node, f.Sync, f.Upto)
		} else {
			w.SetDiskSyncLatency(f.Node, f.Sync)
		}
	})
	if f.For > 0 {
		w.At(f.From+f.For, func() { w.SetDiskSyncLatency(f.Node, 0) })
	}
}

// Pause freezes Node from From for For (zero: to the end of the world), its
// memory kept: messages to it queue and its timers fire late, at the resume
// (a long garbage collection, a stopped virtual machine; see sim.World.Pause).
// A paused node is not a crashed one: it wakes still believing what it
// believed.
type Pause struct {
	Node      sim.NodeID
	From, For time.Duration
}

func (f Pause) String() string {
	return spanned(fmt.Sprintf("pause %s", f.Node), f.From, f.For)
}

func (f Pause) inject(s *Scene) {
	w := s.W
	w.At(f.From, func() { w.Pause(f.Node) })
	if f.For > 0 {
		w.At(f.From+f.For, func() { w.Resume(f.Node) })
	}
}

// ClockRate makes Node's clock run at Rate (1.5: fast, 0.5: slow) from From
// on, for For (zero: to the end of the world): its Clock and its own sleeps
// and timeouts are measured at that rate (see sim.World.SetClockRate).
type ClockRate struct {
	Node      sim.NodeID
	Rate      float64
	From, For time.Duration
}

func (f ClockRate) String() string {
	return spanned(fmt.Sprintf("clock of %s running at %s×", f.Node, strconv.FormatFloat(f.Rate, 'g', -1, 64)), f.From, f.For)
}

func (f ClockRate) inject(s *Scene) {
	w := s.W
	w.At(f.From, func() { w.SetClockRate(f.Node, f.Rate) })
	if f.For > 0 {
		w.At(f.From+f.For, func() { w.SetClockRate(f.Node, 1) })
	}
}
