// Package ex04suite is the hidden suite of chapter 4, "The write that arrived
// late": two API servers, each accepting writes and copying them to the
// other, and the promise that a write a client was told is accepted is
// readable everywhere a Latest read may go.
//
// Its checks, in the registry's order:
//
//   - story: the page's scene (Failure 01 of the source). deployments/web
//     has 3 replicas; a controller scales it to 5 through server-1, whose
//     link to server-2 takes 400ms each way; 5ms after the controller hears
//     yes, a dashboard gets and lists deployments through server-2. Both
//     reads must show 5, and server-2 must hold every write server-1 said
//     yes to (a creation answered before its copy is told there).
//   - acknowledged: a controller keeps scaling web through server-1; at a
//     moment of the seed's choosing server-1 is cut off from everyone and
//     dies for good. server-2, the survivor, must hold every write server-1
//     acknowledged: a server that says yes before the other has the change
//     (clause 3) loses it here, however carefully its reads wait. The
//     survivor must also answer the auditor's kube.Any reads: an Any read
//     never waits on a server that is gone.
//   - linearizable: first the read-index scenes (readindex.go), scripted:
//     a short cut of the servers' link loses the copy of one scale while a
//     dashboard's Latest read waits for it on the server left behind; a
//     second scale is applied on the writer's server alone (its copy lost
//     in a second cut, or waiting behind the lost one); a dashboard shown it
//     there then reads the server left behind, and must see it too; in a
//     third, the answer to the first dashboard's ReadIndex call is slow to
//     come back while that happens, and must not serve the second; in a
//     fourth the cut lasts seconds, longer than any call should wait; in a
//     fifth a second cut loses the lagging server's ReadIndex call, and
//     heals while the copy is still on its way. Then,
//     randomized: controllers write through one server, then through the
//     other, while dashboards get, list and read with kube.Any through both;
//     the servers' link slows to 300–400ms, and for a while loses and
//     repeats messages. Both servers must hold one history, nothing
//     acknowledged may be lost, and porcupine must find one order of every
//     Get and List.
//   - progress: the same clients over a link that loses half its messages
//     for a while, then is cut for 3-5s while the clients still reach both
//     servers. Every request must get a definite answer and both servers
//     must end with one history and the same objects: a cluster that stays
//     consistent by refusing, stalling, or copying once and never again
//     does not pass.
//
// Writers use one server at a time: two servers that both number writes at
// the same moment is the next failure of the pair (ex06), not this one.
//
// make seeds CH=ex04 prints the stub's and the solution's rates over 1000
// seeds and the wall time of 10,000.
package ex04suite
