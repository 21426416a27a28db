package ex05suite

import (
	"fmt"
	"strings"
	"time"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
	"onehistory/internal/harness/suite"
)

// The neighbours' scene, stated once: web wants neighboursDesired pods and
// has neighboursPods named web-0 …, and one more it owns under another
// name, stray, left by the controller before the fix (a random name);
// beside it stands deployments/web-canary with neighbourPods pods,
// web-canary-0 …, whose names begin with web's. A pod's owner, not its
// name, says whose it is, both ways.
const (
	neighbour         = "web-canary"
	stray             = "web-x7k2q"
	neighboursDesired = 5
	neighboursPods    = 2
	neighbourPods     = neighboursDesired - neighboursPods - 1 // as many as web is short of: counted as web's, they fill it
	neighboursEnd     = 4 * time.Second
	neighboursSeeds   = 2
)

// neighboursScenario is the neighbours' scene: both controllers wake at
// storyWake, as in the story, and nothing goes wrong but the slow link.
func neighboursScenario() scenario {
	return scenario{initial: neighboursDesired, pods: neighboursPods, stray: stray, others: neighbourPods, neighbour: neighbour,
		startA: storyWake, startB: storyWake, period: [2]time.Duration{200 * ms, 300 * ms}, end: neighboursEnd}
}

// neighboursScene says the neighbours' scene in one paragraph.
func neighboursScene() string {
	return fmt.Sprintf("the scene: %s wants %d pods and has %s, and %s, a pod it owns under a name an earlier controller drew at random; "+
		"beside it deployments/%s has %s, pods whose names begin with web's. "+
		"controller-a works through server-1, controller-b through server-2 (%s–%s from the history each way); both wake at %s.",
		web, neighboursDesired, podNamesOf("web", neighboursPods), stray, neighbour, podNamesOf(neighbour, neighbourPods),
		suite.FormatTime(slowMin), suite.FormatTime(slowMax), suite.FormatTime(storyWake))
}

// countedByName judges a world that ends short of web's desired count by
// exactly the pods of other deployments whose names begin with web's,
// while a controller that had listed those pods created none since: it
// counted them as web's, by their names, and saw nothing to do. The
// failure is another-deployments-pod, told with the pods each such
// controller counted; converged tells any other shortfall.
func (cl *cluster) countedByName() *suite.Failure {
	own := cl.podNames()
	var alike []kube.Object // other deployments' pods named like web's (an orphan is no deployment's)
	for _, o := range cl.store.Objects() {
		if o.Kind == "pods" && o.Owner != web && o.Owner != "" && strings.HasPrefix(o.Name, "web") {
			alike = append(alike, o)
		}
	}
	if len(alike) == 0 || len(own)+len(alike) != cl.desired {
		return nil
	}
	var counted []string
	for _, id := range []sim.NodeID{controllerA, controllerB} {
		b := cl.beliefs[id]
		if !b.pods.ok || b.sinceListing > 0 || !listedAll(b, alike) {
			continue
		}
		counted = append(counted, fmt.Sprintf("%s listed them (its last list answered by %s at %s) and created none", id, b.server, suite.FormatTime(b.pods.at)))
	}
	if len(counted) == 0 {
		return nil
	}
	names, owners := make([]string, len(alike)), map[string]bool{}
	for i, o := range alike {
		names[i] = o.Name
		owners[o.Owner] = true
	}
	whose := alike[0].Owner + "'s"
	if len(owners) > 1 {
		whose = "other deployments'"
	}
	end := cl.s.W.Now()
	return cl.fail("another-deployments-pod", end, fmt.Sprintf(
		"at %s, the end of the run, %s wants %d pods and the history holds %d of its own (%s) beside %d of %s (%s), whose names begin with web's; "+
			"%d and %d make the %d web wants. %s: %s counted %s pods as web's, by their names. A pod's owner, not its name, says whose it is",
		suite.FormatTime(end), web, cl.desired, len(own), strings.Join(own, ", "), len(alike), whose, strings.Join(names, ", "),
		len(own), len(alike), cl.desired, strings.Join(counted, "; "), controllersOf(len(counted)), whose), cl.log)
}

// listedAll reports whether a controller's lists showed it every pod of
// pods, as it stands.
func listedAll(b *belief, pods []kube.Object) bool {
	for _, o := range pods {
		if !b.listed[versionOf(o)] {
			return false
		}
	}
	return true
}

// controllersOf is who a story's sentence is about: "it", or "they".
func controllersOf(n int) string {
	if n == 1 {
		return "it"
	}
	return "they"
}
