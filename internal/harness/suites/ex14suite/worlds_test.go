package ex14suite

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// idle is a node controller that does nothing: the worlds as they are.
var idle = Impl{Control: func(p *sim.Proc, api *kube.Client, nodes []string) {
	for {
		p.Sleep(time.Hour)
	}
}}

// The random worlds are built so that no one timeout passes: a steady
// node's gaps between heartbeats stay near ten seconds (its crash must be
// found within 40s), while a node across the long-tailed link, alive, goes
// longer than that between two of its heartbeats in some world, though the
// longest gaps of both kinds stay where the book says (about 12s and 46s).
func TestNoOneTimeoutFitsBothKinds(t *testing.T) {
	longest := map[string]time.Duration{}
	for seed := int64(1); seed <= 300; seed++ {
		w := randomWorld(seed, idle)
		paused := map[string]bool{}
		for _, name := range w.names {
			_, paused[name] = w.pausedAround(name, w.end)
		}
		for _, name := range w.names {
			pop := w.pop[name].Name
			if paused[name] && pop == lan.Name {
				continue // a pause is a silence of its own, told apart by time alone
			}
			hb := w.heartbeats(name)
			for i := 1; i < len(hb); i++ {
				longest[pop] = max(longest[pop], hb[i]-hb[i-1])
			}
		}
		w.Close()
	}
	assert.Less(t, longest[lan.Name], 13*time.Second, "a steady node's longest gap")
	assert.Greater(t, longest[lan.Name], 11*time.Second)
	assert.Greater(t, longest[wan.Name], lan.EvictWithin, "a live long-tailed node is silent longer than a steady node's crash may go unfound")
	assert.Less(t, longest[wan.Name], 48*time.Second)
	t.Logf("longest gaps: %v", longest)
}
