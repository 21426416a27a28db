package course

import "testing"

// The course lists its core chapters first and its bonus chapters after
// them, each in ID order, and Core leaves the bonus chapters out: a class
// graded on the core sees the same chapters as before any bonus existed.
func TestBonusChaptersComeAfterTheCoreAndOutsideIt(t *testing.T) {
	saved := registry
	defer func() { registry = saved }()
	registry = map[string]Chapter{}
	register(Chapter{ID: "ex12", Bonus: true})
	register(Chapter{ID: "ex02"})
	register(Chapter{ID: "ex11", Bonus: true})
	register(Chapter{ID: "ex01"})
	register(Chapter{ID: "ex13"})

	var all, core []string
	for _, c := range All() {
		all = append(all, c.ID)
	}
	for _, c := range Core() {
		core = append(core, c.ID)
	}
	if got, want := join(all), "ex01 ex02 ex13 ex11 ex12"; got != want {
		t.Errorf("All() = %s, want %s: core chapters first, bonus chapters after them", got, want)
	}
	if got, want := join(core), "ex01 ex02 ex13"; got != want {
		t.Errorf("Core() = %s, want %s", got, want)
	}
}

func join(ids []string) string {
	s := ""
	for i, id := range ids {
		if i > 0 {
			s += " "
		}
		s += id
	}
	return s
}
