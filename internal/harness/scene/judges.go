package scene

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/suite"
)

// The judges every chapter shares, as values: each returns the failure it
// finds in a finished scene, or nil.

// Violated turns a checker's verdict into the failure it is, or nil when
// the checker found nothing.
func Violated(v *check.Violation) *suite.Failure {
	if v == nil {
		return nil
	}
	return &suite.Failure{Name: v.Name, Clause: v.Clause, Story: v.Story, At: v.At, Details: v.Details, Ops: v.Ops}
}

// Ran judges whether the world ran to its end: a panic, a deadlock or a
// process stuck outside the world; answers the auditor could not read; or,
// if the scene has an auditor, an audit that never finished.
func Ran(s *Scene) *suite.Failure {
	if s.Err != nil {
		f := suite.RunFailure(s.Err)
		return &f
	}
	switch {
	case len(s.Problems) > 0:
		return &suite.Failure{Name: "bad-reply", Clause: course.OneHistory, At: s.W.Now(), Story: s.Problems[0],
			Details: strings.Join(s.Problems, "\n")}
	case slices.Contains(s.W.Nodes(), Auditor) && !s.Audited:
		return &suite.Failure{Name: "no-audit", At: s.W.Now(),
			Story: fmt.Sprintf("the world ended at %s before the suite could read the servers' histories", suite.FormatTime(s.W.Now()))}
	}
	return nil
}

// Linearizable checks the scene's client history with porcupine and tells
// the first contradiction: the story, with the sentence that says why no
// order explains it (Impossible), and the drawing of the history with the
// faults marked, which the runner writes for the failure it reports.
func Linearizable(s *Scene) *suite.Failure {
	l := check.Linearizable(s.History, 0)
	if l.OK() {
		return nil
	}
	v := l.Violation
	story := v.Story
	if why := Impossible(s.History.Operations(), v); why != "" {
		story += ". " + why
	}
	faults := s.Faults
	return &suite.Failure{Name: v.Name, Clause: v.Clause, Story: story, At: v.At, Details: v.Details, Ops: v.Ops,
		Drawing: func(w io.Writer) error { return l.DrawHTML(w, faults) }}
}

// OneHistory judges the audited servers' histories: prefixes of one.
func OneHistory(s *Scene) *suite.Failure { return Violated(check.OneHistory(s.Histories)) }

// OneHistoryOnce judges the audited histories as prefixes of one that hold
// each change once, the most specific cause first: a server that holds one
// change twice (it applied a repeated message as a new change, numbering it
// again, NumberedTwice) is named before the position where the histories
// part, since that double numbering is what made them part; then one write
// the histories agree on twice (AppliedTwice).
func OneHistoryOnce(s *Scene) *suite.Failure {
	if v := NumberedTwice(s.Histories); v != nil {
		return Violated(v)
	}
	if v := check.OneHistory(s.Histories); v != nil {
		return Violated(v)
	}
	return Violated(AppliedTwice(s.History, s.Longest()))
}

// Converged judges that the audited servers hold the same objects.
func Converged(s *Scene) *suite.Failure { return Violated(check.Converged(s.States, s.AuditedAt)) }

// Durable judges that every acknowledged write is in the longest audited
// history.
func Durable(s *Scene) *suite.Failure { return Violated(check.Durable(s.History, s.Longest())) }

// OnStage makes a judge of the scene a judge of a chapter's own world.
func OnStage[W World](judge func(s *Scene) *suite.Failure) Judge[W] {
	return func(w W) *suite.Failure { return judge(w.Stage()) }
}

// WithDetails makes a judge that adds details(w) below the details of every
// failure judge finds, after one blank line: a figure of the world the learner
// reads under the story (a list of notes, a table of requests). details
// returning "" adds nothing.
func WithDetails[W World](judge Judge[W], details func(w W) string) Judge[W] {
	return func(w W) *suite.Failure {
		f := judge(w)
		if f == nil {
			return nil
		}
		more := details(w)
		if more == "" {
			return f
		}
		g := *f
		if g.Details = strings.TrimRight(g.Details, "\n"); g.Details != "" {
			g.Details += "\n\n"
		}
		g.Details += more
		return &g
	}
}
