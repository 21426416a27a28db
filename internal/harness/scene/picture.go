package scene

import (
	"bytes"
	"io"
	"slices"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/picture"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// drawing draws one failure found in a scene as a page, once the runner
// has filled in the chapter, the check and the replay command.
type drawing func(w io.Writer, f suite.Failure) error

// picture is the drawing of a failure found in this scene, as one page
// (package picture): drawn from what the terminal's timeline draws from,
// the scene's lanes and the events its filter keeps, with the faults, the
// torn disks and the operations the failure names (ops), and porcupine's
// view of the history when porcupine is set (a linearizability failure's
// Drawing).
//
// It keeps what it needs, not the scene: the picture is drawn only for
// the failure the runner reports, after the world is let go.
func (s *Scene) picture(ops []check.OpID, porcupine func(io.Writer) error) drawing {
	lanes := s.columns()
	keep := s.filter()
	trace := *s.W.Trace() // its events are never changed once recorded; the copy shares them
	faults := s.Faults
	if faults == nil {
		faults = s.W.Faults()
	}
	servers := slices.Clone(s.Servers)
	var named []check.Operation
	if len(ops) > 0 {
		all := s.History.Operations() // indexed by their IDs
		for _, id := range ops {
			if int(id) >= 0 && int(id) < len(all) {
				named = append(named, all[id])
			}
		}
	}
	return func(w io.Writer, f suite.Failure) error {
		page := picture.Page{Failure: f, Lanes: lanes, Servers: servers, Faults: faults, Ops: named}
		for _, e := range trace.Events() {
			if (e.Node == "" || slices.Contains(lanes, e.Node)) && keep(e) {
				page.Events = append(page.Events, e)
			}
			if e.Kind == sim.EvDisk && e.Disk != nil && e.Disk.Op == sim.DiskCrash {
				page.Torn = append(page.Torn, e)
			}
		}
		if porcupine != nil {
			var buf bytes.Buffer
			if porcupine(&buf) == nil {
				page.Porcupine = buf.Bytes()
			}
		}
		return page.Write(w)
	}
}
