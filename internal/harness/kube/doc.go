// Package kube is the workbook's control plane, small and faithful where it
// matters: API objects with resourceVersions, the requests an API server
// answers, the errors it gives, a reference store, a kubectl-like client,
// and the machinery of controllers (a work queue, an informer, a
// ReplicaSet-style reconciler). Everything runs inside a sim world.
//
// (The full tutorial is being written; see the doc comments of Serve,
// MemStore and Client.)
package kube
