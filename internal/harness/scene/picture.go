package scene

import (
	"bytes"
	"io"
	"slices"
	"strings"

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
// A node the timeline leaves out that a fault hit or the failure's story
// names is a lane of the picture too, after the timeline's own, so that
// its fault is shaded on its own lane: it shows what the filter keeps of
// it, and the messages it exchanged with the other nodes drawn that way.
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
	nodes := s.W.Nodes()
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
		extra := extraLanes(nodes, lanes, faults, f.Story)
		page := picture.Page{Failure: f, Lanes: append(slices.Clone(lanes), extra...), Servers: servers, Faults: faults, Ops: named}
		for _, e := range trace.Events() {
			switch {
			case (e.Node == "" || slices.Contains(lanes, e.Node)) && keep(e):
				page.Events = append(page.Events, e)
			case slices.Contains(extra, e.Node) && (keep(e) || e.Peer != "" && slices.Contains(extra, e.Peer)):
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

// extraLanes are the nodes, in the world's order, that are not among lanes
// but that a fault touched or the story names as a word ("node-7", not the
// "node-7" inside "node-70").
func extraLanes(nodes, lanes []sim.NodeID, faults []sim.Fault, story string) []sim.NodeID {
	var out []sim.NodeID
	for _, id := range nodes {
		if slices.Contains(lanes, id) {
			continue
		}
		hit := slices.ContainsFunc(faults, func(f sim.Fault) bool { return f.Touches(id) })
		if hit || namesWord(story, string(id)) {
			out = append(out, id)
		}
	}
	return out
}

// namesWord reports whether text holds word with no letter, digit, '-' or
// '_' on either side.
func namesWord(text, word string) bool {
	part := func(c byte) bool {
		return c == '-' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	for i := 0; word != ""; {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		if (start == 0 || !part(text[start-1])) && (end == len(text) || !part(text[end])) {
			return true
		}
		i = start + 1
	}
	return false
}
