// Package ex04suite is the hidden suite of chapter 4, "The write that arrived
// late": two API servers, each accepting writes and copying them to the
// other, and the promise that a write a client was told is accepted is
// readable everywhere a Latest read may go.
//
// The chapter (chapter, in suite.go) declares its worlds and, for each check
// in the registry's order, the worlds it plays and its judges, in order:
//
//   - story: the page's scene (Failure 01 of the source). deployments/web
//     has 3 replicas; a controller scales it to 5 through server-1, whose
//     link to server-2 takes 400ms each way; 5ms after the controller hears
//     yes, a dashboard gets and lists deployments through server-2.
//   - acknowledged: a controller keeps scaling web through server-1; at a
//     moment of the seed's choosing server-1 is cut off from everyone and
//     dies for good. server-2, the survivor, must hold every write server-1
//     acknowledged (a yes before the other server has the change breaks
//     clause 3), and answer the auditor's kube.Any reads, which never wait
//     on a server that is gone.
//   - linearizable: first the read-index scenes (readindex.go), scripted
//     interleavings a randomized world meets about once in a few hundred
//     seeds; then randomized worlds (workload.go): controllers write through
//     one server, then through the other, while dashboards get, list and
//     read with kube.Any through both; the servers' link slows to
//     300–400ms, and for a while loses and repeats messages; then the
//     peer-down scene (readindex.go): the writer's server shows a reader a
//     change whose copy a cut lost, then crashes for good, and Latest reads
//     reach the other server, whose copy lacks it. Every yes must name its
//     write's place in the one history (scene.MisnumberedYes) before
//     porcupine judges the order.
//   - progress: the same clients over a link that loses half its messages
//     for a while, then is cut for 3-5s while the clients still reach both
//     servers: a cluster that stays consistent by refusing, stalling, or
//     copying once and never again does not pass.
//
// Writers use one server at a time: two servers that both number writes at
// the same moment is the next failure of the pair (ex06), not this one.
//
// make seeds CH=ex04 prints the stub's and the solution's rates over 1000
// seeds and the wall time of 10,000.
package ex04suite
