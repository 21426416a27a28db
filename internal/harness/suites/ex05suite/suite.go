package ex05suite

import (
	"slices"
	"testing"

	"onehistory/internal/harness/check"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
)

// Run runs the hidden suite of chapter 5 against the learner's controllers:
// newController is the package's New, called once for every controller that
// boots.
func Run[C Controller](t *testing.T, newController func() C) {
	chapter(func() Controller { return newController() }).Run(t)
}

// chapter is the suite, declared: the page's scene, judged by every rule;
// and the neighbours' scene and the randomized worlds, judged by the rules
// of what each change may do (randomized) and by where they end
// (converges).
func chapter(newController func() Controller) scene.Chapter[*cluster] {
	rules := []scene.Judge[*cluster]{(*cluster).readContradicted, (*cluster).preconditionNeverRead, (*cluster).tooMany, (*cluster).deletedNewer, (*cluster).changedForeign, (*cluster).deletedBlind}
	return scene.Chapter[*cluster]{
		ID: "ex05",
		Worlds: map[string]scene.Build[*cluster]{
			"story":      func(seed int64) *cluster { return play(seed, storyScenario(), storyScene(), newController) },
			"neighbours": func(seed int64) *cluster { return play(seed, neighboursScenario(), neighboursScene(), newController) },
			"random": func(seed int64) *cluster {
				sc := randomScenario(seed)
				return play(seed, sc, randomScene(sc), newController)
			},
		},
		Checks: []scene.Check[*cluster]{{
			Name:    "story",
			Plays:   []scene.Play{{World: "story", Seeds: scene.Story(20)}},
			Judges:  append(slices.Clip(rules), (*cluster).rememberedPods, (*cluster).converged, (*cluster).createdAny),
			Figures: []scene.Figure[*cluster]{{Name: "pods", Text: (*cluster).podsFigure}},
		}, {
			Name: "randomized",
			// The slow link lasts every whole run and proves nothing; the
			// crash must meet a busy cluster.
			Plays: []scene.Play{{World: "neighbours", Seeds: scene.Scenes(neighboursSeeds)},
				{World: "random", Seeds: scene.Random(100), Guard: &scene.Guard{MinCompleted: 10, MinCovered: 0.9, Faults: crashes}}},
			Judges: rules,
		}, {
			Name:   "converges",
			Plays:  []scene.Play{{World: "neighbours", Seeds: scene.Scenes(neighboursSeeds)}, {World: "random", Seeds: scene.Random(100)}},
			Judges: []scene.Judge[*cluster]{(*cluster).countedByName, (*cluster).rememberedPods, (*cluster).converged},
		}},
		Ran: ran,
	}
}

// crashes are the scene's crashes, the faults the randomized check's guard
// counts.
func crashes(s *scene.Scene) []check.Fault {
	notCrash := func(f check.Fault) bool { return f.Kind != sim.FaultCrash }
	return slices.DeleteFunc(slices.Clone(s.Faults), notCrash)
}
