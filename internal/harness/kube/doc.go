// Package kube is the workbook's control plane, small and faithful where it
// matters: API objects whose resourceVersion is their position in one
// history, the requests an API server answers and the errors it gives, a
// reference store, a kubectl-like client, and the machinery of controllers
// (a work queue, an informer, a ReplicaSet-style reconciler). Everything
// runs inside a sim world: time, concurrency and the network come from the
// *sim.Proc each piece is given.
//
// # Objects and versions
//
// An Object is a deployment ("deployments/web", with desired Replicas) or a
// pod ("pods/web-x7k2", with an Owner). Its ResourceVersion is the position
// of the change that last wrote it in the history of accepted changes: 1, 2,
// 3, … across all keys, as etcd's revision. An update or delete with a
// non-zero ResourceVersion is conditional: ErrConflict (409) if the object
// changed since. A watch from a version the history no longer holds is
// ErrGone (410): relist. Reads are Latest ("", consistent) or Any ("0",
// whatever the server has). Test errors with errors.Is.
//
// # Leases and fencing
//
// A lease ("leases/controller") is an object whose LeaseSpec says who holds
// it, for how long from its last renewal, and when it was acquired and
// renewed, by the writer's own clock; Transitions counts its holders. Taking
// and renewing it are conditional updates like any other. A write may carry
// a Fence (a lease's key and the Transitions its writer held it at): a
// fencing store (MemStore) refuses it with ErrFenced (409) once the lease has
// passed on, in the one order of its history, however late the write comes.
//
// # Serving a store
//
// Storage is what a chapter's store implements; Serve turns a node into an
// API server over it. MemStore is the correct single-node store, the
// reference the suites compare with:
//
//	w := sim.New(seed, sim.Latency(400*time.Millisecond, 400*time.Millisecond))
//	store := kube.NewMemStore(100) // watch window of 100 events
//	w.AddNode("server-1", func(p *sim.Proc) { kube.Serve(p, store) })
//
// store.Changes() is its history, ready for check.Durable and
// check.OneHistory. A replicated server can keep a MemStore per node as its
// state machine: Propose decides what a write changes, Apply applies a change
// ordered elsewhere.
//
// # Clients
//
// A Client sends each request to one of its servers, as a load balancer
// would, and turns the network's failures into API errors: no answer in time
// is ErrTimeout (indefinite), a crashed server ErrUnavailable. Each operation
// writes a line in the timeline ("GET deployments/web @server-2 →
// replicas=3 rv=4") and, with Record, an operation in a check.History:
//
//	w.AddNode("kubectl", func(p *sim.Proc) {
//		c := kube.NewClient(p, "server-1", "server-2").Record(h)
//		web, err := c.Get("deployments/web", kube.ReadOptions{})
//		web.Replicas = 5
//		_, err = c.Update(web) // conditional on web.ResourceVersion
//	})
//
// # What a chapter's code holds
//
// Every node of a world runs in one Go process, so whatever this package
// hands out is built so that no node can change what another node, or the
// suite, sees. An API error is a StatusError value: ErrConflict, and every
// error a server answers with, is a copy in the hands of whoever holds it,
// and rewriting its fields changes nothing for anyone else. A Client a suite
// hands over (a controller's Reconcile(p, c, ...)) keeps recording where the
// suite made it record, under the name the suite gave it: Record only adds a
// history, Named only renames what is recorded from then on, so the code it
// is handed to cannot hide its operations from the judge or pass them off as
// another client's.
//
// # Controllers
//
// An Informer lists a kind, then watches from the list's version, keeping a
// cache that lags behind the store by design, and calls its handlers for each
// change. Cut off from its server, it watches again from the version it had,
// trusting the history to replay what it missed; only Gone makes it list
// again, as client-go's reflector does. A WorkQueue hands keys to workers, never one key to two workers,
// and retries with backoff. ReplicaSetController puts them together: for each
// deployment it counts the pods it owns in its cache and creates or deletes
// the difference. It is naive on purpose: it acts on what its cache says, so
// a lagging cache, or two controllers reading servers that disagree, make
// more pods than desired. That is where ex05 begins:
//
//	w.AddNode("controller-a", func(p *sim.Proc) {
//		kube.NewReplicaSetController(p, kube.NewClient(p, "server-1"), 2)
//	})
//
// # Nodes
//
// A node ("nodes/node-3") has a Status: its Ready condition and its last
// heartbeat, on the kubelet's own clock (NewNode); pods are bound to a node
// by their NodeName (BoundPod, PodsOn).
// Nothing here decides that a node is dead: a crashed node and a slow one
// both fall silent, and telling them apart is the node controller's
// problem, as it is ex14's.
package kube
