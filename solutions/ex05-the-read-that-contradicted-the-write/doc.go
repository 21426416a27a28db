// Package ex05 is the reference solution of chapter 5 of One History, "The
// read that contradicted the write" (book/ex05-the-read-that-contradicted-the-write.md).
//
// The controllers still read views that may disagree; what changes is that
// no write takes effect on a view that was wrong. Every pod has a name two
// controllers making the same decision would both choose (web-0, web-1,
// ...), so a create is a write conditional on "this name is not taken"
// (resourceVersion 0): of two controllers that both decide web-3 is missing,
// exactly one succeeds and the other is told AlreadyExists. Deletes are
// conditional on the resourceVersion the controller read. The desired count
// is read with kube.Latest, so a controller never creates for a replica
// count the history has already left behind.
package ex05
