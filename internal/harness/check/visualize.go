package check

import (
	"io"
	"onehistory/internal/harness/sim"

	"github.com/anishathalye/porcupine"
)

// DrawHTML draws the checked history as porcupine's HTML visualization
// (one row per client, one panel per key, the longest orders found, the
// operations that could not be placed) into w. Each fault becomes an
// annotation on a "faults" row, and a violation an annotation on a "checker"
// row. It returns the error from writing to w.
//
// A history with a violation is drawn trimmed to the failing key and
// window (Trimmed): the operations on the key of the violation's decisive
// operation called no later than the violation, and the faults begun by
// then.
//
// Drawing is all check does: it never touches a disk, so the code of a
// chapter, which may use check, has no way through it to the machine's
// files. A suite writes the drawing where a learner opens it
// (the chapter runner, through suite.WriteDrawing).
func (l *Linearization) DrawHTML(w io.Writer, faults []Fault) error {
	d := l.Trimmed()
	if d != l {
		var early []Fault
		for _, f := range faults {
			if f.Start <= l.Violation.At {
				early = append(early, f)
			}
		}
		faults = early
	}
	info := d.info // a copy: annotations are added to this drawing only
	info.AddAnnotations(d.annotations(faults))
	return porcupine.Visualize(d.model, info, w)
}

// Trimmed is the linearization of the failing key's history up to the
// violation: the operations on the key of its decisive operation, called no
// later than the violation's instant, checked again (keys are checked each
// on its own, so the key's verdict is the same); or of the key's whole
// history, should that window alone be explained; or l itself, with no
// violation to trim to.
func (l *Linearization) Trimmed() *Linearization {
	v := l.Violation
	if v == nil || len(v.Ops) == 0 || int(v.Ops[0]) >= len(l.ops) {
		return l
	}
	key, end := l.ops[v.Ops[0]].Input.Key, v.At
	window := func(op Operation) bool { return op.Input.Key == key && op.Call <= end }
	if t := linearizeOps(l.ops, window, 0, true); !t.OK() {
		return t
	}
	if t := linearizeOps(l.ops, func(op Operation) bool { return op.Input.Key == key }, 0, true); !t.OK() {
		return t
	}
	return l
}

// annotations are the faults, on their own row, and the violation, if any.
func (l *Linearization) annotations(faults []Fault) []porcupine.Annotation {
	var out []porcupine.Annotation
	for _, f := range faults {
		out = append(out, porcupine.Annotation{
			Tag:             "faults",
			Start:           l.stamps.of(f.Start, 0),
			End:             l.stamps.of(f.Last(), 0),
			Description:     f.Desc,
			Details:         f.String(),
			BackgroundColor: faultColor(f.Kind),
		})
	}
	if v := l.Violation; v != nil {
		a := porcupine.Annotation{
			Tag:             "checker",
			Start:           l.stamps.of(v.At, 0),
			End:             l.stamps.of(v.At, 0),
			Description:     v.Name,
			Details:         v.Story,
			BackgroundColor: "#ff8a80",
		}
		if len(v.Ops) > 0 {
			a.Start = l.stamps.of(l.ops[v.Ops[0]].Call, l.ops[v.Ops[0]].callSeq)
		}
		out = append(out, a)
	}
	return out
}

// faultColor is the background porcupine's view gives a fault: the colour
// of its kind's shade (sim.FaultKind.Shade), lighter than the failure's
// picture gives it, behind porcupine's own boxes.
func faultColor(kind sim.FaultKind) string {
	switch kind.Shade() {
	case "crash":
		return "#f8bbd0"
	case "cut":
		return "#ffe0b2"
	case "slow":
		return "#e1f5fe"
	case "skew":
		return "#ede7f6"
	case "pause":
		return "#e8f5e9"
	}
	return "#eeeeee"
}
