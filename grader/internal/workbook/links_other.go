//go:build !unix

package workbook

import "io/fs"

// hardLinks is 1 here: the file's information does not say how many names
// it has, so a hard link to a file elsewhere is copied like any file.
func hardLinks(fi fs.FileInfo) uint64 { return 1 }
