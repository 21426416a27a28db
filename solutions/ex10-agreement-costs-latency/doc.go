// Package ex10 is chapter 10 of One History, "Agreement costs latency": the
// replicated log of chapter 8, over links of 400ms each way, and how many
// writes can share the round trip that agreement costs.
//
// Read book/ex10-agreement-costs-latency.md first, then run
//
//	make ex10
//
// to watch four controllers write twenty changes in a burst. Every write is
// agreed by a majority before its client hears yes, as it must be; and every
// write waits for the one before it, so the burst takes twenty round trips.
//
// Your work is in leader.go, at the TODO(ex10) comment: let writes share
// syncs and round trips (batching) and let the log go out without waiting
// for the answer to the last batch (pipelining), while each write is still
// acknowledged only once a majority of the servers hold it on their disks.
// server.go (the followers, the reads, the heartbeat), log.go (the log on
// disk) and history.go (the changes, applied) need no change.
package ex10
