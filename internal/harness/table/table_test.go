package table

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// The changes a crash lost, as ex02 tells them: at its natural width the
// table is one row a line; in a narrower report its widest column wraps,
// and every cell is still there.
func lostChanges() Table {
	return Table{Indent: "  ", Header: []string{"op", "client", "server", "change", "acknowledged"}, Rows: [][]string{
		{"#0", "kubectl", "apiserver", "create deployments/web=5", "46.9ms (rv 1)"},
		{"#1", "controller-manager", "apiserver", "create pods/web-1=deployments/web", "1026.3ms (rv 2)"},
	}}
}

func TestATableThatFitsKeepsItsNaturalWidths(t *testing.T) {
	assert.Equal(t, ""+
		"  op  client              server     change                             acknowledged\n"+
		"  #0  kubectl             apiserver  create deployments/web=5           46.9ms (rv 1)\n"+
		"  #1  controller-manager  apiserver  create pods/web-1=deployments/web  1026.3ms (rv 2)\n",
		lostChanges().Fit(0))
	assert.Equal(t, lostChanges().Fit(0), lostChanges().Fit(200))
}

func TestATableTooWideWrapsItsWidestColumns(t *testing.T) {
	// First between words, the widest column first ...
	got := lostChanges().Fit(80)
	fits(t, got, 80)
	assert.Equal(t, ""+
		"  op  client              server     change                      acknowledged\n"+
		"  #0  kubectl             apiserver  create deployments/web=5    46.9ms (rv 1)\n"+
		"  #1  controller-manager  apiserver  create                      1026.3ms (rv 2)\n"+
		"                                     pods/web-1=deployments/web\n", got)
	// ... then inside words, after a "/" or "=" where there is one; a
	// narrowed column keeps no margin its lines do not use.
	got = lostChanges().Fit(70)
	fits(t, got, 70)
	assert.Equal(t, ""+
		"  op  client              server     change             acknowledged\n"+
		"  #0  kubectl             apiserver  create             46.9ms (rv\n"+
		"                                     deployments/web=5  1)\n"+
		"  #1  controller-manager  apiserver  create             1026.3ms (rv\n"+
		"                                     pods/web-1=        2)\n"+
		"                                     deployments/web\n", got)
}

// Right-aligned columns (times, counts) never wrap, and a column of marks
// (no header) comes last.
func TestRightAlignedColumnsKeepTheirFigures(t *testing.T) {
	tb := Table{Indent: "  ", Header: []string{"accepted", "change", "pods", ""}, Right: []bool{false, false, true}, Rows: [][]string{
		{"126ms", "ADDED pods/web-mcmvz", "3"},
		{"720.4ms", "ADDED pods/web-dwd5k", "6", "← too many"},
	}}
	assert.Equal(t, ""+
		"  accepted  change                pods\n"+
		"  126ms     ADDED pods/web-mcmvz     3\n"+
		"  720.4ms   ADDED pods/web-dwd5k     6  ← too many\n", tb.Fit(0))
	assert.Equal(t, ""+
		"  accepted  change          pods\n"+
		"  126ms     ADDED              3\n"+
		"            pods/web-mcmvz\n"+
		"  720.4ms   ADDED              6  ← too many\n"+
		"            pods/web-dwd5k\n", tb.Fit(45))
}

// A table that cannot fit even with its narrowest columns is told one row
// a paragraph, each cell after its column's name.
func TestATableThatCannotFitIsToldRowByRow(t *testing.T) {
	got := lostChanges().Fit(50)
	fits(t, got, 50)
	assert.Equal(t, ""+
		"  op #0, client kubectl, server apiserver,\n"+
		"    change create deployments/web=5, acknowledged\n"+
		"    46.9ms (rv 1)\n"+
		"  op #1, client controller-manager, server\n"+
		"    apiserver, change create\n"+
		"    pods/web-1=deployments/web, acknowledged\n"+
		"    1026.3ms (rv 2)\n", got)
}

func fits(t *testing.T, text string, width int) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		assert.LessOrEqual(t, utf8.RuneCountInString(l), width, "line %q", l)
	}
}

// A table whose cells would wrap over more than two lines a row on
// average is told row by row: the requests of an outage, whose requests
// and answers are long, in a report too narrow for them.
func TestATableWrappedTooTallIsToldRowByRow(t *testing.T) {
	tb := Table{Header: []string{"sent", "client", "request", "answer"}, Rows: [][]string{
		{"2603ms", "pipeline", "LIST deployments (rv=0)", "3 items @rv=9 deployments/batch deployments/job-0 deployments/web"},
	}}
	got := tb.Fit(44)
	fits(t, got, 44)
	assert.Equal(t, ""+
		"sent 2603ms, client pipeline, request LIST\n"+
		"  deployments (rv=0), answer 3 items @rv=9\n"+
		"  deployments/batch deployments/job-0\n"+
		"  deployments/web\n", got)
}

// The servers' histories side by side, as ex07 tells them: the servers'
// columns wrap alike, each as wide as its widest line.
func TestSideBySideColumnsWrapAlike(t *testing.T) {
	tb := Table{Indent: "  ", Header: []string{"", "position", "server-1", "server-2", "server-3"}, Rows: [][]string{
		{"", "1", "rv 1 deployments/web=3", "rv 1 deployments/web=3", "rv 1 deployments/web=3"},
		{"≠", "2", "rv 2 deployments/web=5", "rv 2 deployments/web=5", "rv 2 deployments/web=2"},
	}}
	assert.Equal(t, ""+
		"     position  server-1           server-2           server-3\n"+
		"     1         rv 1               rv 1               rv 1\n"+
		"               deployments/web=3  deployments/web=3  deployments/web=3\n"+
		"  ≠  2         rv 2               rv 2               rv 2\n"+
		"               deployments/web=5  deployments/web=5  deployments/web=2\n", tb.Fit(78))
}
