// Package ex02 is the reference solution of chapter ex02, "The 2:14 a.m.
// page" (book/ex02-the-page.md): the apiserver's store with a write-ahead
// log.
//
// Every change is framed, appended to the log on the node's disk and synced
// before it is applied or acknowledged (commit). At boot, Open reads the log
// back and applies every whole record in order; the first record that is
// short or fails its checksum is where the last crash cut the log, and is
// cut off the file.
package ex02
