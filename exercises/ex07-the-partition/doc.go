// Package ex07 is chapter 7 of One History, "The partition": ex06's cluster
// grown to three servers, and a network that splits it.
//
// Read book/ex07-the-partition.md first, then run
//
//	make ex07
//
// to watch the split: server-3 is cut off from server-1 (the sequencer) and
// server-2. controller-a scales deployments/web to 5 through server-1 while
// controller-b, on server-3's side, scales it to 2. server-3 hears nothing
// from the sequencer, orders the write itself, and says yes. Both sides
// said yes; after the heal they hold two histories, forever.
//
// Your work is in server.go, at the TODO(ex07) comments. A client may hear
// yes only once a majority of the servers (2 of 3; 3 of 4) hold its write in
// the one order. A server that cannot get a majority answers writes and
// Latest reads with kube.Unavailable, within 1 s of the request as the
// client measures it (a client is 2–20 ms from its server); it never hangs
// and never guesses. Any reads (ResourceVersion "0") are still answered from
// the server's own copy, stale if need be. After a heal, a server that
// missed changes catches up to the one history. history.go, one server's
// copy of the history, needs no change.
package ex07
