package main

import "os"

func main() {
	if vetTool(os.Args[1:]) {
		vetToolMain()
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
