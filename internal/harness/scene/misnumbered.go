package scene

import (
	"fmt"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/suite"
)

// MisnumberedYes judges that every acknowledged write other than a deletion
// was told the position it holds in the scene's one history (the longest
// audited one): a yes whose resourceVersion is another change's position
// told the client another write's result. A server that answers from its
// own copy once the write is settled, where a later change may already
// stand, does. Deletions are judged apart (check.StaleDelete, a lost copy).
func MisnumberedYes(s *Scene) *suite.Failure {
	final := s.Longest()
	for _, op := range s.History.Operations() {
		if !op.Acknowledged() || op.Input.Kind == check.KindDelete || op.Result.Version < 1 || op.Result.Version > int64(len(final)) {
			continue
		}
		c := final[op.Result.Version-1]
		if !c.Deleted && c.Key == op.Input.Key && fmt.Sprint(c.Value) == fmt.Sprint(op.Input.Value) {
			continue
		}
		held := "does not hold that write"
		for _, d := range final {
			if !d.Deleted && d.Key == op.Input.Key && fmt.Sprint(d.Value) == fmt.Sprint(op.Input.Value) {
				held = fmt.Sprintf("holds that write at rv %d", d.Version)
			}
		}
		at := fmt.Sprintf("%s=%v", c.Key, c.Value)
		if c.Deleted {
			at = "the deletion of " + c.Key
		}
		story := fmt.Sprintf("%s answered %s's %s (sent at %s) with rv %d at %s, but the one history %s, and at rv %d %s: "+
			"the answer told the client another change's result. A server answers a write with the change as it was decided, "+
			"not with what its own copy holds by the time the answer comes, where a later change may already stand",
			op.Server, op.Client, op.Input, suite.FormatTime(op.Call), op.Result.Version, suite.FormatTime(op.Return),
			held, op.Result.Version, at)
		return &suite.Failure{Name: "misnumbered-yes", Clause: course.OneHistory, At: op.Return, Story: story,
			Ops: []check.OpID{op.ID}, Details: op.String()}
	}
	return nil
}
