package scene

import (
	"fmt"
	"testing"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/suite"
)

// LinearizableRetold is Linearizable for a chapter that tells a
// contradiction in its own words: the failure, built as Linearizable builds
// it (its story with the Impossible sentence, its HTML view), passes through
// retell before it is reported. ex02 uses it to tell answers that fit no
// single history across a crash under its own clause (durability: the
// server before and after the crash are "two machines believing different
// histories"), with the crashes listed in the details. A nil retell reports
// the failure as Linearizable does.
func (s *Scene) LinearizableRetold(t testing.TB, retell func(f *suite.Failure)) bool {
	t.Helper()
	l := check.Linearizable(s.History, 0)
	if l.OK() {
		return true
	}
	v := l.Violation
	story := v.Story
	if why := Impossible(s.History.Operations(), v); why != "" {
		story += ". " + why
	}
	f := suite.Failure{Name: v.Name, Clause: v.Clause, Story: story, At: v.At, Details: v.Details}
	id, name := splitName(t.Name())
	if html, err := suite.WriteHTML(suite.OutputDir(), fmt.Sprintf("%s-%s-seed-%d", id, name, s.Seed), l, s.Faults); err == nil {
		f.HTML = html
	}
	if retell != nil {
		retell(&f)
	}
	s.Fail(t, f)
	return false
}
