package render

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"onehistory/grader/internal/result"
)

// The JUnit XML elements the grader writes: the common subset that CI
// dashboards (GitHub, GitLab, Jenkins) read. Each chapter is a testsuite, each
// check a testcase named with its points ("ex01 story (4/4 points)") and
// timed as it ran; the chapter's points also ride along as properties. A
// failure's text is its story, clause, seed and replay command; its
// timeline, cut short, is the testcase's system-out.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Time       string          `xml:"time,attr"`
		Properties []junitProperty `xml:"properties>property"`
		Cases      []junitCase     `xml:"testcase"`
		SystemOut  string          `xml:"system-out,omitempty"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitProblem `xml:"failure,omitempty"`
		Error     *junitProblem `xml:"error,omitempty"`
		Skipped   *junitProblem `xml:"skipped,omitempty"`
		SystemOut *junitOut     `xml:"system-out,omitempty"`
	}
	junitOut struct {
		Text string `xml:",cdata"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",cdata"`
	}
)

// JUnit writes the report as JUnit XML. A chapter that did not compile, that
// panicked or hung marks each check it cost with an error whose text is the
// compiler's output, the panic or the timeout; a failed check carries the
// suite's story; a chapter whose stub is untouched marks its checks as failures saying so.
func JUnit(w io.Writer, rep *result.Report) error {
	out := junitSuites{Name: "onehistory " + string(rep.Source), Time: secs(rep.Duration.Seconds())}
	for _, ch := range rep.Chapters {
		s := junitSuite{
			Name: ch.ID + " " + ch.Title,
			Time: secs(ch.Duration.Seconds()),
			Properties: []junitProperty{
				{"status", string(ch.Status)},
				{"points", fmt.Sprint(ch.Points)},
				{"max", fmt.Sprint(ch.Max)},
				{"clauses", ClauseList(ch.Clauses)},
				{"replay", ch.Command},
			},
		}
		if ch.Bonus {
			// A bonus chapter says so: its points are scored apart from the core.
			s.Properties = append(s.Properties, junitProperty{"bonus", "true"})
		}
		for _, c := range ch.Checks {
			tc := junitCase{Name: caseName(ch, c), Classname: ch.ID, Time: secs(c.Duration.Seconds())}
			switch {
			case c.Status == result.Pass:
			case ch.Problem != nil && (c.Status != result.Fail):
				text := ch.Problem.Summary
				if ch.Problem.Output != "" {
					text += "\n\n" + ch.Problem.Output
				}
				tc.Error = &junitProblem{Message: ch.Problem.Summary, Type: string(ch.Problem.Kind), Text: text}
				s.Errors++
			case c.Status == result.Skip:
				tc.Skipped = &junitProblem{Message: "skipped"}
				s.Skipped++
			case c.Failure != nil:
				msg := OneLine(*c.Failure)
				if ch.Status == result.NotStarted {
					msg = "untouched (the stub as shipped): " + msg
				}
				told := *c.Failure
				told.Timeline = ""
				tc.Failure = &junitProblem{Message: msg, Type: c.Failure.Name, Text: told.Text()}
				if out := timelineOut(c.Failure.Timeline, c.Failure.Replay); out != "" {
					tc.SystemOut = &junitOut{out}
				}
				s.Failures++
			default:
				msg := "check " + string(c.Status)
				if ch.Status == result.NotStarted {
					msg = "untouched (the stub as shipped)"
				}
				tc.Failure = &junitProblem{Message: msg, Text: strings.TrimSpace(c.Output)}
				s.Failures++
			}
			s.Cases = append(s.Cases, tc)
		}
		s.Tests = len(s.Cases)
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
		out.Suites = append(out.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func secs(s float64) string { return fmt.Sprintf("%.3f", s) }

// caseName is a check's test name with its points, where every viewer shows
// them: "ex01 story (4/4 points)". A check the stub as shipped passes by
// itself says that it scores nothing yet.
func caseName(ch result.Chapter, c result.Check) string {
	if ch.Status == result.NotStarted && c.Status == result.Pass {
		return fmt.Sprintf("%s %s (0/%d points: the stub as shipped passes it)", ch.ID, c.Name, c.Max)
	}
	return fmt.Sprintf("%s %s (%d/%d points)", ch.ID, c.Name, c.Points, c.Max)
}

// junitTimelineLines is how much of a failure's timeline a JUnit report
// keeps: enough to see the failure's moment, not a class's worth of pages.
const junitTimelineLines = 30

// timelineOut is a failed check's system-out: its timeline's header and,
// of a longer one, the junitTimelineLines around its middle, where the
// suites center the failure, with the command that shows it whole.
func timelineOut(timeline, replay string) string {
	if timeline == "" {
		return ""
	}
	lines := strings.Split(strings.TrimRight(timeline, "\n"), "\n")
	if len(lines) <= junitTimelineLines+2 {
		return strings.Join(lines, "\n") + "\n"
	}
	head, body := lines[:2], lines[2:] // the lanes' names and the rule under them
	from := max(0, len(body)/2-junitTimelineLines/2)
	to := from + junitTimelineLines
	out := append([]string(nil), head...)
	if from > 0 {
		out = append(out, fmt.Sprintf("… %d lines before", from))
	}
	out = append(out, body[from:to]...)
	out = append(out, fmt.Sprintf("… %d lines after; %s shows the whole timeline", len(body)-to, replay))
	return strings.Join(out, "\n") + "\n"
}
