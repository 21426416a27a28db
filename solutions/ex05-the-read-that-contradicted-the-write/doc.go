// Package ex05 is the reference solution of chapter 5 of One History, "The
// read that contradicted the write" (book/ex05-the-read-that-contradicted-the-write.md).
//
// The controller reads the deployment and its pods with kube.Latest, through
// the one history: every count it acts on shows every write the history
// acknowledged before it asked, its own and the other controller's, so no
// read it acts on contradicts a write. That is the chapter's fix.
//
// Two controllers whose reads are both current can still act on the same
// shortfall at once, a question the book leaves open (versioned truth, a
// single leader). The solution makes that race harmless: every pod has a
// name two controllers making the same decision would both choose (web-0,
// web-1, ...), so a create is a write conditional on "this name is not
// taken": of two controllers that both decide web-3 is missing, exactly one
// succeeds and the other is told AlreadyExists. Deletes are conditional on
// the resourceVersion the controller listed.
package ex05
