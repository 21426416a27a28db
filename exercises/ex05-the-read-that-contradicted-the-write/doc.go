// Package ex05 is chapter 5 of One History, "The read that contradicted the
// write": two ReplicaSet-style controllers, each reading through a different
// API server, one of them 400ms behind the history, and 8 pods where 5 were
// desired.
//
// Read the story first: book/ex05-the-read-that-contradicted-the-write.md.
// Then run
//
//	make ex05
//
// and watch controller-a and controller-b each count 2 pods of
// deployments/web and each create the 3 that are missing: the one history
// holds 8 pods where 5 were desired.
//
// # What is here
//
// The store is correct and is not yours: one history of accepted changes,
// behind two API servers. Writes through either server are ordered by that
// one history. Reads with kube.Latest are answered from it; reads with
// kube.Any are answered from the server's watch cache, and server-2's cache
// is 400ms behind. The hidden suite runs two controllers, each a Controller
// made by New: controller-a talks to server-1, controller-b to server-2.
// Each calls Reconcile again and again, every few hundred milliseconds, and
// a controller that crashes starts again with a new Controller. server-2's
// writes cross the same slow link, so its creates land about 400ms after
// they are sent; the stub sends its creates side by side, as Kubernetes'
// ReplicaSet controller sends a batch, so all three are on their way at
// once.
//
// # What to do
//
// Change Reconcile in controller.go, at the TODO(ex05) marks, so that no
// interleaving of the two controllers ever leaves more pods than the
// deployment asks for, and the pods still end at exactly that count. The
// fix is in the controller, not in the store: make the controller's writes
// conditional on what it observed, so that a decision made on a view that
// is out of date fails instead of taking effect. `go run ./grader hint ex05`
// gives a hint.
package ex05
