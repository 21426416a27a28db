//go:build !unix

package main

import "io"

// terminalWidth is 0 where the grader cannot ask the terminal: timelines
// then keep the widths the suites give them, or COLUMNS if it is set.
func terminalWidth(io.Writer) int { return 0 }
