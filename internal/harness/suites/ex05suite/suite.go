package ex05suite

import (
	"testing"

	"onehistory/internal/harness/suite"
)

// Run runs the hidden suite of chapter 5 against the learner's controllers:
// newController is the package's New, called once for every controller that
// boots.
func Run[C Controller](t *testing.T, newController func() C) {
	c := &chapter{newController: func() Controller { return newController() }, finals: map[int64]*suite.Failure{}}
	suite.Run(t, "ex05", map[string]suite.CheckFunc{
		"story":      c.story,
		"randomized": c.randomized,
		"converges":  c.converges,
	})
}
