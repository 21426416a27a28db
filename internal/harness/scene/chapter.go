package scene

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/picture"
	"onehistory/internal/harness/suite"
)

// A World is one finished world of a chapter, as its judges receive it: the
// scene it played, and whatever else the chapter keeps about it (the plans
// its clients followed, what the servers held). A *Scene is a World of its
// own; a chapter that keeps more embeds one, or holds one, and says which.
type World interface {
	// Stage is the scene the world played: its seed, its history, its
	// faults and its timeline.
	Stage() *Scene
}

// Stage makes a *Scene a World by itself.
func (s *Scene) Stage() *Scene { return s }

// A Judge judges one finished world: the failure it finds there, told as a
// story, or nil when what it guards holds. A judge only reads the world. It
// needs not fill in the seed, round the time, or draw the timeline: the
// runner does, from the world's scene, before the world is let go.
type Judge[W World] func(w W) *suite.Failure

// A Build builds the world of one seed and runs it to its end.
type Build[W World] func(seed int64) W

// Chapter is a hidden suite, declared: the worlds it builds and the checks it
// judges them by. Run runs it. Each (world, seed) is built and run once
// whatever the number of checks that judge it; every check that plays it is
// judged before it is let go, and the verdicts are kept.
//
//	scene.Chapter[*run]{
//		ID:     "ex07",
//		Worlds: map[string]scene.Build[*run]{"random": randomWorld},
//		Checks: []scene.Check[*run]{{
//			Name:   "partitions",
//			Plays:  []scene.Play{{World: "random", Seeds: scene.Random(120), Guard: &scene.Guard{MinCompleted: 10, MinCovered: 0.9}}},
//			Judges: []scene.Judge[*run]{splitBrain, lostWrite, converged},
//		}},
//	}.Run(t)
type Chapter[W World] struct {
	ID     string              // the chapter: "ex07"
	Worlds map[string]Build[W] // how to build each of its worlds
	Checks []Check[W]          // its checks, each by its registry name
	// Ran is the first judge of every check: a world that could not run
	// to its end. The default is Ran, on the world's scene.
	Ran Judge[W]
}

// Check is one check of a chapter: the worlds it plays, in order, and the
// judges it asks about each, in order, the most specific cause first. The
// check fails with the first failure of the first world that has one.
type Check[W World] struct {
	Name   string // its name in the chapter's registry entry
	Plays  []Play
	Judges []Judge[W]
	// Figures are texts the check shows about the first world of its first
	// play, passing or not, for the book to quote (suite.Figure).
	Figures []Figure[W]
	// Tally, when set, decides a check that counts (ex03: a drill must
	// catch a broken cluster on 90% of the seeds) from every world it
	// plays rather than from the first that fails: it receives each play's
	// failures, seed by seed (nil where a world held), and returns the
	// failure to report, without a drawing, or nil.
	Tally func(plays [][]*suite.Failure) *suite.Failure
	// Sum judges what the check's worlds exercised between them, once
	// every one has passed; nil: no sum.
	Sum *Sum[W]
}

// Sum judges what a check's worlds exercised between them, which no one
// world need show: a probe that met no stale precondition in a hundred
// worlds proved nothing about one. Count reads what one finished world
// exercised; Judge reads the sum over every world of the check's plays,
// and the seeds they were, once each has passed. A replay (SEED), one
// world, is not tallied.
type Sum[W World] struct {
	Count func(w W) Counts
	Judge func(sum Counts, seeds []int64) *suite.Failure
}

// Counts is what worlds exercised, by name: "conflicts": 3.
type Counts map[string]int

// Play is a run of one of a chapter's worlds over seeds.
type Play struct {
	World string // the name of a world in Chapter.Worlds
	Seeds Seeds
	Guard *Guard // guards a randomized play against vacuous runs; nil: none
}

// Guard asks that a randomized play exercised what it was for: that at least
// MinCovered (0 to 1) of its worlds had a fault that met a client operation,
// with at least MinCompleted operations completed (check.Exercised). When
// the worlds fall short, it says whose failure that is: the cluster's, which
// left requests unanswered, or the test's, whose faults met an idle cluster.
// Checks that play the same world may share one *Guard: it is judged once
// a world.
type Guard struct {
	MinCompleted int
	MinCovered   float64
	// Faults picks the faults the guard counts in a world (default: all
	// of the scene's). A fault that lasts a whole run, such as a link slow
	// from start to end, meets every operation and proves nothing.
	Faults func(s *Scene) []check.Fault
}

// Figure is one figure of a check: a name the book's captures use, and its
// text, computed from a world.
type Figure[W World] struct {
	Name string
	Text func(w W) string
}

// Seeds is how many seeds a play explores, and how SEED and RUNS change it.
type Seeds struct {
	kind seedKind
	n    int
}

type seedKind int

const (
	random seedKind = iota
	story
	scenes
)

// Random is n seeds from 1 (suite.Seeds): RUNS widens it, SEED replays one.
func Random(n int) Seeds { return Seeds{random, n} }

// Story is the n seeds of a scripted scene (suite.StorySeeds): SEED replays
// one, RUNS leaves it alone.
func Story(n int) Seeds { return Seeds{story, n} }

// Scenes is the n seeds of the scripted scenes a randomized check plays
// before its random worlds (suite.SceneSeeds): with SEED set, that seed
// alone if it is one of them, and none otherwise.
func Scenes(n int) Seeds { return Seeds{scenes, n} }

// List is the seeds, as the environment has them.
func (s Seeds) List() []int64 {
	switch s.kind {
	case story:
		return suite.StorySeeds(s.n)
	case scenes:
		return suite.SceneSeeds(s.n)
	}
	return suite.Seeds(s.n)
}

// Run runs the chapter's checks as subtests of t, in the registry's order
// (suite.Run), and reports the first failure of each with its story, its
// timeline, its seed and the command that replays it.
func (c Chapter[W]) Run(t *testing.T) {
	r := newRunner(c)
	suite.RemovePictures(suite.OutputDir(), c.ID) // an earlier run's: this run writes its own
	checks := map[string]suite.CheckFunc{}
	for i := range c.Checks {
		checks[c.Checks[i].Name] = func(t *testing.T) { r.check(t, i) }
	}
	suite.Run(t, c.ID, checks)
}

// Verdict judges one world of check name as the chapter's runner would,
// without a test: the first failure, finished (seed, time, timeline), or nil.
// It is for a chapter's own tests of its judges and worlds.
func (c Chapter[W]) Verdict(name, world string, seed int64) *suite.Failure {
	r := newRunner(c)
	for i, k := range c.Checks {
		if k.Name == name {
			return r.verdicts(world, seed).fail[i]
		}
	}
	panic(fmt.Sprintf("scene: chapter %s has no check %q", c.ID, name))
}

// played is one world of a chapter, at one seed.
type played struct {
	world string
	seed  int64
}

// verdicts is what one world showed, check by check, kept once the world
// is let go.
type verdicts struct {
	fail      []*suite.Failure            // the first failure, by check
	counts    []Counts                    // by check, for the checks that sum
	exercised map[*Guard]*check.Violation // each guard's check.Exercised verdict
	figures   map[int]map[string]string   // by check, for the checks that show this world
	draw      map[*suite.Failure]drawing
}

type runner[W World] struct {
	c      Chapter[W]
	done   map[played]*verdicts
	plays  map[string]int // how many plays of the chapter's checks play each world
	firsts map[Seeds]int64
}

// newRunner is a runner of c. It keeps the verdicts of a world that more
// than one play plays, for the next to read; a world only one play plays
// is judged and let go: thousands of kept verdicts make the collector run
// more often.
func newRunner[W World](c Chapter[W]) *runner[W] {
	r := &runner[W]{c: c, done: map[played]*verdicts{}, plays: map[string]int{}, firsts: map[Seeds]int64{}}
	for _, k := range c.Checks {
		for _, p := range k.Plays {
			r.plays[p.World]++
		}
	}
	return r
}

// check runs check i: its plays in order, its guards at the end of each,
// and its tally at the end.
func (r *runner[W]) check(t *testing.T, i int) {
	k := r.c.Checks[i]
	tally := make([][]*suite.Failure, len(k.Plays))
	sum, seeds := Counts{}, []int64{}
	for p, play := range k.Plays {
		var cov check.Coverage
		list := play.Seeds.List()
		for j, seed := range list {
			v := r.verdicts(play.World, seed)
			if p == 0 && j == 0 {
				for _, fig := range k.Figures {
					suite.Figure(t, fig.Name, v.figures[i][fig.Name])
				}
			}
			if f := v.fail[i]; f != nil && k.Tally == nil {
				told := *f
				if play.Seeds.kind == random && len(list) > 1 {
					told.Details = strings.TrimPrefix(strings.TrimRight(told.Details, "\n")+"\n"+r.worldsFailed(play.World, i, list, j), "\n")
				}
				r.report(t, k, told, v.draw[f])
				return
			}
			tally[p] = append(tally[p], v.fail[i])
			if v.counts != nil {
				for name, n := range v.counts[i] {
					sum[name] += n
				}
			}
			seeds = append(seeds, seed)
			if play.Guard != nil {
				cov.Add(seed, v.exercised[play.Guard])
			}
		}
		if play.Guard != nil {
			if f := suite.Covered(&cov, play.Guard.MinCovered); f != nil {
				r.report(t, k, *f, r.redraw(k, *f, []Play{play}))
				return
			}
		}
	}
	if k.Tally != nil {
		if f := k.Tally(tally); f != nil {
			r.report(t, k, *f, r.redraw(k, *f, tallied(k.Plays, tally, f)))
		}
	}
	if k.Sum != nil && !suite.Replaying() {
		if f := k.Sum.Judge(sum, seeds); f != nil {
			r.report(t, k, *f, nil)
		}
	}
}

// worldsFailed is the line a randomized check's failure ends with: how many
// worlds it ran and how many failed, once RUNS asked for them all ("1000
// worlds, 1000 failed"); else which world failed first, where the check
// stopped. first is the failing seed's index in list.
func (r *runner[W]) worldsFailed(world string, check int, list []int64, first int) string {
	if os.Getenv("RUNS") == "" {
		return fmt.Sprintf("world %d of %d failed, and the check stopped there: RUNS=%d runs every world and counts the failures", first+1, len(list), len(list))
	}
	failed := 1
	for _, seed := range list[first+1:] {
		if r.verdicts(world, seed).fail[check] != nil {
			failed++
		}
	}
	return fmt.Sprintf("%d worlds, %d failed (the first, seed %d, is told here)", len(list), failed, list[first])
}

// report reports f, with its picture written next to the learner's other
// files: one page per failing check, named by the chapter, the check and
// the seed (suite.PictureName), its path relative to the workbook. draw is
// the picture of the world that failed; nil, for a failure no one world's
// judges found (a tally, a guard, a sum), draws the world of f's seed again.
func (r *runner[W]) report(t *testing.T, k Check[W], f suite.Failure, draw drawing) {
	t.Helper()
	if draw == nil {
		draw = r.redraw(k, f, k.Plays)
	}
	f.Chapter, f.Check = r.c.ID, k.Name
	if f.Seed == 0 {
		// A sum's failure (Check.Sum): no one world shows it, so the
		// replay is the whole check, and there is no world to draw.
		if f.Replay == "" {
			f.Replay = suite.ReplayAll(f.Chapter)
		}
		suite.Report(t, f)
		return
	}
	if f.Replay == "" {
		f.Replay = suite.Replay(f.Chapter, f.Seed)
	}
	if path, err := suite.WriteDrawing(suite.OutputDir(), suite.PictureName(r.c.ID, k.Name, f.Seed), func(w io.Writer) error { return draw(w, f) }); err == nil {
		f.HTML = suite.WorkbookPath(path)
	}
	suite.Report(t, f)
}

// redraw is the picture of failure f of check k, which no one world's
// judges found: the world of f's seed in the first of plays that runs it,
// built and run again (a world is its seed's), with f told over it and the
// operations and porcupine's view of a judge that finds the same named
// failure there; or f alone, when none runs that seed.
func (r *runner[W]) redraw(k Check[W], f suite.Failure, plays []Play) drawing {
	for _, p := range plays {
		if !slices.Contains(p.Seeds.List(), f.Seed) {
			continue
		}
		w := r.c.Worlds[p.World](f.Seed)
		s := w.Stage()
		defer s.Close()
		var ops []check.OpID
		var porcupine func(io.Writer) error
		if r.ran(w) == nil {
			if g := firstFailure(w, k.Judges); g != nil && g.Name == f.Name {
				ops, porcupine = g.Ops, g.Drawing
			}
		}
		return s.picture(ops, porcupine)
	}
	return func(w io.Writer, f suite.Failure) error {
		page := picture.Page{Failure: f}
		return page.Write(w)
	}
}

// tallied is the play of the world a tally's failure f was found in (a
// tally tells a world's failure again, its story widened: the same seed,
// name, instant and timeline), then every play of the check.
func tallied(plays []Play, tally [][]*suite.Failure, f *suite.Failure) []Play {
	for p, out := range tally {
		for _, g := range out {
			if g != nil && g.Seed == f.Seed && g.Name == f.Name && g.At == f.At && g.Timeline == f.Timeline {
				return append([]Play{plays[p]}, plays...)
			}
		}
	}
	return plays
}

// verdicts builds and runs world at seed, unless it already has, and
// judges it for every check that plays it.
func (r *runner[W]) verdicts(world string, seed int64) *verdicts {
	key := played{world, seed}
	if v, ok := r.done[key]; ok {
		return v
	}
	build, ok := r.c.Worlds[world]
	if !ok {
		panic(fmt.Sprintf("scene: chapter %s has no world %q", r.c.ID, world))
	}
	w := build(seed)
	s := w.Stage()
	defer s.Close()
	// The rest stays nil until needed, for the verdicts kept (newRunner).
	v := &verdicts{fail: make([]*suite.Failure, len(r.c.Checks))}
	runFailure := r.ran(w)
	if runFailure != nil {
		runFailure = s.Finish(*runFailure)
		v.draw = map[*suite.Failure]drawing{runFailure: s.picture(nil, nil)}
	}
	for i, k := range r.c.Checks {
		if !slices.ContainsFunc(k.Plays, func(p Play) bool { return p.World == world }) {
			continue
		}
		if len(k.Figures) > 0 && k.Plays[0].World == world && r.firstSeed(k.Plays[0].Seeds) == seed {
			if v.figures == nil {
				v.figures = map[int]map[string]string{}
			}
			v.figures[i] = map[string]string{}
			for _, fig := range k.Figures {
				v.figures[i][fig.Name] = fig.Text(w)
			}
		}
		v.fail[i] = runFailure
		if runFailure == nil {
			if f := firstFailure(w, k.Judges); f != nil {
				v.fail[i] = s.Finish(*f)
				if v.draw == nil {
					v.draw = map[*suite.Failure]drawing{}
				}
				v.draw[v.fail[i]] = s.picture(f.Ops, f.Drawing)
			}
		}
		if k.Sum != nil && v.fail[i] == nil {
			if v.counts == nil {
				v.counts = make([]Counts, len(r.c.Checks))
			}
			v.counts[i] = k.Sum.Count(w)
		}
		for _, p := range k.Plays {
			if _, judged := v.exercised[p.Guard]; p.World == world && p.Guard != nil && !judged { // a guard several checks share is judged once
				faults := s.Faults
				if p.Guard.Faults != nil {
					faults = p.Guard.Faults(s)
				}
				if v.exercised == nil {
					v.exercised = map[*Guard]*check.Violation{}
				}
				v.exercised[p.Guard] = check.Exercised(s.History, faults, p.Guard.MinCompleted)
			}
		}
	}
	if r.plays[world] > 1 {
		r.done[key] = v
	}
	return v
}

// ran is the chapter's first judge of every world (Chapter.Ran, by default
// Ran on the world's stage): the world's own failure to run, or nil.
func (r *runner[W]) ran(w W) *suite.Failure {
	if r.c.Ran != nil {
		return r.c.Ran(w)
	}
	return OnStage[W](Ran)(w)
}

// firstFailure is the failure the first of judges that finds one finds in
// w, or nil: a check's verdict on a world that ran. The verdicts a world is
// judged by and the picture drawn again for a failure no one world's judges
// found (redraw) both ask it, so the two never disagree on which failure a
// world shows.
func firstFailure[W World](w W, judges []Judge[W]) *suite.Failure {
	for _, judge := range judges {
		if f := judge(w); f != nil {
			return f
		}
	}
	return nil
}

// firstSeed is the first seed a play runs, or 0 when it runs none, listed
// once a run: a list is as long as RUNS, and a world asks for every check.
func (r *runner[W]) firstSeed(s Seeds) int64 {
	if first, ok := r.firsts[s]; ok {
		return first
	}
	var first int64
	if l := s.List(); len(l) > 0 {
		first = l[0]
	}
	r.firsts[s] = first
	return first
}

// Finish completes a failure a judge found in this scene: the seed, the
// time rounded to a tenth of a millisecond, and the timeline around it
// unless the judge drew one.
func (s *Scene) Finish(f suite.Failure) *suite.Failure {
	f.Seed = s.Seed
	f.At = f.At.Round(100 * time.Microsecond)
	if f.Timeline == "" {
		f.Timeline = s.Timeline(f.At)
	}
	f.Drawing = nil
	return &f
}
