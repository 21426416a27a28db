package disklog

import (
	"fmt"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/suite"
)

// How a client read, as the stories name it.
const (
	LatestRead = "Latest read"
	AnyRead    = "Any read"
	LatestList = "Latest list"
	AnyList    = "Any list"
)

// A Read is one answer a client got from a read, or one item of a list's
// answer: Server answered Client's read (How) of Key with Object.
type Read struct {
	Client, Server string
	How            string // LatestRead, AnyRead, LatestList or AnyList
	Key            string
	Object         kube.Object
}

// Uncommitted judges r, answered at the virtual time at, against the disks
// of s's servers: the change that wrote what it read (at the position its
// resourceVersion names) must be committed, held by a majority of the
// servers' disks, synced. It returns nil if it is, and otherwise the
// failure read-uncommitted (clause 3), told as a story: who answered whom
// with what, which write gave that value and what became of it, how many
// disks held it, and the rule; its details show every disk around that
// position. An Any read may be stale, an earlier point of the one history,
// but not ahead of it: a value that only some copies hold is not yet part
// of the one history, another read may not see it, and a crash may take it
// back.
func (d Decoder) Uncommitted(s *scene.Scene, at time.Duration, r Read) *suite.Failure {
	obj := r.Object
	holders := d.Holders(s.W, s.Servers, obj.ResourceVersion, r.Key, false, obj.Replicas)
	majority := len(s.Servers)/2 + 1
	if len(holders) >= majority {
		return nil
	}
	held := "no server's disk held it"
	if len(holders) > 0 {
		held = fmt.Sprintf("only %d of %d servers' disks held it, synced (%s)", len(holders), len(s.Servers), strings.Join(holders, ", "))
	}
	rule := fmt.Sprintf("A %s must come from what the one history has committed, not from one machine's copy", r.How)
	if r.How == AnyRead || r.How == AnyList {
		rule = "An " + r.How + " may be stale, an earlier point of the one history, but never ahead of it: " +
			"it too must come from what the one history has committed, not from one machine's copy"
	}
	return &suite.Failure{
		Name:   "read-uncommitted",
		Clause: course.AgreementFirst,
		At:     at,
		Story: fmt.Sprintf("%s answered %s's %s of %s with replicas=%d (rv %d%s) at %s, but at that moment %s at position %d of the log; "+
			"a majority of the %d servers is %d. %s",
			r.Server, r.Client, r.How, r.Key, obj.Replicas, obj.ResourceVersion, WriteOf(s.History, r.Key, obj.Replicas), suite.FormatTime(at), held,
			obj.ResourceVersion, len(s.Servers), majority, rule),
		Details: Disks(s.W, s.Servers, obj.ResourceVersion),
	}
}

// WriteOf names the write in h that gave key the value replicas, as a
// story's aside: ", written by client-a's write deployments/web=12 through
// server-1, sent at 520ms and not answered yet". Values must be unique per
// key for this to name the one write; a value no recorded write gave says
// nothing.
func WriteOf(h *check.History, key string, replicas int) string {
	for _, op := range h.Operations() {
		if op.Input.Key != key || !op.Input.Kind.Mutates() || op.Input.Kind == check.KindDelete || fmt.Sprint(op.Input.Value) != fmt.Sprint(replicas) {
			continue
		}
		answer := "not answered yet"
		if op.Result.Outcome != check.Pending {
			answer = fmt.Sprintf("answered %s at %s", op.Result.Outcome, suite.FormatTime(op.Return))
		}
		return fmt.Sprintf(", written by %s's %s through %s, sent at %s and %s", op.Client, op.Input, op.Server, suite.FormatTime(op.Call), answer)
	}
	return ""
}
