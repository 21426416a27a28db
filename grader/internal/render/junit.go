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
// check a testcase; points ride along as properties.
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
		for _, c := range ch.Checks {
			tc := junitCase{Name: c.Name, Classname: ch.ID, Time: secs(c.Duration.Seconds())}
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
				tc.Failure = &junitProblem{Message: msg, Type: c.Failure.Name, Text: c.Failure.Text()}
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
