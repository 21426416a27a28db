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
// Figures (go1.26, 2 cores), measured per seed with SEED=1..1000:
//
//   - the reference solution passes all three checks on every one of
//     RUNS=1000 seeds (about 5s of wall time for the 3,000 worlds);
//   - the pristine stub fails story with stale-read on 1000/1000 seeds and
//     randomized with stale-read on 998/1000 (seeds 626 and 914 happen to
//     read server-2 only when it has caught up); it passes progress, which
//     guards against refusing, not against staleness;
//   - a server that replicates synchronously but leaves reads local passes
//     story and fails randomized (seed 1): a dashboard reads 12 on server-1,
//     then another reads 3 on server-2; the primary showed the change to its
//     own readers before server-2 had it;
//   - go test ./solutions/ex04-the-write-that-arrived-late/ with the default
//     seeds (5 story, 100 randomized, 50 progress): about 0.5s of wall time.
package ex04suite
