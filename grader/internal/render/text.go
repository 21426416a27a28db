package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"onehistory/grader/internal/result"
	"onehistory/internal/harness/course"
	"onehistory/internal/harness/suite"
)

// Summary writes the progress report: a line per chapter with its status and
// points, and under a chapter that is not passing, one line saying why and
// the command that shows more; then each contract clause with how many of
// its chapters pass and the points earned in them; then the score.
func Summary(w io.Writer, rep *result.Report, pal Palette) {
	titleWidth := 0
	for _, ch := range rep.Chapters {
		titleWidth = max(titleWidth, len(ch.Title))
	}
	fmt.Fprintf(w, "%s %s\n\n", pal.Bold("One History"), pal.Dim("· grading "+sourceName(rep.Source)+collectedNote(rep)+seedNote(rep)))
	if len(rep.Chapters) == 0 {
		fmt.Fprintln(w, "  No chapters are registered yet.")
	}
	bonusHead := false
	for _, ch := range rep.Chapters {
		if ch.Bonus && !bonusHead && rep.Core > 0 {
			fmt.Fprintf(w, "\n%s\n", pal.Bold("Bonus chapters (scored apart from the core)"))
			bonusHead = true
		}
		fmt.Fprintf(w, "  %-4s  %-*s  %s %s\n", ch.ID, titleWidth, ch.Title, pal.Status(ch.Status, 11), points(ch.Points, ch.Max))
		for _, line := range why(ch, rep.Source) {
			fmt.Fprintf(w, "        %s\n", line)
		}
		if len(ch.OwnTests) > 0 {
			fmt.Fprintf(w, "        %s\n", pal.Dim(ownTestsLine(ch)))
		}
	}
	if len(rep.Clauses) > 0 {
		fmt.Fprintf(w, "\n%s\n", pal.Bold("The contract, clause by clause (chapters passing, and their points)"))
		width, counts := 0, 0
		for _, c := range rep.Clauses {
			width = max(width, len(c.Clause.Title()))
			counts = max(counts, len(points(c.Passing, c.Chapters)))
		}
		for _, c := range rep.Clauses {
			fmt.Fprintf(w, "  %d  %-*s  %-*s  %s points\n", int(c.Clause), width, c.Clause.Title(), counts, points(c.Passing, c.Chapters), points(c.Points, c.Max))
		}
	}
	if rep.Core > 0 || rep.Bonus.Chapters == 0 {
		fmt.Fprintf(w, "\n%s %d/%d points · %d of %d chapters pass · %s\n",
			pal.Bold("Score"), rep.Points, rep.Max, rep.Passing, rep.Core, seconds(rep.Duration))
	}
	if b := rep.Bonus; b.Chapters > 0 {
		if rep.Core > 0 {
			fmt.Fprintf(w, "%s %d/%d points · %d of %d bonus chapters pass\n", pal.Bold("Bonus"), b.Points, b.Max, b.Passing, b.Chapters)
		} else {
			fmt.Fprintf(w, "\n%s %d/%d points · %d of %d bonus chapters pass · %s\n",
				pal.Bold("Bonus"), b.Points, b.Max, b.Passing, b.Chapters, seconds(rep.Duration))
		}
	}
	if next := nextChapter(rep); next != "" {
		fmt.Fprintf(w, "%s\n", pal.Dim("Next: make "+next+" tells "+next+"'s story in full."))
	}
}

// why is the line or two under a chapter that does not pass.
func why(ch result.Chapter, src result.Source) []string {
	switch ch.Status {
	case result.Pass:
		return nil
	case result.NotStarted:
		return []string{"start here: make " + ch.ID + " shows what goes wrong"}
	case result.Error:
		if ch.Problem.Kind == result.Compile {
			return []string{"compile error: " + ch.Problem.Summary}
		}
		return []string{ch.Problem.Summary}
	case result.Timeout:
		return []string{ch.Problem.Summary}
	}
	if ch.Failure == nil {
		return []string{"failed"}
	}
	lines := []string{OneLine(*ch.Failure)}
	if ch.Failure.Replay != "" {
		lines = append(lines, "replay: "+ch.Failure.Replay)
	}
	return lines
}

// OneLine is a failure's story on one line: "stale-read at 412ms: ...".
func OneLine(f suite.Failure) string {
	story := strings.Join(strings.Fields(f.Story), " ")
	switch {
	case f.Name != "":
		return fmt.Sprintf("%s at %s: %s", f.Name, suite.FormatTime(f.At), story)
	case f.Check != "":
		return fmt.Sprintf("check %s: %s", f.Check, story)
	}
	return story
}

// Verbose tells one chapter in full: each check with its points, then for
// each failed check the suite's whole story (the swimlane timeline, the
// visualization's path, the seed and the replay command), or what stopped
// the run.
func Verbose(w io.Writer, ch result.Chapter, pal Palette) {
	sep := " " // the folder on the title's line when both fit, else under it
	if len([]rune(ch.ID+" · "+ch.Title+" ("+ch.Dir+")")) > pal.lineWidth() {
		sep = "\n"
	}
	fmt.Fprintf(w, "%s%s%s\n", pal.Bold(ch.ID+" · "+ch.Title), sep, pal.Dim("("+ch.Dir+")"))
	var clauses []string
	for _, c := range ch.Clauses {
		clauses = append(clauses, c.String())
	}
	if len(clauses) > 0 {
		fmt.Fprintf(w, "%s\n", pal.Dim(wrap("exercises "+strings.Join(clauses, ", "), pal.lineWidth())))
	}
	fmt.Fprintln(w)
	nameWidth, titleWidth := 0, 0
	for _, c := range ch.Checks {
		nameWidth = max(nameWidth, len(c.Name))
		titleWidth = max(titleWidth, len(c.Title))
	}
	lead := 2 + 8 + nameWidth + 2 // status and name before a check's title
	if room := pal.lineWidth() - lead - 2 - len(points(ch.Max, ch.Max)); titleWidth > room && room >= 20 {
		titleWidth = room // a title too long for the terminal goes on under itself
	}
	unearned := 0
	for _, c := range ch.Checks {
		status, pts := pal.Status(c.Status, 7), points(c.Points, c.Max)
		if ch.Status == result.NotStarted && c.Status == result.Pass {
			// The stub as shipped passes this check by itself: it earns
			// nothing until the learner's own code passes it.
			status, pts = pal.Status(c.Status, 0)+"*  ", "–/"+strconv.Itoa(c.Max)
			unearned++
		}
		titleLines := []string{c.Title}
		if len(c.Title) > titleWidth {
			titleLines = strings.Split(fill(c.Title, titleWidth), "\n")
		}
		fmt.Fprintf(w, "  %s %-*s  %-*s  %s\n", status, nameWidth, c.Name, titleWidth, titleLines[0], pts)
		for _, l := range titleLines[1:] {
			fmt.Fprintf(w, "%s%s\n", strings.Repeat(" ", lead), l)
		}
	}
	if unearned > 0 {
		fmt.Fprintf(w, "  %s\n", pal.Dim("* the stub as shipped passes it by itself: it scores once your code does"))
	}

	if p := ch.Problem; p != nil {
		label := map[result.ProblemKind]string{
			result.Compile: "compile error", result.Panic: "panic", result.Hang: "timeout",
			result.NoReport: "no report", result.Setup: "could not run",
			result.Tampering: "tampering", result.Forbidden: "refused",
		}[p.Kind]
		if strings.HasPrefix(p.Summary, label+": ") {
			fmt.Fprintf(w, "\n%s%s\n", pal.Bold(label+":"), strings.TrimPrefix(p.Summary, label+":"))
		} else {
			fmt.Fprintf(w, "\n%s %s\n", pal.Bold(label+":"), p.Summary)
		}
		if out := p.Output; out != "" && out != p.Summary {
			if p.Kind == result.Forbidden && p.Rule != "" {
				out = WrapLines(out, RefusalWidth) // the rules' prose, not a compiler's or a stack's lines
			}
			fmt.Fprintf(w, "\n%s", indent(firstLines(out, 40), "  "))
		}
	}
	told := false // the first failure is told in full, the others in a line
	for _, c := range ch.Checks {
		if c.Status != result.Fail {
			continue
		}
		fmt.Fprintf(w, "\n%s\n", pal.Bold(wrap("── "+c.Name+": "+c.Title, pal.lineWidth())))
		switch {
		case c.Failure != nil && !told:
			text := c.Failure.Text()
			if tl := strings.TrimRight(c.Failure.Timeline, "\n"); tl != "" {
				if legend := Legend(tl); legend != "" {
					text = strings.Replace(text, tl+"\n", tl+"\n"+pal.Dim(legend)+"\n", 1)
				}
			}
			first, rest, _ := strings.Cut(text, "\n")
			head, body, _ := strings.Cut(rest, "\n\n") // the contract and replay lines; then details and timeline
			if body != "" {
				body = "\n" + body
			}
			fmt.Fprintf(w, "%s%s%s", indent(wrap(first, min(100, pal.lineWidth()-StoryIndent)), storyIndent),
				indent(fitLines(head, pal.lineWidth()-StoryIndent), storyIndent), indent(fitLines(body, pal.lineWidth()-StoryIndent), storyIndent))
			if n := len(c.Failures) - 1; n > 0 {
				fmt.Fprintf(w, "  %s\n", pal.Dim(fmt.Sprintf("(and %d more failure(s) in this check)", n)))
			}
		case c.Failure != nil:
			fmt.Fprintf(w, "%s", indent(wrap(OneLine(*c.Failure), min(100, pal.lineWidth()-StoryIndent)), storyIndent))
			fmt.Fprintf(w, "  %s\n", pal.Dim("replay: "+c.Failure.Replay))
			if c.Failure.HTML != "" {
				// A long path goes on under its label rather than past
				// the terminal's edge.
				for _, l := range strings.Split(wrap("history visualization: "+c.Failure.HTML, pal.lineWidth()-StoryIndent), "\n") {
					fmt.Fprintf(w, "  %s\n", pal.Dim(l))
				}
			}
		default:
			fmt.Fprintf(w, "%s", indent(firstLines(strings.TrimSpace(c.Output), 60), "  "))
		}
		told = true
	}
	if ch.Printed != "" {
		fmt.Fprintf(w, "\n%s\n%s", pal.Bold("── your code printed, outside any check:"), indent(firstLines(strings.TrimRight(ch.Printed, "\n"), 20), "  ┊ "))
	}
	for _, c := range ch.Checks {
		if c.Printed != "" {
			fmt.Fprintf(w, "\n%s\n%s", pal.Bold("── your code printed, in check "+c.Name+":"), indent(firstLines(strings.TrimRight(c.Printed, "\n"), 20), "  ┊ "))
		}
	}
	if ch.Cut > 0 {
		fmt.Fprintf(w, "\n%s\n", pal.Dim(fmt.Sprintf("(the test printed %d bytes more than the grader keeps; they were cut)", ch.Cut)))
	}
	if len(ch.OwnTests) > 0 {
		fmt.Fprintf(w, "\n%s\n", pal.Dim(wrap(ownTestsLine(ch)+" (they earn no points; go test ./"+ch.Dir+"/ runs them)", pal.lineWidth())))
	}

	fmt.Fprintf(w, "\n%s %s · %s\n", pal.Status(ch.Status, 0), points(ch.Points, ch.Max)+" points", seconds(ch.Duration))
	switch ch.Status {
	case result.Pass:
		fmt.Fprintf(w, "%s\n", pal.Dim(passedLine(ch.ID)))
	case result.Fail, result.NotStarted:
		if ch.Failure != nil && ch.Failure.Seed != 0 {
			fmt.Fprintf(w, "seed %d · replay exactly: %s\n", ch.Failure.Seed, ch.Failure.Replay)
		}
		fmt.Fprintf(w, "%s\n", pal.Dim("Stuck? go run ./grader hint "+ch.ID+" gives the next hint."))
	}
}

// ownTestsLine names the learner's own test files in a chapter's folder,
// which the grader never runs: "your test files were not run by the
// grader: store_test.go, race_test.go".
func ownTestsLine(ch result.Chapter) string {
	names := make([]string, len(ch.OwnTests))
	for i, f := range ch.OwnTests {
		names[i] = strings.TrimPrefix(f, ch.Dir+"/")
	}
	return "your test files were not run by the grader: " + strings.Join(names, ", ")
}

// points is "4/10".
func points(got, of int) string { return fmt.Sprintf("%d/%d", got, of) }

// seconds is a wall-clock duration for a person: "0.8 s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
}

func sourceName(s result.Source) string {
	switch s {
	case result.Solutions:
		return "solutions/"
	case result.Stubs:
		return "the pristine stubs"
	}
	return "exercises/"
}

// collectedNote says where the exercises came from when grader collect
// copied them in.
func collectedNote(rep *result.Report) string {
	if rep.Collected == nil {
		return ""
	}
	return " collected from " + rep.Collected.From
}

func seedNote(rep *result.Report) string {
	var parts []string
	if rep.Seed != "" {
		parts = append(parts, "SEED="+rep.Seed)
	}
	if rep.Runs != "" {
		parts = append(parts, "RUNS="+rep.Runs)
	}
	if len(parts) == 0 {
		return ""
	}
	return " with " + strings.Join(parts, " ")
}

// passedLine is the line under a chapter that passes: the next chapter
// awaits, or, under the course's last chapter, there is none.
func passedLine(id string) string {
	all := course.All()
	if len(all) > 0 && all[len(all)-1].ID == id {
		return "Every check passed, and this is the last chapter: make grade shows how the whole workbook stands."
	}
	return "Every check passed. The next chapter awaits: make grade shows them all."
}

// nextChapter is the first chapter that does not pass, in course order.
func nextChapter(rep *result.Report) string {
	if rep.Source != result.Exercises {
		return ""
	}
	for _, ch := range rep.Chapters {
		if ch.Status != result.Pass {
			return ch.ID
		}
	}
	return ""
}

// StoryIndent is how many spaces the report puts before each line of a
// failure's story and timeline: a timeline fitted to a terminal is given
// the terminal's width less this.
const StoryIndent = 2

var storyIndent = strings.Repeat(" ", StoryIndent)

// marks are the signs a timeline's cells begin with, and what each means.
var marks = []struct{ sign, meaning string }{
	{"→", "request sent"}, {"←", "request received"},
	{"⇢", "reply sent"}, {"⇠", "reply received"},
	{"✗", "lost"}, {"⌁", "gave up waiting"},
}

// Legend is the line printed under a timeline saying what the signs its
// cells begin with mean, for the signs it holds: "→ request sent · ⇠ reply
// received". It is empty for a timeline without any.
func Legend(timeline string) string {
	var parts []string
	for _, m := range marks {
		if strings.Contains(timeline, "│ "+m.sign+" ") {
			parts = append(parts, m.sign+" "+m.meaning)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, " · ")
}

// indent prefixes each line that is not blank.
func indent(s, prefix string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = prefix + l
		} else {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// wrap breaks a long line at spaces into lines of at most width runes (a
// word longer than that stands alone), the lines after the first indented
// by two spaces.
func wrap(s string, width int) string {
	words := strings.Fields(s)
	if len(words) == 0 {
		return s
	}
	var b strings.Builder
	line := words[0]
	for _, word := range words[1:] {
		if len([]rune(line))+1+len([]rune(word)) > width {
			b.WriteString(line + "\n")
			line = "  " + word
			continue
		}
		line += " " + word
	}
	b.WriteString(line)
	return b.String()
}

// fill breaks s at spaces into lines of at most width runes, with no
// indent of their own.
func fill(s string, width int) string {
	return strings.ReplaceAll(wrap(s, width), "\n  ", "\n")
}

// fitLines breaks each line of s longer than width at spaces, its
// continuations indented two more than the line itself. A timeline's lines
// (with their │) are fitted by the suite, and a table's rows (columns
// aligned by runs of spaces) lose their columns if broken: both are left
// alone.
func fitLines(s string, width int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if len([]rune(l)) <= width || strings.ContainsAny(l, "│┼") || strings.Contains(strings.TrimLeft(l, " "), "  ") {
			continue
		}
		lead := l[:len(l)-len(strings.TrimLeft(l, " "))]
		lines[i] = lead + strings.ReplaceAll(wrap(l, width-len(lead)), "\n", "\n"+lead)
	}
	return strings.Join(lines, "\n")
}

// RefusalWidth is how wide a refusal's explanation is drawn: with the
// report's indent, it fits a terminal of 80 columns.
const RefusalWidth = 76

// WrapLines wraps each line of s on its own (see wrap).
func WrapLines(s string, width int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = wrap(l, width)
	}
	return strings.Join(lines, "\n")
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-n)
}

// ClauseList is "1, 3" for a chapter's clauses.
func ClauseList(cs []course.Clause) string {
	var s []string
	for _, c := range cs {
		s = append(s, strconv.Itoa(int(c)))
	}
	return strings.Join(s, ", ")
}
