// Command gen refills the book's captures (see package captures) from fresh
// runs of the chapters' hidden suites, and prints one line per page it
// changes. `make generate` runs it:
//
//	go run ./grader/internal/captures/gen
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"onehistory/grader/internal/captures"
	"onehistory/grader/internal/workbook"
)

func main() {
	if err := generate(); err != nil {
		fmt.Fprintln(os.Stderr, "captures:", err)
		os.Exit(1)
	}
}

func generate() error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	wb, err := workbook.Find(wd)
	if err != nil {
		return err
	}
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	if goCmd, err = exec.LookPath(goCmd); err != nil {
		return err
	}
	pages, err := captures.Generate(context.Background(), captures.Options{Root: wb.Root, Go: goCmd, Env: os.Environ()})
	if err != nil {
		return err
	}
	written, err := captures.Write(pages)
	for _, file := range written {
		fmt.Println("captures: writing", captures.Rel(wb.Root, file))
	}
	return err
}
