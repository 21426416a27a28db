// Package ex02 is the store behind the apiserver of chapter ex02, "The 2:14
// a.m. page" (book/ex02-the-page.md).
//
// As shipped, Store keeps the whole cluster in memory: every change is
// accepted, numbered and acknowledged, and nothing of it outlives the
// process. When the apiserver crashes at 02:14 and is restarted at 02:18,
// Open starts from an empty cluster, and the controllers act on that
// emptiness. (The real apiserver keeps nothing of its own: its state lives
// in etcd, on disk, and at 02:18 it came back whole. This stub is what the
// page would have become without a disk behind the server.)
//
// Your task: make every acknowledged change survive a crash. Write each
// change to a log on the node's disk and sync it before the change is
// applied or acknowledged (commit), and read the log back when the node
// boots (Open), recognising a last record that the crash cut short. The
// lines to change are marked TODO(ex02). Run the chapter with
//
//	make ex02
package ex02
