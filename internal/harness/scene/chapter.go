package scene

import (
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/picture"
	"onehistory/internal/harness/sim"
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
	c     Chapter[W]
	done  map[played]*verdicts
	plays map[string]int // how many plays of the chapter's checks play each world
	// figureSeeds is, by check, the first seed of the check's first play
	// when the check shows figures (Check.Figures), else 0: listed once a
	// run, since a list is as long as RUNS.
	figureSeeds []int64
	workers     int // worlds played at once (suite.Workers)
	// shared is, by check, whether another check has the same list of
	// judges (the same slice): a world is judged by such a list once.
	shared []bool
}

// newRunner is a runner of c. It keeps the verdicts of a world that more
// than one play plays, for the next to read; a world only one play plays
// is judged and let go: thousands of kept verdicts make the collector run
// more often.
func newRunner[W World](c Chapter[W]) *runner[W] {
	r := &runner[W]{c: c, done: map[played]*verdicts{}, plays: map[string]int{}, figureSeeds: make([]int64, len(c.Checks)), workers: suite.Workers()}
	lists := map[judgeList[W]]int{}
	for _, k := range c.Checks {
		lists[listOf(k.Judges)]++
	}
	for _, k := range c.Checks {
		r.shared = append(r.shared, len(k.Judges) > 0 && lists[listOf(k.Judges)] > 1)
	}
	for i, k := range c.Checks {
		for _, p := range k.Plays {
			r.plays[p.World]++
		}
		if len(k.Figures) > 0 && len(k.Plays) > 0 {
			if l := k.Plays[0].Seeds.List(); len(l) > 0 {
				r.figureSeeds[i] = l[0]
			}
		}
	}
	return r
}

// check runs check i and tells what it found: its figures, then its
// failures, each with its story, its timeline, its seed, the command that
// replays it and its picture.
func (r *runner[W]) check(t *testing.T, i int) {
	t.Helper()
	out := r.outcome(i)
	for _, fig := range out.figures {
		suite.Figure(t, fig.name, fig.text)
	}
	for _, f := range out.failures {
		suite.Report(t, f)
	}
}

// outcome is what check i shows: the figures and the failures it reports.
type outcome struct {
	figures  []struct{ name, text string }
	failures []suite.Failure
}

// outcome runs check i: its plays in order, its guards at the end of each,
// and its tally at the end. Each play's worlds are played in parallel (see
// play) and read here in the order of their seeds, so the check reads, sums
// and reports exactly what a run of one world after another would.
func (r *runner[W]) outcome(i int) (out outcome) {
	k := r.c.Checks[i]
	report := func(f suite.Failure, draw drawing) { out.failures = append(out.failures, r.finish(k, f, draw)) }
	tally := make([][]*suite.Failure, len(k.Plays))
	sum, seeds := Counts{}, []int64{}
	for p, play := range k.Plays {
		var cov check.Coverage
		list := play.Seeds.List()
		widened := play.Seeds.kind == random && len(list) > 1
		// Once RUNS asked for them all, every world of a failing play is
		// run and its failures counted (worldsFailed); else the play stops
		// at its first failing world.
		countAll := widened && os.Getenv("RUNS") != ""
		var first *suite.Failure // the first failure, when the check has no tally
		var draw drawing
		at, failed := 0, 0
		for j, v := range r.play(play.World, list) {
			if first != nil {
				if v.fail[i] != nil {
					failed++
				}
				continue
			}
			if p == 0 && j == 0 {
				for _, fig := range k.Figures {
					out.figures = append(out.figures, struct{ name, text string }{fig.Name, v.figures[i][fig.Name]})
				}
			}
			if f := v.fail[i]; f != nil && k.Tally == nil {
				first, draw, at, failed = f, v.draw[f], j, 1
				if !countAll {
					break
				}
				continue
			}
			tally[p] = append(tally[p], v.fail[i])
			if v.counts != nil {
				for name, n := range v.counts[i] {
					sum[name] += n
				}
			}
			seeds = append(seeds, list[j])
			if play.Guard != nil {
				cov.Add(list[j], v.exercised[play.Guard])
			}
		}
		if first != nil {
			told := *first
			if widened {
				told.Details = strings.TrimPrefix(strings.TrimRight(told.Details, "\n")+"\n"+worldsFailed(list, at, failed), "\n")
			}
			report(told, draw)
			return out
		}
		if play.Guard != nil {
			if f := suite.Covered(&cov, play.Guard.MinCovered); f != nil {
				report(*f, r.redraw(k, *f, []Play{play}))
				return out
			}
		}
	}
	if k.Tally != nil {
		if f := k.Tally(tally); f != nil {
			report(*f, r.redraw(k, *f, tallied(k.Plays, tally, f)))
		}
	}
	if k.Sum != nil && !suite.Replaying() {
		if f := k.Sum.Judge(sum, seeds); f != nil {
			report(*f, nil)
		}
	}
	return out
}

// worldsFailed is the line a randomized check's failure ends with: how many
// worlds it ran and how many failed, once RUNS asked for them all ("1000
// worlds, 1000 failed"); else which world failed first, where the check
// stopped. first is the failing seed's index in list, failed the number of
// worlds of list that failed.
func worldsFailed(list []int64, first, failed int) string {
	if os.Getenv("RUNS") == "" {
		return fmt.Sprintf("world %d of %d failed, and the check stopped there: RUNS=%d runs every world and counts the failures", first+1, len(list), len(list))
	}
	return fmt.Sprintf("%d worlds, %d failed (the first, seed %d, is told here)", len(list), failed, list[first])
}

// finish completes f, a failure of check k, for its report: the chapter,
// the check, the replay command, and its picture written next to the
// learner's other files: one page per failing check, named by the chapter,
// the check and the seed (suite.PictureName), its path relative to the
// workbook. draw is the picture of the world that failed; nil, for a
// failure no one world's judges found (a tally, a guard, a sum), draws the
// world of f's seed again.
func (r *runner[W]) finish(k Check[W], f suite.Failure, draw drawing) suite.Failure {
	f.Chapter, f.Check = r.c.ID, k.Name
	if f.Seed == 0 {
		// A sum's failure (Check.Sum): no one world shows it, so the
		// replay is the whole check, and there is no world to draw.
		if f.Replay == "" {
			f.Replay = suite.ReplayAll(f.Chapter)
		}
		return f
	}
	if draw == nil {
		draw = r.redraw(k, f, k.Plays)
	}
	if f.Replay == "" {
		f.Replay = suite.Replay(f.Chapter, f.Seed)
	}
	if path, err := suite.WriteDrawing(suite.OutputDir(), suite.PictureName(r.c.ID, k.Name, f.Seed), func(w io.Writer) error { return draw(w, f) }); err == nil {
		f.HTML = suite.WorkbookPath(path)
	}
	return f
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

// verdicts is what world at seed showed, from the verdicts kept or built
// and judged now.
func (r *runner[W]) verdicts(world string, seed int64) *verdicts {
	for _, v := range r.play(world, []int64{seed}) {
		return v
	}
	return nil
}

// play yields the verdicts of world at each of seeds, in order: those kept,
// and the others built, run and judged on r.workers goroutines at once
// (sim.Parallel), each world on its own. A loop that stops early stops the
// worlds after the one it stopped at that have not yet begun. It keeps what
// the loop took, for the next play of the same world (newRunner).
func (r *runner[W]) play(world string, seeds []int64) iter.Seq2[int, *verdicts] {
	return func(yield func(int, *verdicts) bool) {
		if _, ok := r.c.Worlds[world]; !ok {
			panic(fmt.Sprintf("scene: chapter %s has no world %q", r.c.ID, world))
		}
		keep := r.plays[world] > 1
		var kept []*verdicts // read here, not by the workers: the map is the loop's
		if keep {
			kept = make([]*verdicts, len(seeds))
			for j, seed := range seeds {
				kept[j] = r.done[played{world, seed}]
			}
		}
		judged := func(j int) *verdicts {
			if kept != nil && kept[j] != nil {
				return kept[j]
			}
			return r.judge(world, seeds[j])
		}
		for j, v := range sim.Parallel(len(seeds), r.workers, judged) {
			if keep {
				r.done[played{world, seeds[j]}] = v
			}
			if !yield(j, v) {
				return
			}
		}
	}
}

// judge builds and runs world at seed and judges it for every check that
// plays it. It reads the runner and writes nothing of it: play calls it on
// several goroutines at once.
func (r *runner[W]) judge(world string, seed int64) *verdicts {
	w := r.c.Worlds[world](seed)
	s := w.Stage()
	defer s.Close()
	// The rest stays nil until needed, for the verdicts kept (newRunner).
	v := &verdicts{fail: make([]*suite.Failure, len(r.c.Checks))}
	runFailure := r.ran(w)
	if runFailure != nil {
		runFailure = s.Finish(*runFailure)
		v.draw = map[*suite.Failure]drawing{runFailure: s.picture(nil, nil)}
	}
	var shared sharedJudges[W]
	for i, k := range r.c.Checks {
		if !slices.ContainsFunc(k.Plays, func(p Play) bool { return p.World == world }) {
			continue
		}
		if len(k.Figures) > 0 && k.Plays[0].World == world && r.figureSeeds[i] == seed {
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
			if f := shared.first(w, k.Judges, r.shared[i]); f != nil {
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

// sharedJudges keeps, for one world, the verdict of each list of judges
// more than one check shares (runner.shared): the world does not change
// once it has run, so such a list judges it once.
type sharedJudges[W World] map[judgeList[W]]*suite.Failure

// judgeList names a list of judges by where it starts and how long it is.
type judgeList[W World] struct {
	first *Judge[W]
	n     int
}

// listOf names judges (the zero judgeList for none).
func listOf[W World](judges []Judge[W]) judgeList[W] {
	if len(judges) == 0 {
		return judgeList[W]{}
	}
	return judgeList[W]{&judges[0], len(judges)}
}

// first is firstFailure(w, judges), worked out once per list when the list
// is shared.
func (s *sharedJudges[W]) first(w W, judges []Judge[W], shared bool) *suite.Failure {
	if !shared {
		return firstFailure(w, judges)
	}
	key := listOf(judges)
	if f, ok := (*s)[key]; ok {
		return f
	}
	f := firstFailure(w, judges)
	if *s == nil {
		*s = sharedJudges[W]{}
	}
	(*s)[key] = f
	return f
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

// Against binds a chapter's world builders to the code under test, stated
// once: Against[W](impl)(build) is the Build that builds build(seed, impl).
// impl is what the learner wrote (a Boot, or a chapter's own Impl).
//
//	built := scene.Against[*world](serve)
//	Worlds: map[string]scene.Build[*world]{"story": built(storyWorld), "faults": built(faultWorld)}
func Against[W World, I any](impl I) func(build func(seed int64, impl I) W) Build[W] {
	return func(build func(int64, I) W) Build[W] {
		return func(seed int64) W { return build(seed, impl) }
	}
}
