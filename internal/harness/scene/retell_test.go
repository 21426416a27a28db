package scene_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/course"
	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/scene"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// A contradiction retold keeps what Linearizable found (its name, its
// story, its view) and says it in the chapter's words.
func TestAContradictionRetoldKeepsWhatWasFound(t *testing.T) {
	s := scene.New(2, lonely)
	s.Client("controller", func(p *sim.Proc, api *kube.Client) {
		api.Pin("server-1").Create(kube.Object{Kind: "deployments", Name: "web", Replicas: 3})
		p.Sleep(time.Millisecond)
		api.Pin("server-2").Get("deployments/web", kube.ReadOptions{ResourceVersion: kube.Latest})
	})
	require.NoError(t, s.Run(time.Second))
	defer s.Close()
	r := &recorder{name: "TestEx02/crash-points"}
	assert.False(t, s.LinearizableRetold(r, func(f *suite.Failure) {
		f.Clause = course.DurableAgreement
		f.Story = "across the crash: " + f.Story
	}))
	require.NotEmpty(t, r.logs)
	f, ok := suite.ParseLine(r.logs[len(r.logs)-1])
	require.True(t, ok)
	assert.Equal(t, "stale-read", f.Name, "the name is what the checker found")
	assert.Equal(t, course.DurableAgreement, f.Clause, "the clause is the chapter's")
	assert.True(t, strings.HasPrefix(f.Story, "across the crash: controller found no deployments/web on server-2"), f.Story)
	assert.Contains(t, f.HTML, "ex02-crash-points-seed-2.html")
	assert.Contains(t, f.Timeline, "controller", "the scene adds the timeline after the retelling")

	quiet := &recorder{name: "TestEx02/crash-points"}
	assert.False(t, s.LinearizableRetold(quiet, nil), "no retelling: reported as Linearizable reports it")
	g, _ := suite.ParseLine(quiet.logs[len(quiet.logs)-1])
	assert.Equal(t, course.OneHistory, g.Clause)
}
