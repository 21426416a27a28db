// Package ex04suite is the hidden suite of chapter 4, "The write that arrived
// late": two API servers, server-1 ordering the writes, and the promise that
// once any client has been told a write succeeded, no Latest read on either
// server returns an older value.
//
// Its checks, in the registry's order:
//
//   - story: the page's scene. deployments/web has 3 replicas; a controller
//     scales it to 5 on server-1 over a 400ms replication link; 5ms after the
//     acknowledgement a dashboard reads server-2. It must read 5.
//   - randomized: two controllers and two dashboards on both servers, link
//     delays up to 400ms and a window in which the link between the servers
//     is at its slowest; porcupine must find one history. The first failing
//     seed is told with its timeline and porcupine's HTML visualization.
//   - progress: without a slow window, every request gets a definite answer
//     and both servers end with the same objects. A server that refuses or
//     stalls everything is trivially free of stale reads; this check is why
//     it does not pass.
//
// Figures (go1.26, 2 cores): the reference solution passes every seed of
// RUNS=1000; the pristine stub fails the story and RUNS=1000 of the
// randomized check with stale-read on every seed; the whole suite with its
// default seeds takes well under a second of wall time.
package ex04suite
