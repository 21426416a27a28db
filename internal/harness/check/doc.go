// Package check holds the workbook's checkers: pure functions over what a run
// recorded, returning what they found as data. A checker never fails a test
// and never prints; a suite decides to fail and renders the story (see
// suite.Failure). Nothing here knows the simulator: times are virtual
// time.Durations since the world started, as the world reports them.
//
// # Recording a history
//
// Clients, or the harness around them, record each operation when it is sent
// and when it ends. IDs are given in call order, so a replayed run records
// the same history:
//
//	h := check.NewHistory()
//	op := h.Call("controller-a", "server-2", check.Read("deployments/web"), w.Now())
//	... later, when the answer arrives:
//	h.Return(op, check.Found(3, 7), w.Now())      // read 3 at resourceVersion 7
//
// Writes are check.Write (unconditional), check.Create, check.Delete and the
// conditional check.UpdateIfVersion (Kubernetes' update with a
// resourceVersion precondition) or check.UpdateIfValue. A write ends with
// check.Acked(version), a definite failure with check.Fail(check.Conflict),
// check.Fail(check.NotFound), check.Fail(check.AlreadyExists) or
// check.Fail(check.Refused) (Unavailable or TooManyRequests known to have had
// no effect), and a timeout with h.Timeout(op, w.Now()): the operation is then
// indefinite, and may have taken effect at any later point, or never. An
// operation still pending at the end of the run counts as timed out.
//
// # Verdicts
//
// Every checker returns a *Violation, nil when the promise holds
// (Linearizable returns it in a Linearization, with what DrawHTML needs). A
// Violation names the contract clause it breaks, a short kebab-case name, a
// one-line story, the virtual time, the operations and servers involved and a
// multi-line Details, so a suite fills a suite.Failure from it and adds the
// seed and the replay command:
//
//	l := check.Linearizable(h, 0)              // clause 1: stale-read, stale-update, undecided, ...
//	if !l.OK() {
//		html, _ := suite.WriteDrawing(suite.OutputDir(), "ex04-seed-17", func(w io.Writer) error { return l.DrawHTML(w, faults) })
//		...
//	}
//	check.Durable(h, finalChanges)             // clause 2: lost-write
//	check.OneHistory(changesPerServer)         // clause 2: divergent-history
//	check.Converged(statePerServer, w.Now())   // clause 2: no-convergence
//
// A caller may set a different Clause on the returned Violation when its
// chapter frames the promise under another clause.
//
// # Linearizability
//
// Linearizable asks porcupine whether one order of all the operations,
// consistent with real time, explains every answer, for a key-value store
// with versions and compare-and-set. Keys are checked apart, which is exact
// and much faster. The search is bounded by wall-clock time (the one wall
// clock in the harness, and it only bounds the search); running out of it is
// the failure "undecided", never a pass. A failure is told from the longest
// order found: the first operation it could not take, and the earlier
// operation that operation contradicts:
//
//	stale-read at 412ms: controller-a read deployments/web=3 (rv 1) from server-2 at 412ms,
//	but server-1 had acknowledged deployments/web=5 (rv 2) to controller-b at 405ms
//
// Drawing is separate from checking: DrawHTML renders porcupine's HTML
// visualization, with the run's faults as annotations, into a writer. check
// never touches a disk: a suite writes the drawing to a file
// (the chapter runner, through suite.WriteDrawing).
//
// # No vacuous passes
//
// A run that tested nothing must not pass. Exercised fails ("vacuous-run")
// unless enough operations completed and a fault overlapped a client
// operation; Coverage counts exercised runs across the seeds of a randomized
// check and fails if too few were; a Monitor, which checks invariants after
// every step, fails if it was never stepped.
package check
