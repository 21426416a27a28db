package ex05suite

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"onehistory/internal/harness/kube"
	"onehistory/internal/harness/sim"
)

// overAt builds a cluster whose overshoot is a create of key by "by",
// accepted at 4.5s when the history wanted desired (scaled at 3.8s) and held
// pods, with the creator's belief b.
func overAt(by sim.NodeID, key string, pods, desired, justified int, b belief) *cluster {
	c := change{at: 4500 * ms, what: "ADDED " + key, key: key, create: true, by: by, via: b.server, pods: pods, desired: desired, overshot: true}
	v := &overshoot{change: c, justified: justified, scaledAt: 3800 * ms, index: 0, beliefs: map[sim.NodeID]belief{by: b}}
	return &cluster{log: []change{c}, overshoot: v}
}

// withStrays says that when the overshoot of cl was accepted, web owned
// pods under other names, keys, which the creator had listed.
func withStrays(cl *cluster, keys ...string) *cluster {
	cl.overshoot.strays = keys
	return cl
}

// One controller's create is blamed on what it acted on: a desired count the
// history had left behind, named with the server that answered it and when,
// before anything is said about pod counts; a count it had been told before
// the one it last read (a remembered count); and not a remembered count when
// it filled a gap below the count it last read, even when the numbers happen
// to add up to one: the pods it kept are the trouble; creates for the
// missing names while a pod web owns under another name stood, neither
// deleted first nor counted, and not when the creates counted it.
func TestOneControllersCreateIsBlamedOnWhatItActedOn(t *testing.T) {
	for _, c := range []struct {
		name string
		cl   *cluster
		want string // the failure's name
		says string // how its story begins
	}{
		{"a stale cached desired count", overAt(controllerB, "pods/web-2", 3, 2, 2, belief{server: server2,
			creates: 3, desired: read{value: 5, cached: true, at: 4119500 * time.Microsecond, ok: true},
			decision: read{value: 2, cached: false, at: 4300 * ms, ok: true}}), "stale-desired-count",
			"controller-b acted on a stale desired count: server-2 answered from its cache at 4119.5ms that web wants 5, " +
				"but the history had been scaled to 2 at 3800ms (accepted by etcd)"},
		{"a remembered desired count", overAt(controllerA, "pods/web-4", 3, 2, 2, belief{server: server1,
			creates: 3, earlier: []read{{value: 5, at: 300 * ms, ok: true}},
			desired:  read{value: 2, at: 4200 * ms, ok: true},
			decision: read{value: 2, at: 4210 * ms, ok: true}}), "stale-desired-count",
			"controller-a acted on a stale desired count: it counted 2 pods and sent 3 creates, " +
				"as if web still wanted 5, the count it was told at 300ms (read with Latest)"},
		{"a gap filled beside kept extras", overAt(controllerA, "pods/web-3", 5, 4, 4, belief{server: server1,
			creates: 1, earlier: []read{{value: 5, at: 300 * ms, ok: true}},
			desired: read{value: 4, at: 8000 * ms, ok: true}, decision: read{value: 4, at: 8010 * ms, ok: true}}),
			"too-many-pods", "controller-a created more pods than its own count called for"},
		{"creates beside a pod web owns under another name", withStrays(overAt(controllerA, "pods/web-4", 6, 5, 5, belief{server: server1,
			creates: 3, desired: read{value: 5, at: 120 * ms, ok: true}, decision: read{value: 3, at: 124500 * time.Microsecond, ok: true}}), "pods/web-x7k2q"),
			"too-many-pods", "controller-a was shown 3 of web's pods (read with Latest at 124.5ms), pods/web-x7k2q among them, " +
				"a pod web owns under a name that is not web-i; with it still standing, it sent 3 creates for the missing names, as if there were 2: " +
				"it was neither deleted before them nor counted among the 5. etcd accepted pods/web-4 from controller-a through server-1 at 4500ms: " +
				"6 pods where 5 were desired"},
		{"creates that counted a pod under another name", withStrays(overAt(controllerA, "pods/web-4", 6, 5, 5, belief{server: server1,
			creates: 2, desired: read{value: 5, at: 120 * ms, ok: true}, decision: read{value: 3, at: 124500 * time.Microsecond, ok: true}}), "pods/web-x7k2q"),
			"too-many-pods", "controller-a created more pods than its own count called for"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := c.cl.tooMany()
			assert.Equal(t, c.want, f.Name)
			assert.True(t, strings.HasPrefix(f.Story, c.says), f.Story)
		})
	}
}

// Two controllers that each filled the same shortfall are told together,
// with the counts they acted on, where those came from and when.
func TestTwoControllersOnOneShortfall(t *testing.T) {
	a := belief{server: server1, desired: read{value: 5, cached: true, at: 107 * ms, ok: true},
		decision: read{value: 2, cached: true, at: 110 * ms, ok: true}, creates: 3}
	b := belief{server: server2, desired: read{value: 5, cached: true, at: 111 * ms, ok: true},
		decision: read{value: 2, cached: true, at: 118 * ms, ok: true}, creates: 3}
	cl := overAt(controllerB, "pods/web-x", 6, 5, 0, b)
	cl.overshoot.beliefs[controllerA] = a
	cl.log = append(cl.log, change{at: 4600 * ms, create: true, pods: 8, desired: 5})
	f := cl.tooMany()
	assert.Equal(t, "too-many-pods", f.Name)
	assert.True(t, strings.HasPrefix(f.Story, "controller-a and controller-b each created pods for the same shortfall of deployments/web"), f.Story)
	assert.Contains(t, f.Story, `controller-b counted 2 (server-2's cache, rv="0", answered at 118ms) and sent 3 creates`)
	assert.Contains(t, f.Story, "the one history went on to 8 pods (the last of them accepted at 4600ms)")
}

// The story's scene is told from the values it is built from.
func TestTheSceneIsToldFromItsValues(t *testing.T) {
	sc := storyScenario()
	assert.Equal(t, storyDesired, sc.initial)
	assert.Contains(t, storyScene(), "takes 400ms–410ms each way")
	assert.Equal(t, slowMin, slowLink(sc.end).Link.Min)
}

// Some randomized runs scale web to 0 and hold it there longer than a pod
// may stand while web wants none, and end late enough for the slow
// controller's last creates to be deleted; the others keep 5→2→6→4.
func TestSomeRunsScaleWebToZeroAndHoldIt(t *testing.T) {
	zero := 0
	for seed := int64(1); seed <= 200; seed++ {
		sc := randomScenario(seed)
		if sc.scales[0].replicas != 0 {
			assert.Equal(t, 2, sc.scales[0].replicas)
			continue
		}
		zero++
		assert.Equal(t, zeroHold, sc.scales[1].at-sc.scales[0].at)
		assert.Greater(t, zeroHold, zeroSettle)
		assert.Less(t, sc.scales[2].at, sc.end-4*time.Second)
	}
	assert.Greater(t, zero, 20, "about a quarter of the runs")
	assert.Less(t, zero, 80)
}

// A create sent again in the same reconcile, without a fresh read, is not
// covered by the read that justified the first sending: it is told as a
// retry, with both sendings and the count it rested on.
func TestACreateSentAgainIsToldAsARetry(t *testing.T) {
	b := belief{server: server2, desired: read{value: 6, at: 8430 * ms, ok: true},
		decision: read{value: 2, at: 8431 * ms, ok: true}, creates: 4}
	cl := overAt(controllerB, "pods/web-4", 5, 4, 0, b)
	cl.overshoot.retry = &relayed{By: controllerB, Retry: true,
		Sent: 10261500 * time.Microsecond, FirstAt: 9262500 * time.Microsecond}
	f := cl.tooMany()
	assert.Equal(t, "too-many-pods", f.Name)
	assert.True(t, strings.HasPrefix(f.Story, "controller-b sent its create of pods/web-4 again at 10261.5ms (when server-2 got it) without reading web again: "+
		"it had first sent it at 9262.5ms, on web wanting 6 (read with Latest at 8430ms)"), f.Story)
	assert.Contains(t, f.Story, "the history had been scaled to 4 at 3800ms")
}

// A delete at a version the controller read with a get, never in a list,
// is told as a precondition that guarded the get, not the decision.
func TestADeleteAtAVersionOnlyAGetShowed(t *testing.T) {
	v := &newerDelete{change: change{at: 5721 * ms, key: "pods/web-4", by: controllerB, pods: 5, desired: 6}, got: true,
		made: change{at: 4215 * ms, by: controllerA}}
	cl := &cluster{newer: v}
	s := cl.deletedNewer().Story
	assert.True(t, strings.HasPrefix(s, "controller-b deleted pods/web-4 at a version it had read with a get just before, never in the list"), s)
	assert.Contains(t, s, "created again by controller-a, accepted by etcd at 4215ms")
}

// A delete in a pass whose read of the deployment failed names the failed
// read and the wanted pod it removed.
func TestADeleteToldNothingIsBlind(t *testing.T) {
	v := &blindDelete{change: change{at: 6293900 * time.Microsecond, key: "pods/web-0", by: controllerB, via: server2, pods: 5, desired: 6},
		failed: 5054400 * time.Microsecond}
	cl := &cluster{blind: v}
	s := cl.deletedBlind().Story
	assert.True(t, strings.HasPrefix(s, "controller-b deleted pods/web-0 through server-2, accepted by etcd at 6293.9ms, in a reconcile that had not been told how many pods web wants: "+
		"its read of deployments/web had failed at 5054.4ms"), s)
	assert.Contains(t, s, "The history wanted 6 pods then, and pods/web-0 was one of them")
}

// Only web-0 … web-(desired-1) are wanted; other names never are.
func TestWantedNames(t *testing.T) {
	assert.True(t, wanted("pods/web-0", 1))
	assert.False(t, wanted("pods/web-1", 1))
	assert.False(t, wanted("pods/web-01", 4))
	assert.False(t, wanted("pods/web-x", 4))
	assert.False(t, wanted("pods/api-0", 4))
}

// testController reconciles web with Latest reads and web-i names. By
// owner, it counts the pods web owns and deletes those it does not want;
// byName, it counts every pod named "web-…" and creates while that count
// is short, the mistake the neighbours' scene is for.
type testController struct{ byName bool }

func (c testController) Reconcile(p *sim.Proc, api *kube.Client, key string) error {
	d, err := api.Get(key, kube.ReadOptions{})
	if err != nil {
		return err
	}
	pods, err := api.List("pods", kube.ReadOptions{})
	if err != nil {
		return err
	}
	have, n := map[string]bool{}, 0
	for _, o := range pods.Items {
		switch {
		case c.byName && strings.HasPrefix(o.Name, d.Name+"-"):
			have[o.Name], n = true, n+1
		case !c.byName && o.Owner == key && wanted(o.Key(), d.Replicas):
			have[o.Name], n = true, n+1
		case !c.byName && o.Owner == key:
			_, _ = api.Delete(o.Key(), o.ResourceVersion)
		}
	}
	for i := 0; i < d.Replicas && (!c.byName || n < d.Replicas); i++ {
		if name := fmt.Sprintf("%s-%d", d.Name, i); !have[name] {
			_, _ = api.Create(kube.Object{Kind: "pods", Name: name, Owner: key})
			n++
		}
	}
	return nil
}

// In the neighbours' scene a controller that goes by owners deletes the
// pod web owns under a random name, makes the pods web is missing and
// leaves web-canary's alone. One that counts pods by name counts
// web-canary's two as web's, finds nothing to do, and the story names the
// pods it counted and the controllers that listed them.
func TestPodsCountedByNameAreAnotherDeploymentsPods(t *testing.T) {
	byOwner := chapter(func() Controller { return testController{} })
	for seed := int64(1); seed <= neighboursSeeds; seed++ {
		assert.Nil(t, byOwner.Verdict("randomized", "neighbours", seed), "seed %d", seed)
		assert.Nil(t, byOwner.Verdict("converges", "neighbours", seed), "seed %d", seed)
	}
	f := chapter(func() Controller { return testController{byName: true} }).Verdict("converges", "neighbours", 1)
	require.NotNil(t, f)
	assert.Equal(t, "another-deployments-pod", f.Name)
	assert.True(t, strings.HasPrefix(f.Story, "at 4000ms, the end of the run, deployments/web wants 5 pods and the history holds 3 of its own "+
		"(web-0, web-1, web-x7k2q) beside 2 of deployments/web-canary's (web-canary-0, web-canary-1), whose names begin with web's; 3 and 2 make the 5 web wants. "+
		"controller-a listed them (its last list answered by server-1 at "), f.Story)
	assert.Regexp(t, `controller-b listed them \(its last list answered by server-2 at [\d.]+ms\) and created none: `+
		`they counted deployments/web-canary's pods as web's, by their names`, f.Story)
}

// A pod of another deployment named, or owned, like web's is told with the
// prefix taken for the whole; a pod web's controller stamped with a
// mistaken owner is not.
func TestAForeignPodNamedLikeWebsSaysSo(t *testing.T) {
	v := &foreignChange{change: change{at: 131800 * time.Microsecond, what: "DELETED pods/web-canary-0", key: "pods/web-canary-0", by: controllerA, via: server1},
		owner: "deployments/web-canary", deleted: true}
	story := func() string { return (&cluster{foreign: v}).changedForeign().Story }
	assert.Contains(t, story(), "but pods/web-canary-0 is deployments/web-canary's, not deployments/web's, though its name begins with web's, and so does its owner's key: ")
	v.key, v.owner = "pods/webhook-0", "deployments/webhook"
	assert.Contains(t, story(), "not deployments/web's, though its name begins with web's, and so does its owner's key: ")
	v.key, v.owner = "pods/canary-0", "deployments/web-canary"
	assert.Contains(t, story(), "not deployments/web's, though its owner's key begins with web's: ")
	v.key, v.owner, v.deleted = "pods/web-2", "web", false
	assert.Contains(t, story(), "but pods/web-2 is web's, not deployments/web's: ")
}

// contradictedAt builds the page's scene by hand: controller-a's three
// creates accepted at rv 4–6 at 120ms and acknowledged at ackAt, then
// controller-b's count of 2 from server-2's cache, a view at rv=3, asked at
// 305ms, and its create sent on it at 310ms.
func contradictedAt(ackAt time.Duration) *cluster {
	cl := &cluster{told: "the scene", acked: map[version]ack{}}
	for i, key := range []string{"pods/web-a", "pods/web-b", "pods/web-c"} {
		c := change{at: 120 * ms, rv: int64(4 + i), ofWeb: true, what: "ADDED " + key, key: key, create: true, by: controllerA, via: server1, pods: 3 + i, desired: 5}
		cl.log = append(cl.log, c)
		cl.acked[version{key, c.rv}] = ack{at: ackAt, to: controllerA, via: server1}
	}
	b := &belief{server: server2, desired: read{value: 5, cached: true, at: 302 * ms, asked: 302 * ms, view: 1, truth: 6, ok: true},
		pods: read{value: 2, cached: true, at: 305 * ms, asked: 305 * ms, view: 3, truth: 6, ok: true}}
	cl.stale = cl.actedOnStale(310*ms, controllerB, server2, kube.CreateRequest{Object: kube.Object{Kind: "pods", Name: "web-x"}}, b)
	return cl
}

// A count read after the other controller's creates were acknowledged,
// through a server that had not heard of them, is told as the read that
// contradicted those writes: who wrote what where and when it was
// acknowledged, who read what where and when, and what it sent on it. The
// same count read before the acknowledgements contradicted nothing (the
// race of two controllers on one shortfall, judged by tooMany), and a
// desired count that missed no change of web is no contradiction either.
func TestACountThatMissedAcknowledgedCreates(t *testing.T) {
	f := contradictedAt(125 * ms).readContradicted()
	require.NotNil(t, f)
	assert.Equal(t, "read-contradicted-write", f.Name)
	assert.Equal(t, 310*ms, f.At)
	assert.True(t, strings.HasPrefix(f.Story, "controller-b acted on a read of web's pods that contradicted acknowledged writes: "+
		"etcd had accepted pods/web-a, pods/web-b, pods/web-c (by controller-a through server-1) at 120ms, "+
		"and server-1 had acknowledged them to controller-a at 125ms; controller-b read web's pods through server-2 at 305ms "+
		`and was answered from server-2's cache, rv="0": 2 pods, a view at rv=3 while the history was at rv=6. `+
		"On that answer it sent CREATE pods/web-x through server-2 at 310ms"), f.Story)

	assert.Nil(t, contradictedAt(306*ms).readContradicted())
}

// cachedCounter is the naive controller of the page: it counts web's pods
// from its server's cache and creates the shortfall under names of its own.
type cachedCounter struct{ n int }

func (c *cachedCounter) Reconcile(p *sim.Proc, api *kube.Client, key string) error {
	cached := kube.ReadOptions{ResourceVersion: kube.Any}
	d, err := api.Get(key, cached)
	if err != nil {
		return err
	}
	l, err := api.List("pods", cached)
	if err != nil {
		return err
	}
	have := 0
	for _, o := range l.Items {
		if o.Owner == key {
			have++
		}
	}
	for ; have < d.Replicas; have++ {
		c.n++
		if _, err := api.Create(kube.Object{Kind: "pods", Name: fmt.Sprintf("%s-%s%d", d.Name, p.Node(), c.n), Owner: key}); err != nil {
			return err
		}
	}
	return nil
}

// In the page's scene, controller-b counts after controller-a's creates were
// acknowledged, through server-2, which has not heard of them: its count
// contradicts them on every seed, and 5 desired become 8.
func TestTheStorysReadContradictsAcknowledgedWrites(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		cl := play(seed, storyScenario(), storyScene(), func() Controller { return &cachedCounter{} })
		f := cl.readContradicted()
		require.NotNil(t, f, "seed %d", seed)
		assert.Equal(t, "read-contradicted-write", f.Name, "seed %d: %s", seed, f.Story)
		assert.Equal(t, controllerB, cl.stale.by)
		assert.Contains(t, f.Story, "the one history went on to 8 pods")
		cl.s.Close()
	}
}

// The randomized worlds' orphan is named as web's pods are, and beyond every
// count web is scaled to: a correct controller never needs its name, and
// only one that takes a name for an owner touches it.
func TestTheOrphanIsNeverAWantedName(t *testing.T) {
	for seed := int64(1); seed <= 50; seed++ {
		sc := randomScenario(seed)
		require.Equal(t, orphan, sc.orphan)
		assert.True(t, named("pods/"+sc.orphan))
		for _, s := range sc.scales {
			assert.False(t, wanted("pods/"+sc.orphan, s.replicas), "seed %d scales to %d", seed, s.replicas)
		}
		assert.False(t, wanted("pods/"+sc.orphan, sc.initial))
	}
}

// rememberingController is the reference design with one mistake: it keeps
// the pods it listed and lists again only when the deployment has changed.
type rememberingController struct {
	seen int64
	pods kube.List
}

func (c *rememberingController) Reconcile(p *sim.Proc, api *kube.Client, key string) error {
	d, err := api.Get(key, kube.ReadOptions{})
	if err != nil {
		return err
	}
	if d.ResourceVersion != c.seen {
		l, err := api.List("pods", kube.ReadOptions{})
		if err != nil {
			return err
		}
		c.seen, c.pods = d.ResourceVersion, l
	}
	have := map[string]bool{}
	for _, o := range c.pods.Items {
		if o.Owner != key {
			continue
		}
		if wanted(o.Key(), d.Replicas) {
			have[o.Name] = true
		} else {
			_, _ = api.Delete(o.Key(), o.ResourceVersion)
		}
	}
	for i := 0; i < d.Replicas; i++ {
		if name := fmt.Sprintf("%s-%d", d.Name, i); !have[name] {
			_, _ = api.Create(kube.Object{Kind: "pods", Name: name, Owner: key})
		}
	}
	return nil
}

// A controller that keeps the pods it listed, and reads them again only
// when web changes, never makes again the pods kubectl evicts after the
// last scale: the world ends short, and the story names the controller
// that reconciled again and again without reading the pods, the list it
// acted on instead, and the eviction that list could not show.
func TestPodsRememberedAcrossReconciles(t *testing.T) {
	ch := chapter(func() Controller { return &rememberingController{} })
	found := 0
	for seed := int64(1); seed <= 100 && found < 2; seed++ {
		if randomScenario(seed).evict == 0 {
			continue
		}
		f := ch.Verdict("converges", "random", seed)
		if f == nil {
			continue
		}
		found++
		assert.Equal(t, "remembered-pods", f.Name, "seed %d: %s", seed, f.Story)
		assert.Regexp(t, `^controller-[ab] reconciled web \d+ times \(they ended from [\d.]+ms to [\d.]+ms\), reading web through server-[12] each time but never its pods, and sent (nothing|\d+ writes? on it): `+
			`it acted on its last list of pods, answered at [\d.]+ms \(\d pods of web, read with Latest\), which none of those reconciles read again, `+
			`though etcd had accepted [^()]+ \(by (kubectl|controller-[ab])\) at [\d.]+ms since`, f.Story)
		assert.Contains(t, f.Story, "the end of the run, long after the last fault, deployments/web wants 4 pods and the history holds")
	}
	assert.Equal(t, 2, found, "worlds with an eviction end short")
}

// A delete whose precondition is the list's own resourceVersion, not the
// pod's, names a version of the pod no answer showed the controller: it is
// told with the list it came from and what etcd made of it, whether or not
// it did harm.
func TestADeleteAtAVersionNeverReadIsToldByItsPrecondition(t *testing.T) {
	list := read{value: 3, at: 124500 * time.Microsecond, view: 7, ok: true}
	cl := &cluster{told: "the scene", beliefs: map[sim.NodeID]*belief{controllerA: {server: server1}}}
	cl.unread = &unreadPrecondition{by: controllerA, via: server1, at: 128500 * time.Microsecond, key: "pods/web-x7k2q", rv: 7, list: list, listed: 4,
		outcome: kube.Conflict("pods/web-x7k2q", 7, 4)}
	f := cl.preconditionNeverRead()
	require.NotNil(t, f)
	assert.Equal(t, "precondition-never-read", f.Name)
	assert.Equal(t, 128500*time.Microsecond, f.At)
	assert.True(t, strings.HasPrefix(f.Story, "controller-a sent a delete of pods/web-x7k2q through server-1 at 128.5ms on the precondition rv=7, "+
		"a version of pods/web-x7k2q it had never read: its last list of pods, answered at 124.5ms (read with Latest), was a view at rv=7 "+
		"and showed pods/web-x7k2q at rv=4, and the precondition is the list's own resourceVersion, not the pod's; "+
		"etcd refused it as a conflict, and pods/web-x7k2q, which the controller had decided to delete, stood."), f.Story)

	cl.unread.outcome = nil
	assert.Contains(t, cl.preconditionNeverRead().Story, "etcd accepted it, since pods/web-x7k2q happened to be at rv=7")
}

// A delete sent to the pod's name alone, not its key, names no pod: it is
// told as that, not as a precondition never read, since the version is the
// pod's own.
func TestADeleteOfAPodsNameAloneIsToldAsAKeyOfNoPod(t *testing.T) {
	cl := &cluster{told: "the scene", beliefs: map[sim.NodeID]*belief{controllerA: {server: server1}}}
	cl.unread = &unreadPrecondition{by: controllerA, via: server1, at: 128500 * time.Microsecond, key: "web-x7k2q", rv: 4,
		outcome: kube.NotFound("web-x7k2q")}
	f := cl.preconditionNeverRead()
	require.NotNil(t, f)
	assert.Equal(t, "delete-of-no-pod", f.Name)
	assert.Equal(t, `controller-a sent a delete of "web-x7k2q" through server-1 at 128.5ms, a key that names no pod: a pod's key is its kind and its name, pods/web-x7k2q; `+
		"etcd answered "+kube.NotFound("web-x7k2q").Error()+", and pods/web-x7k2q, which the controller had decided to delete, stood. A delete names the object by its key, as Key() gives it", f.Story)
}
