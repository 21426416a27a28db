// Package ex06suite is the hidden suite of chapter 6, "Both servers say
// yes". It runs the learner's API server as server-1 and server-2 of
// simulated clusters, has clients write through both at once, and then asks
// every server for its history.
//
// The chapter (chapter, in suite.go) declares its worlds and, for each check
// in the registry's order, the worlds it plays and its judges, in order:
//
//   - story: the book's scene (Failure 03 of the source). controller-a
//     scales deployments/web to 5 through server-1 while controller-b scales
//     it to 2 through server-2, over the story's slow link.
//   - one-history: three controllers write through either server (gets,
//     conditional and unconditional scales, creations and deletions, bursts,
//     over nine objects, so that a design ordering by object orders on both)
//     while the servers' link slows down, loses and repeats messages, and is
//     cut for longer than a call to the other server waits; in one world of
//     four the sequencer is lost for good during the cut (workload.go).
//   - linearizable: the same with readers that get, list and read with
//     kube.Any through both servers; then the own-copy scenes (owncopy.go):
//     a change decided on server-1 while its copy to server-2 is slow, seen
//     through server-1, and then a creation, deletion or conditional scale
//     through server-2 that its own copy would refuse; and the peer-down
//     scene (owncopy.go): server-1 shows a reader a change whose copy a cut
//     lost, then crashes for good, and Latest reads reach server-2, whose
//     copy lacks it and which cannot learn how far server-1 got.
//
// The servers' histories are read the way any client would: a watch of
// deployments from resourceVersion 0, sent to each server (this workbook's
// servers replay their whole history for it; see the chapter's history.go).
//
// make seeds CH=ex06 prints the stub's and the solution's rates over 1000
// seeds and the wall time of 10,000.
package ex06suite
