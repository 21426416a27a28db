package sim

import "math/rand"

// DiskTearsAtEdges makes a crash that keeps part of a file's unsynced bytes
// keep, half of the time, only its first few bytes (1 to 16) or all but its
// last few, instead of a prefix of any length. A reader's mistakes about
// where a record ends sit at those edges: a torn tail shorter than a
// record's header, a record one byte short. Without the option a prefix of
// any length is kept, each as likely, and so these come rarely.
//
// The option draws from a source of its own, seeded from the world's seed:
// every other draw of the world, and so every crash that keeps all or none
// of its unsynced bytes, is the same with it as without it.
func DiskTearsAtEdges() Option {
	return func(w *World) { w.tearEdges = rand.New(rand.NewSource(w.seed ^ 0x7ea75)) }
}

// keepOfTear draws how many of unsynced bytes (> 0) a crash keeps, given
// that it keeps a prefix: 0 to unsynced, at the edges more often with
// DiskTearsAtEdges.
func (w *World) keepOfTear(unsynced int) int {
	keep := w.rng.Intn(unsynced + 1)
	if w.tearEdges == nil || keep == 0 || keep == unsynced {
		return keep
	}
	edge := min(16, unsynced)
	switch w.tearEdges.Intn(4) {
	case 0:
		return 1 + w.tearEdges.Intn(edge) // the first few bytes
	case 1:
		return max(1, unsynced-1-w.tearEdges.Intn(edge)) // all but the last few
	}
	return keep
}

// CrashTearing crashes node id as Crash does, except that the crash tears
// where the caller says instead of where the world draws: of each file's
// unsynced bytes it keeps all but the last lose (none, when there are no
// more than lose). A scene that needs a record torn at one byte, its last
// (the newline that ends a line), asks for it by this crash; it draws
// nothing from the world's source.
func (w *World) CrashTearing(id NodeID, lose int) {
	d := w.node(id, "CrashTearing").disk
	d.lose = func(unsynced int) int { return min(lose, unsynced) }
	defer func() { d.lose = nil }()
	w.Crash(id)
}
