package gradebook

import (
	"encoding/csv"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
)

// Markdown writes the table as GitHub-flavoured Markdown: a heading, the
// table (a row per student: total, each chapter, each clause), and the
// first failure of each chapter that does not pass.
func (b *Book) Markdown(w io.Writer) error {
	p := &printer{w: w}
	p.printf("## One History gradebook: %s\n\n", b.caption())
	for _, k := range b.Clauses {
		p.printf("- clause %d: %s\n", k.Number, k.Title)
	}
	if len(b.Clauses) > 0 {
		p.printf("\n")
	}
	head := []string{"student", "points"}
	if b.HasBonus() {
		head = append(head, "bonus")
	}
	for _, ch := range b.Chapters {
		head = append(head, fmt.Sprintf("%s (%d)", ch.ID, ch.Max))
	}
	for _, k := range b.Clauses {
		head = append(head, fmt.Sprintf("clause %d", k.Number))
	}
	p.row(head)
	rule := make([]string, len(head))
	for i := range rule {
		rule[i] = "---"
		if i > 0 {
			rule[i] = "--:"
		}
	}
	p.row(rule)
	for _, s := range b.Students {
		if s.Problem != "" {
			cells := []string{s.Name, "unread: " + s.Problem}
			for range len(head) - 2 {
				cells = append(cells, "")
			}
			p.row(cells)
			continue
		}
		cells := []string{s.Name, Score{s.Points, s.Max}.Text()}
		if b.HasBonus() {
			cells = append(cells, orDash(s.BonusText()))
		}
		for _, ch := range b.Chapters {
			cells = append(cells, orDash(s.Cells[ch.ID].Text()))
		}
		for _, k := range b.Clauses {
			cells = append(cells, orDash(s.Clauses[k.Number].Text()))
		}
		p.row(cells)
	}
	if failing := b.Failing(); len(failing) > 0 {
		p.printf("\n### First failures\n\n")
		p.row([]string{"student", "chapter", "status", "first failure or problem"})
		p.row([]string{"---", "---", "---", "---"})
		for _, f := range failing {
			p.row([]string{f.Student, f.Chapter, f.Status, f.First})
		}
	}
	return p.err
}

// caption is the table's one-line description: how many students and
// chapters, and the course commit that graded them, or how many did.
func (b *Book) caption() string {
	s := plural(len(b.Students), "student") + ", " + plural(len(b.Chapters), "chapter")
	switch known := nonEmpty(b.Courses); {
	case len(known) == 1 && len(b.Courses) == 1:
		s += ", graded with course commit " + short(known[0])
	case len(known) > 1:
		s += fmt.Sprintf(", graded with %d different course commits", len(known))
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func short(commit string) string { return commit[:min(len(commit), 12)] }

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// printer writes Markdown, remembering the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// row writes one table row; a cell's own | and line breaks cannot break it.
func (p *printer) row(cells []string) {
	esc := make([]string, len(cells))
	for i, c := range cells {
		esc[i] = strings.ReplaceAll(strings.ReplaceAll(c, "|", `\|`), "\n", " ")
	}
	p.printf("| %s |\n", strings.Join(esc, " | "))
}

// CSV writes the table as CSV, a row per student: name, repository, commit,
// course commit, time, points and max (the core chapters'), bonus and bonus
// max when some report graded a bonus chapter, then each chapter's points, each
// clause's points, and each chapter's status and first failure. A spreadsheet
// reads it as it is.
func (b *Book) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"student", "repository", "commit", "course_commit", "time", "points", "max"}
	if b.HasBonus() {
		head = append(head, "bonus", "bonus max")
	}
	for _, ch := range b.Chapters {
		head = append(head, ch.ID)
	}
	for _, k := range b.Clauses {
		head = append(head, fmt.Sprintf("clause %d", k.Number), fmt.Sprintf("clause %d max", k.Number))
	}
	for _, ch := range b.Chapters {
		head = append(head, ch.ID+" status", ch.ID+" first failure")
	}
	head = append(head, "problem")
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, s := range b.Students {
		row := []string{s.Name, s.Repository, s.Commit, s.Course, s.Time, "", ""}
		if s.Problem == "" {
			row[5], row[6] = strconv.Itoa(s.Points), strconv.Itoa(s.Max)
		}
		if b.HasBonus() {
			ok := s.Bonus != nil
			var bonus Score
			if ok {
				bonus = *s.Bonus
			}
			row = append(row, number(ok, bonus.Points), number(ok, bonus.Max))
		}
		for _, ch := range b.Chapters {
			row = append(row, number(s.Cells[ch.ID].Status != "", s.Cells[ch.ID].Points))
		}
		for _, k := range b.Clauses {
			t, ok := s.Clauses[k.Number]
			row = append(row, number(ok, t.Points), number(ok, t.Max))
		}
		for _, ch := range b.Chapters {
			row = append(row, s.Cells[ch.ID].Status, s.Cells[ch.ID].First)
		}
		row = append(row, s.Problem)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func number(ok bool, n int) string {
	if !ok {
		return ""
	}
	return strconv.Itoa(n)
}

// HTML writes the table as one HTML page that needs nothing else: no
// script, no style sheet, no font from the network. A cell's colour says
// its status, and its first failure shows beneath the table and on hover.
func (b *Book) HTML(w io.Writer) error {
	return page.Execute(w, struct {
		*Book
		Caption string
		Failing []Failing
	}{b, b.caption(), b.Failing()})
}

var page = template.Must(template.New("gradebook").Funcs(template.FuncMap{
	"cell":   func(s Student, id string) Cell { return s.Cells[id] },
	"clause": func(s Student, n int) Score { return s.Clauses[n] },
	"total":  func(s Student) Score { return Score{s.Points, s.Max} },
	"dash":   orDash,
	"whose":  func(s Student) string { return strings.TrimSpace(s.Repository + " " + s.Commit) },
	"span": func(b *Book) int {
		n := len(b.Chapters) + len(b.Clauses) + 1
		if b.HasBonus() {
			n++
		}
		return n
	},
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>One History gradebook</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1d2330; }
h1 { font-size: 1.3em; margin: 0 0 .2em; }
p.caption { margin: 0 0 1em; color: #555; }
table { border-collapse: collapse; margin-bottom: 1.5em; }
th, td { border: 1px solid #d4d8e0; padding: .3em .6em; text-align: right; white-space: nowrap; }
th { background: #f1f3f7; position: sticky; top: 0; }
td.name, th.name, td.first { text-align: left; }
td.first { white-space: normal; max-width: 60em; }
td.pass { background: #dff3e2; }
td.fail { background: #fde2d6; }
td.error, td.timeout, td.unread { background: #f7d4dc; }
td.unread { text-align: left; }
td.not-started { background: #eceef2; color: #666; }
ul.clauses { margin: 0 0 1em; padding-left: 1.2em; color: #333; }
</style>
</head>
<body>
<h1>One History gradebook</h1>
<p class="caption">{{.Caption}}</p>
{{with .Clauses}}<ul class="clauses">{{range .}}<li>clause {{.Number}}: {{.Title}}</li>{{end}}</ul>{{end}}
<table>
<thead><tr><th class="name">student</th><th>points</th>{{if .HasBonus}}<th title="the bonus chapters, scored apart from the core">bonus</th>{{end}}{{range .Chapters}}<th title="{{.Title}}">{{.ID}} ({{.Max}})</th>{{end}}{{range .Clauses}}<th title="{{.Title}}">clause {{.Number}}</th>{{end}}</tr></thead>
<tbody>
{{- $b := .Book}}
{{- range $s := .Students}}
<tr><td class="name"{{with whose $s}} title="{{.}}"{{end}}>{{$s.Name}}</td>
{{- if $s.Problem}}<td class="unread" colspan="{{span $b}}">unread: {{$s.Problem}}</td>
{{- else}}<td>{{(total $s).Text}}</td>
{{- if $b.HasBonus}}<td>{{dash $s.BonusText}}</td>{{end}}
{{- range $b.Chapters}}{{$c := cell $s .ID}}<td class="{{$c.Status}}"{{with $c.First}} title="{{.}}"{{end}}>{{dash $c.Text}}</td>{{end}}
{{- range $b.Clauses}}<td>{{dash (clause $s .Number).Text}}</td>{{end}}
{{- end}}</tr>
{{- end}}
</tbody>
</table>
{{with .Failing}}<h2>First failures</h2>
<table>
<thead><tr><th class="name">student</th><th class="name">chapter</th><th class="name">status</th><th class="name">first failure or problem</th></tr></thead>
<tbody>
{{- range .}}
<tr><td class="name">{{.Student}}</td><td class="name">{{.Chapter}}</td><td class="{{.Status}} name">{{.Status}}</td><td class="first">{{.First}}</td></tr>
{{- end}}
</tbody>
</table>{{end}}
</body>
</html>
`))
