// Package lab is the etcd lab (book/lab-etcd.md): a chaos drill of the
// shape ex03 asks for, run against real etcd clusters embedded in this
// process on loopback, arranged in four hidden configurations of which one
// keeps the contract and three break it.
//
// Real time has no seeds: the same drill against the same configuration
// may see the problem in one run and not the next. So the lab runs each
// configuration Runs times; a broken one counts as caught when the drill
// reports a finding in at least Needed of them, and the correct one must
// pass every run. What the drill's clients did is recorded whether or not
// the drill asked, and the workbook's own checker (check.Linearizable, etcd
// revisions standing for resourceVersions) tells the story of each run.
package lab

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"onehistory/internal/harness/check"
	"onehistory/labs/etcd/drill"
)

// Runs is how many times the lab runs each configuration, and Needed how
// many of those a broken one must be caught in.
const (
	Runs   = 3
	Needed = 2
)

// Limits that keep every run bounded: a drill's Run stops at RunLimit, and
// a drill that has not returned StuckAfter after it started is left behind
// (its cluster is torn down under it) and reported stuck.
const (
	RunLimit   = 10 * time.Second
	StuckAfter = RunLimit + 5*time.Second
)

// stuckAfter is StuckAfter; the lab's tests shorten it.
var stuckAfter = StuckAfter

// Drill is a chaos drill: a finding (an error) for a configuration that
// broke the contract, nil for one that kept it.
type Drill func(c *drill.Cluster) error

// Options tune a lab run.
type Options struct {
	Runs    int      // runs per configuration (Runs if zero)
	Only    []string // configurations to run, by name (all if empty)
	HTMLDir string   // where to draw the history of each run the checker fails ("" draws none)
}

// Run is one run of a drill against one configuration.
type Run struct {
	N        int
	Finding  error // what the drill returned
	LabError error // the lab could not run it: no cluster
	// DrillError: the drill itself did not run properly: it panicked, never
	// called Run, left clients running, or did not return in time.
	DrillError error
	Activity   drill.Activity
	Faults     []check.Fault
	Check      *check.Linearization // the workbook's checker on the whole history
	HTML       string               // its drawing, if written
	Took       time.Duration        // start to teardown
}

// ConfigResult is every run of one configuration and what they add up to.
type ConfigResult struct {
	Config Config
	Runs   []Run
}

// Findings counts the runs in which the drill reported a finding.
func (r ConfigResult) Findings() int {
	n := 0
	for _, run := range r.Runs {
		if run.Finding != nil && run.LabError == nil && run.DrillError == nil {
			n++
		}
	}
	return n
}

// LabErrors lists the runs the lab could not carry out.
func (r ConfigResult) LabErrors() []error {
	var out []error
	for _, run := range r.Runs {
		if run.LabError != nil {
			out = append(out, fmt.Errorf("run %d: %w", run.N, run.LabError))
		}
	}
	return out
}

// DrillErrors lists the runs in which the drill did not run properly.
func (r ConfigResult) DrillErrors() []error {
	var out []error
	for _, run := range r.Runs {
		if run.DrillError != nil && run.LabError == nil {
			out = append(out, fmt.Errorf("run %d: %w", run.N, run.DrillError))
		}
	}
	return out
}

// Right reports whether the drill judged the configuration right: caught in
// at least Needed runs (scaled to the runs made) if broken, never if not.
func (r ConfigResult) Right() bool {
	if len(r.LabErrors()) > 0 || len(r.DrillErrors()) > 0 {
		return false
	}
	if r.Config.Broken {
		return r.Findings() >= needed(len(r.Runs))
	}
	return r.Findings() == 0
}

// needed is Needed of Runs, scaled: 2 of 3, 1 of 1, 4 of 5.
func needed(runs int) int { return (runs*Needed + Runs - 1) / Runs }

// Report is a whole lab run.
type Report struct {
	Results []ConfigResult
	Took    time.Duration
}

// Right reports whether the drill judged every configuration right.
func (r Report) Right() bool {
	for _, c := range r.Results {
		if !c.Right() {
			return false
		}
	}
	return true
}

// LabErrors lists every run the lab could not carry out.
func (r Report) LabErrors() []error {
	var out []error
	for _, c := range r.Results {
		for _, err := range c.LabErrors() {
			out = append(out, fmt.Errorf("%s: %w", c.Config.Name, err))
		}
	}
	return out
}

// DrillErrors lists every run in which the drill did not run properly.
func (r Report) DrillErrors() []error {
	var out []error
	for _, c := range r.Results {
		for _, err := range c.DrillErrors() {
			out = append(out, fmt.Errorf("%s: %w", c.Config.Name, err))
		}
	}
	return out
}

// RunLab runs d against every configuration (or those opt names), one run
// at a time, and returns what happened.
func RunLab(d Drill, opt Options) Report {
	start := time.Now()
	runs := opt.Runs
	if runs <= 0 {
		runs = Runs
	}
	var rep Report
	for _, cfg := range Configs() {
		if len(opt.Only) > 0 && !contains(opt.Only, cfg.Name) {
			continue
		}
		res := ConfigResult{Config: cfg}
		for n := 1; n <= runs; n++ {
			res.Runs = append(res.Runs, runOnce(cfg, d, n, opt.HTMLDir))
		}
		rep.Results = append(rep.Results, res)
	}
	rep.Took = time.Since(start)
	return rep
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// runOnce starts cfg, runs d against it, tears it down, and checks the
// history.
func runOnce(cfg Config, d Drill, n int, htmlDir string) (run Run) {
	run.N = n
	start := time.Now()
	defer func() { run.Took = time.Since(start) }()
	r, err := cfg.start()
	if err != nil {
		run.LabError = err
		return run
	}
	c := drill.New(r.servers, r.faults, RunLimit)
	type result struct{ err, panicked error }
	out := make(chan result, 1)
	go func() {
		var res result
		defer func() {
			if p := recover(); p != nil {
				res.panicked = fmt.Errorf("the drill panicked: %v", p)
			}
			out <- res
		}()
		res.err = d(c)
	}()
	stuck := time.NewTimer(stuckAfter)
	select {
	case res := <-out:
		run.Finding, run.DrillError = res.err, res.panicked
	case <-stuck.C:
		run.DrillError = fmt.Errorf("the drill had not returned %s after it started", stuckAfter)
	}
	stuck.Stop()
	r.stop()
	if ran, err := c.Ran(); run.DrillError == nil && !ran {
		run.DrillError = errors.New("the drill never called Run: it looked at nothing")
	} else if run.DrillError == nil && err != nil && errors.Is(run.Finding, err) {
		run.DrillError = err // Run failed: not a finding about the cluster
	}
	run.Activity = c.Activity()
	run.Faults = c.Faults()
	run.Check = check.Linearizable(c.History(), 0)
	if htmlDir != "" && !run.Check.OK() {
		name := fmt.Sprintf("lab-etcd-%s-run-%d", cfg.Name, n)
		if path, err := writeHTML(htmlDir, name, run.Check, run.Faults); err == nil {
			run.HTML = path
		}
	}
	return run
}

// writeHTML writes the drawing of l, with faults as annotations, to
// dir/name.html, creating dir if needed, and returns its path.
func writeHTML(dir, name string, l *check.Linearization, faults []check.Fault) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name+".html")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	err = l.DrawHTML(f, faults)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, err
}

// OutputDir is the workbook's .onehistory folder, found from the working
// directory upwards, or the system's temporary folder.
func OutputDir() string {
	dir, err := os.Getwd()
	for err == nil {
		if b, rerr := os.ReadFile(filepath.Join(dir, "go.mod")); rerr == nil && strings.HasPrefix(string(b), "module onehistory\n") {
			return filepath.Join(dir, ".onehistory")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return os.TempDir()
}
