// Package workbook is the grader's view of a learner's checkout: where its
// root is, which files make up a chapter's stub, whether the learner has
// touched them, how to put the pristine stub back, and the small state the
// grader remembers between runs (which hint comes next) in .onehistory/ at
// the root, a folder git ignores.
//
//	wb, err := workbook.Find(".")        // walks up to the go.mod of module onehistory
//	files, _ := workbook.StubFiles(dir)  // "store.go" → its text
//	started := !workbook.Same(files, ch.Pristine())
//	backup, err := wb.Reset(ch, ch.Pristine()) // the learner's files are kept in .onehistory/backup/
//	level, err := wb.NextHint(ch.ID, 3)  // 1, then 2, then 3, then 3 again
package workbook
