package main

import (
	"slices"
	"testing"
)

// The suites' timelines fit the grader's terminal unless COLUMNS already
// says how wide it is; --wide asks for lanes as wide as their longest line.
func TestTimelineEnv(t *testing.T) {
	base := []string{"HOME=/h"}
	if got := timelineEnv(base, false, 132); !slices.Equal(got, []string{"HOME=/h", "COLUMNS=132"}) {
		t.Errorf("a terminal 132 wide: %v", got)
	}
	if got := timelineEnv(base, false, 0); !slices.Equal(got, base) {
		t.Errorf("no terminal: %v", got)
	}
	if got := timelineEnv([]string{"COLUMNS=90"}, false, 132); !slices.Equal(got, []string{"COLUMNS=90"}) {
		t.Errorf("COLUMNS given: %v", got)
	}
	if got := timelineEnv(base, true, 132); !slices.Equal(got, []string{"HOME=/h", "ONEHISTORY_TIMELINE=wide"}) {
		t.Errorf("--wide: %v", got)
	}
}
