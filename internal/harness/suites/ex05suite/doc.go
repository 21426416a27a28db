// Package ex05suite is the hidden suite of chapter 5, "The read that
// contradicted the write".
//
// # The cluster
//
// One history of accepted changes (a kube.MemStore on node etcd) sits behind
// two API servers. Both relay every write to etcd, where it is ordered, and
// answer Latest reads from etcd; they answer Any reads ("0") from a watch
// cache of their own. The link between etcd and server-2 takes 400ms each
// way, so server-2's cache is at least 400ms behind the history, and its
// Latest reads and its writes take 800ms. Two controllers made by the
// learner's New reconcile deployments/web over and over: controller-a
// through server-1, controller-b through server-2.
//
// # The invariant
//
// After every accepted change (the monitor is stepped from etcd's write
// path), no create may have left more pods than desired: when a pod is
// created, the pods of web must number at most the desired count in the
// history at that moment, or, if it is higher, the count the creating
// controller read with kube.Latest earlier in the same reconcile. That
// allowance is the race no controller can win and Kubernetes does not try
// to: a scale-down landing between a consistent read and the create that
// read justified. Pods left over by a scale-down are not an overshoot until
// someone creates another. The failure names the create that went over,
// who made it through which server, and what each controller had been told.
//
// # The checks
//
//   - story: web wants 5 and has web-0 and web-1; both controllers wake at
//     100ms. Never more than 5 pods; 5 at the end.
//   - randomized: controller-b starts up to 100ms after controller-a; one
//     controller crashes and restarts; kubectl scales web to 2, then to 6.
//     The invariant after every step, over many seeds.
//   - converges: in the same runs, once the last fault is over, exactly the
//     desired number of pods at the end.
//
// Figures: the stub fails the story on every one of 1,000 seeds with
// too-many-pods; the solution passes every check on 1,000 seeds.
package ex05suite
