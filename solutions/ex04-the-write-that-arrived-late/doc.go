// Package ex04 is the reference solution of chapter 4 of One History, "The
// write that arrived late" (book/ex04-the-write-that-arrived-late.md).
//
// Two rules make the two copies behave as one history:
//
//   - The Primary acknowledges a write only once server-2 has applied it:
//     "accepted" means readable on both servers.
//   - server-2 answers a Latest read only once its copy has caught up with
//     what server-1 had applied when the read arrived (a read index, as etcd
//     serves linearizable reads and as kube-apiserver serves consistent reads
//     from its watch cache). The first rule is not enough without it:
//     server-1 shows a write to its own readers before server-2 has it.
package ex04
