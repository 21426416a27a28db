// Command lab-etcd runs a chaos drill against the etcd lab's four
// configurations of real etcd (book/lab-etcd.md) and tells what it found.
//
//	go run ./cmd/lab-etcd                   your drill (labs/etcd/exercise)
//	go run ./cmd/lab-etcd -drill solution   the reference drill
//	go run ./cmd/lab-etcd -only mirror -runs 5
//
// It exits 0 when the drill judged every configuration right, 1 when it did
// not, and 2 when the lab itself could not run.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"onehistory/labs/etcd/exercise"
	"onehistory/labs/etcd/lab"
	"onehistory/labs/etcd/solution"
)

func main() {
	which := flag.String("drill", "exercise", "the drill to run: exercise (yours) or solution")
	runs := flag.Int("runs", lab.Runs, "runs per configuration")
	only := flag.String("only", "", "comma-separated configurations to run (default all)")
	flag.Parse()

	drills := map[string]lab.Drill{"exercise": exercise.Drill, "solution": solution.Drill}
	d, ok := drills[*which]
	if !ok {
		fmt.Fprintf(os.Stderr, "lab-etcd: no drill %q: exercise or solution\n", *which)
		os.Exit(2)
	}
	opt := lab.Options{Runs: *runs, HTMLDir: lab.OutputDir()}
	if *only != "" {
		opt.Only = strings.Split(*only, ",")
	}
	rep := lab.RunLab(d, opt)
	rep.Write(os.Stdout)
	switch {
	case len(rep.LabErrors()) > 0:
		os.Exit(2)
	case !rep.Right():
		os.Exit(1)
	}
}
