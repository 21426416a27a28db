// Package ex09suite is the hidden suite of chapter 9, "When the store goes
// away": the source's own investigation exercise, run in the simulated
// cluster.
//
// # The cluster
//
// One history of accepted changes (a kube.MemStore on node etcd) sits behind
// two API servers, server-1 and server-2, each running the learner's Serve.
// A controller (an informer of pods and the learner's Reconcile of
// deployments/web, every 100 to 250ms), kubectl and a watcher work through
// server-1; a deploy pipeline works through server-2. The link between
// server-1 and etcd is cut (scene.Cut), then restored: server-1 still hears
// its clients and they still hear it; it just cannot reach the history.
// The judges read what the clients asked and were told from the scene's log
// of requests (Scene.Requests), and what the history accepted from the
// store.
//
// # The table
//
// Each row of the page's table is a check with one judge (chapter), judged
// over the same randomized outages (beginning between 600 and 1500ms,
// lasting 1.2 to 4 seconds, always longer than every timeout):
//
//   - consistent-reads: a read with kube.Latest, kubectl's or the
//     controller's, is answered within Bound, and never with anything but
//     the history's current state (never from server-1's cache while it
//     cannot reach etcd).
//   - cached-reads: a read with kube.Any is answered within Bound, outage or
//     not, and its answer is the history exactly as it stood at the version
//     the answer names.
//   - writes: no client hears a definite no (a 4xx) from server-1 cut off
//     from etcd that the history contradicts: a write on its way to etcd as
//     the link was cut (every randomized outage has one, a scale of batch
//     over a way slowed for the moment before the cut) was taken by etcd
//     and only its answer lost, so it may only be told Timeout;
//     no client hears yes for a change the history did not hold at
//     that moment (a delete's yes must be a deletion), a write is refused
//     within Bound, a delete that names a version finds its object still at
//     it (kubectl names the version it saw, or one either side); and every
//     client's writes and consistent reads fit one order of the history
//     (porcupine, per key).
//   - watches: the watcher's watches through server-1 stay open during the
//     outage and deliver the history's changes in order, none skipped and
//     none the history does not hold (after Gone, it relists and goes on).
//   - controllers: no pod of web is deleted, or even asked to be deleted,
//     unless the controller's last successful consistent read of web (a
//     NotFound included: web is gone and wants none) wants no more pods than
//     the deletes its reconcile asked for so far leave; a count read from
//     the cache (rv="0") is no ground for a delete. Checked after every
//     change the store accepts, and for every delete the controller sends,
//     refused or not. In one run of two the controller's link
//     to server-1 is slower than its own timeout for a while in the outage,
//     so it sees its client's Timeout as well as server-1's Unavailable.
//   - catch-up: CatchUp after the link is restored, server-1 answers a
//     consistent read and takes a write, both caches hold the history as it
//     is, the watcher has seen every change, and web has the pods it wants.
//     In two runs of three the pipeline deletes web while the link is cut
//     (and in one of those two creates it again after the heal): a web that
//     is gone wants no pods, so its pods must be gone by the audit, or by
//     the time web is created again once goneSettle has passed since
//     server-1 could read NotFound. In the third, when the pipeline scaled
//     web up, it deletes the pod web-1 600ms after the heal, as a node
//     drain would: web wants it back, by its name, while the pods after it
//     stand.
//
// The story check runs the page's scene (the outage from 1000 to 4000ms,
// kubectl's "get pods" at 1500ms, the pipeline's scale to 7 at 2500ms) and
// reports the first row that fails, in the table's order. Its first world
// prints the figure "outage": every request kubectl and the pipeline sent,
// through which server, and what came back when; the page quotes it.
package ex09suite
