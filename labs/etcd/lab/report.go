package lab

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"onehistory/internal/harness/check"
)

// Write tells the report: one line per configuration, then each
// configuration's story, then the verdict.
func (r Report) Write(w io.Writer) {
	fmt.Fprintf(w, "The etcd lab: your drill against real etcd, %d runs per configuration\n\n", runsOf(r))
	for _, c := range r.Results {
		fmt.Fprintf(w, "  %-13s %-40s %s\n", c.Config.Name, c.tally(), c.mark())
	}
	for _, c := range r.Results {
		fmt.Fprintf(w, "\n%s: %s.\n", c.Config.Name, c.Config.What)
		c.story(w)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, r.verdict())
	fmt.Fprintf(w, "(%s in all)\n", r.Took.Round(100*time.Millisecond))
}

func runsOf(r Report) int {
	for _, c := range r.Results {
		return len(c.Runs)
	}
	return Runs
}

func (c ConfigResult) tally() string {
	if errs := c.LabErrors(); len(errs) > 0 {
		return fmt.Sprintf("%d of %d runs could not be carried out", len(errs), len(c.Runs))
	}
	if errs := c.DrillErrors(); len(errs) > 0 {
		return fmt.Sprintf("the drill did not run properly in %d of %d runs", len(errs), len(c.Runs))
	}
	if c.Config.Broken {
		return fmt.Sprintf("caught in %d of %d runs (needs %d)", c.Findings(), len(c.Runs), needed(len(c.Runs)))
	}
	return fmt.Sprintf("passed %d of %d runs (needs all)", len(c.Runs)-c.Findings(), len(c.Runs))
}

func (c ConfigResult) mark() string {
	switch {
	case len(c.LabErrors()) > 0:
		return "LAB ERROR"
	case len(c.DrillErrors()) > 0:
		return "DRILL ERROR"
	case c.Right():
		return "ok"
	case c.Config.Broken:
		return "SLIPPED THROUGH"
	}
	return "FALSE ALARM"
}

// story tells each run: the drill's finding, or what the drill did, and
// what the workbook's checker makes of the whole history.
func (c ConfigResult) story(w io.Writer) {
	for _, run := range c.Runs {
		fmt.Fprintf(w, "  run %d (%s): ", run.N, run.Took.Round(10*time.Millisecond))
		switch {
		case run.LabError != nil:
			fmt.Fprintf(w, "the lab could not run it: %v\n", run.LabError)
			continue
		case run.DrillError != nil:
			fmt.Fprintf(w, "your drill did not run properly: %v\n", run.DrillError)
		case run.Finding != nil:
			fmt.Fprintf(w, "your drill reported: %s\n", firstLines(run.Finding.Error(), 1))
		default:
			fmt.Fprintln(w, "your drill returned nil: \"healthy\"")
			a := run.Activity
			fmt.Fprintf(w, "    what it did: %s; writes sent %d (%d while a server was isolated); reads sent %d (%d while isolated)%s\n",
				faults(run.Faults), a.Writes, a.WritesDuringFault, a.Reads, a.ReadsDuringFault, readsTo(a.ReadsTo))
		}
		l := run.Check
		switch {
		case l == nil:
		case l.OK():
			fmt.Fprintf(w, "    the workbook's checker: one history explains all %d answers its clients got\n", l.Checked)
		case run.Finding != nil && firstLines(run.Finding.Error(), 1) == l.Violation.Name+": "+firstLines(l.Violation.Story, 1):
			fmt.Fprintf(w, "    the workbook's checker, on every request its clients made, agrees\n")
		default:
			fmt.Fprintf(w, "    the workbook's checker, on every request its clients made: %s: %s\n", l.Violation.Name, firstLines(l.Violation.Story, 1))
		}
		if run.HTML != "" && l != nil && !l.OK() {
			fmt.Fprintf(w, "    the history, drawn: %s\n", run.HTML)
		}
	}
}

func faults(fs []check.Fault) string {
	if len(fs) == 0 {
		return "no faults"
	}
	var out []string
	for _, f := range fs {
		out = append(out, f.String())
	}
	return strings.Join(out, ", ")
}

func readsTo(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	var names []string
	for s := range m {
		names = append(names, s)
	}
	slices.Sort(names)
	var out []string
	for _, s := range names {
		out = append(out, fmt.Sprintf("%s %d", s, m[s]))
	}
	return ", to " + strings.Join(out, ", ")
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// verdict is the last word: what the drill got right and wrong.
func (r Report) verdict() string {
	if errs := r.LabErrors(); len(errs) > 0 {
		return fmt.Sprintf("The lab could not finish: %v. That is the lab's fault, not your drill's.", errs[0])
	}
	if errs := r.DrillErrors(); len(errs) > 0 {
		return fmt.Sprintf("Your drill did not run properly: %v.", errs[0])
	}
	var slipped, alarms []string
	broken := 0
	for _, c := range r.Results {
		if c.Config.Broken {
			broken++
		}
		switch {
		case c.Right():
		case c.Config.Broken:
			slipped = append(slipped, c.Config.Name)
		default:
			alarms = append(alarms, c.Config.Name)
		}
	}
	switch {
	case len(slipped) == 0 && len(alarms) == 0:
		return "Your drill told every configuration apart on a real etcd: it caught the broken ones and let the correct one pass."
	case len(slipped) == broken && broken > 0 && len(alarms) == 0:
		return fmt.Sprintf("silence-mistaken-for-agreement: your drill declared every configuration healthy, and %s broken (%s). "+
			"It is ex03's drill on a real system: it passes because it never gives the servers a chance to disagree.", count(broken), strings.Join(slipped, ", "))
	}
	var parts []string
	if len(slipped) > 0 {
		parts = append(parts, fmt.Sprintf("slipped through: %s", strings.Join(slipped, ", ")))
	}
	if len(alarms) > 0 {
		parts = append(parts, fmt.Sprintf("false alarm on: %s (a correct configuration must pass every run)", strings.Join(alarms, ", ")))
	}
	return "Your drill judged some configurations wrong: " + strings.Join(parts, "; ") + "."
}

func count(n int) string {
	if n == 1 {
		return "one of them is"
	}
	return fmt.Sprintf("%d of them are", n)
}
