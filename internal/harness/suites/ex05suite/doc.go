// Package ex05suite is the hidden suite of chapter 5, "The read that
// contradicted the write", built on the scene builder (internal/harness/scene).
//
// # The cluster
//
// One history of accepted changes (a kube.MemStore on node etcd) sits behind
// two API servers. Both relay every write to etcd, where it is ordered, and
// answer Latest reads from etcd; they answer Any reads ("0") from a watch
// cache of their own, and note each such answer in the timeline. The link
// between etcd and server-2 is slow for the whole run (slowLink: 400–410ms
// each way), so server-2's cache is that far behind the history and its
// writes take that long to land. Two controllers made by the learner's New
// reconcile deployments/web over and over: controller-a through server-1,
// controller-b through server-2.
//
// # The judges
//
// The cluster notes, as etcd accepts each change, the first one each rule
// forbids; the judges read those notes from the finished world.
//
//   - readContradicted: no controller sends a write (a create or a delete)
//     while the last count of web's pods, or of web's desired replicas, it
//     was given contradicted writes acknowledged before it asked: changes
//     the history had accepted, and their server had acknowledged to their
//     client, that the answer did not show (read-contradicted-write). A
//     read with kube.Latest never does; a read from server-2's cache does
//     whenever a write was acknowledged in the last 400ms, or during a cut.
//     It is judged first: the read is the chapter's cause, whatever the
//     history made of the write.
//   - tooMany: no create leaves more pods than desired: when a pod is
//     created, web's pods must number at most the desired count in the
//     history at that moment or, if it is higher, the count the creating
//     controller read with kube.Latest earlier in the same reconcile (a
//     scale-down landing between a consistent read and the create it
//     justified is a race no controller can win). That read covers each name
//     once: a create of a name the controller already sent since it last read
//     web with Latest (a retry that did not read again) is judged on the
//     history's count alone, and told as a retry. The failure is
//     stale-desired-count when the creator acted on a desired count the
//     history had left behind (the last one it was told, or one it remembered
//     from before), else too-many-pods: counts that stopped being true before
//     the creates landed.
//   - preconditionNeverRead: no controller sends a delete on a
//     precondition that no answer ever showed it for that pod, in a list, a
//     get, a watch or the reply to its own write (precondition-never-read):
//     the list's own resourceVersion taken for the pod's, say. It is judged
//     when the delete is sent, whatever etcd made of it: refused as a
//     conflict, the extra it was meant to remove stands. A delete sent to a
//     key that is no pod's (the pod's name alone, where pods/<name> belongs)
//     is told as that (delete-of-no-pod): its version is the pod's own.
//   - deletedNewer: no delete removes a version of a pod its controller
//     never saw in a list (deleted-a-newer-pod): a delete without the
//     resourceVersion it read, or at one a get showed just before, not the
//     list that called the pod extra.
//   - changedForeign: no controller of web changes a pod web does not own
//     (another-deployments-pod): deployments/api's pods stand beside web's
//     in the randomized worlds, with web-7, which no deployment owns, and
//     deployments/web-canary's, named like web's, in the neighbours' scene.
//   - countedByName: the world does not end short of web's desired count by
//     exactly the pods of another deployment named like web's, which the
//     controllers listed and created nothing after (another-deployments-pod):
//     they counted those pods as web's, by name.
//   - deletedBlind: no delete removes a wanted pod (web-i, i below the
//     history's desired count) in a reconcile that was told no desired count
//     at all (deleted-a-wanted-pod): a read of web that failed taken for a
//     deployment wanting nothing.
//   - rememberedPods: a world that does not converge (see converged) is
//     told as remembered-pods when a controller, since another's change to
//     web's pods, reconciled web twice or more in a row reading web but
//     none of its pods: it acted on a list it kept from an earlier
//     reconcile, and the story names that list and the change it missed.
//   - converged: exactly the desired number of pods at the end; and while
//     web is scaled to 0, no pod of it stands for zeroSettle (judged when it
//     is scaled up again): a controller that takes "nothing wanted" or
//     "nothing owned" for "nothing to do" leaves them (no-convergence).
//   - createdAny: the story's controllers created a pod at all.
//
// # The worlds and the checks
//
// The story world is the page's scene (storyScenario, told by storyScene),
// the source's Failure 02: web wants 5 and has web-0 and web-1;
// controller-a wakes at 100ms and its creates are acknowledged within
// milliseconds; controller-b wakes at 300ms, long after, and long before
// server-2's cache has heard of them. The
// story check asks every judge of it; its first seed's history is the
// page's figure "pods".
//
// The neighbours' scene (neighboursScenario, told by neighboursScene) is
// played by the randomized and converges checks before their random
// worlds: web wants 5 and has web-0, web-1 and web-x7k2q, a pod it owns
// under a random name; beside it deployments/web-canary has web-canary-0
// and web-canary-1. A pod's owner, not its name, says whose it is, both
// ways: a create that goes over while a pod web owns under another name
// still stands, neither deleted nor counted, is told with that pod
// (too-many-pods).
//
// In a random world (randomScenario) deployments/api's two pods and web-7,
// an orphan no deployment owns (named as web's are, beyond any count web
// is scaled to), stand beside web's; controller-b starts up to 100ms after
// controller-a; one controller crashes and restarts (in half the worlds
// controller-a, across the scale-down, with web scaled back up soon after it
// returns); kubectl scales web to 2, then 6, then 4 (and in one world of two
// evicts web-0 and web-1 right after the last scale; in one of four it
// scales web to 0 instead of 2, and up to 6 only zeroHold later; in one of
// two the link between etcd and server-2 is cut for 1.2–2.4s, longer than a
// server waits for etcd, so reads and writes through server-2 fail for a
// while). The randomized check judges the rules of each change in them, with
// the guard against worlds whose crash met an idle cluster; the converges
// check judges the same worlds by where they end.
//
// make seeds CH=ex05 prints the stub's failure rate, the solution's pass rate
// and the time of 10,000 seeds.
package ex05suite
