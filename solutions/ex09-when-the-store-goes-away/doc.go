// Package ex09 is chapter 9 of One History, "When the store goes away": the
// link between an API server and the store that holds the one history is
// cut, and everything that talks to that API server finds out what it does.
//
// Read the story first: book/ex09-when-the-store-goes-away.md. Then run
//
//	make ex09
//
// and watch kubectl's "get pods" wait for a store that cannot answer.
//
// # What is here
//
// The store is not yours: one history of accepted changes (a kube.MemStore)
// on node etcd. Two API servers run your Serve in front of it, server-1 and
// server-2. A controller runs your Reconcile of deployments/web through
// server-1 every 100 to 250ms, with an informer of pods (kube.Informer) the
// suite gives it; kubectl and a watcher work through server-1 too; a deploy
// pipeline works through server-2. The suite cuts the link between
// server-1 and etcd, then restores it.
//
// # What to do
//
// Make server-1 and the controller behave during the outage as the
// chapter's table says, at the TODO(ex09) marks in apiserver.go and
// controller.go:
//
//   - a consistent read (kube.Latest) fails within a second with a clear
//     error, never hangs, never answers from the cache;
//   - a read with resourceVersion "0" is answered from the watch cache, and
//     says which version of the history it shows;
//   - a write is refused, never acknowledged without the store;
//   - a watch stays open and quiet, and goes on after the outage without
//     skipping what happened meanwhile;
//   - the controller keeps its last known state and deletes nothing because
//     it could not read;
//   - everything catches up once the link is back.
//
// `go run ./grader hint ex09` gives a hint.
package ex09
