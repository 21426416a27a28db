# One History: the workbook's commands. `make help` lists them.

GO ?= go
SEED ?=
RUNS ?=
# The grader is built into bin/ (cached, a fraction of a second) rather than
# run with go run, which adds its own "exit status 1" line to every failure.
GRADER = $(GO) build -o bin/grader ./grader && GO=$(GO) bin/grader
GRADER_FLAGS = $(if $(SEED),--seed $(SEED)) $(if $(RUNS),--runs $(RUNS)) $(if $(WIDE),--wide)
# Every chapter with an exercise folder, and the six the course starts with.
CHAPTERS := $(sort ex01 ex02 ex03 ex04 ex05 ex06 \
	$(foreach d,$(wildcard exercises/ex[0-9]*-*),$(firstword $(subst -, ,$(notdir $(d))))))
# The learner's exercise folders are theirs: vet and gofmt look at them only
# in CI, where they hold the stubs as shipped.
PACKAGES = $$($(GO) list ./... | grep -v '/exercises/')
VET_EXTRA = $(if $(CI),$(if $(wildcard exercises/*),./exercises/...))

# When the grader has said what failed, make has nothing to add: for a run
# of grading goals only (make grade, make ex01 ex02), make runs in question
# mode (-q), where a recipe line marked + still runs and a failure ends make
# with status 1 and no "*** [Makefile:NN: ex01] Error 1" line of its own.
# make -n (print what would run, run nothing) keeps make's ordinary mode:
# there a line marked + would run all the same.
#
# The status through make is 0 or 1. The grader ends with 2 when it could
# not run at all (a mistyped SEED, no go command), and says why in one line;
# GNU make cannot end with status 2 without adding its own error line, so a
# grading goal ends with 1 there too (GRADED). The grader run directly
# (bin/grader, go run ./grader) keeps its 2.
GRADING_GOALS = grade $(CHAPTERS)
DRY_RUN := $(findstring n,$(firstword -$(MAKEFLAGS)))
ifneq ($(MAKECMDGOALS),)
ifeq ($(filter-out $(GRADING_GOALS),$(MAKECMDGOALS)),)
ifeq ($(DRY_RUN),)
MAKEFLAGS += -q
GRADING = +
endif
endif
endif
GRADED = || exit 1

.DEFAULT_GOAL := help
.PHONY: help grade test vet fmt-check bench bench-grader seeds mutants generate lab-etcd test-lab-etcd $(CHAPTERS)

help: ## list the targets
	@echo "One History: a workbook on where \"the cluster\" lives."
	@echo
	@echo "  make grade        your progress: every chapter, per contract clause, with points"
	@echo "  make exNN         one chapter, told in full: make ex01 (SEED=42 replays, RUNS=1000 widens, WIDE=1 unwraps timelines)"
	@echo "  make test         the workbook's own tests (harness, grader, solutions pass, stubs fail)"
	@echo "  make bench        simulation throughput and grader timings"
	@echo "  make lab-etcd     your ex03 drill against a real three-member etcd (labs/etcd, needs Go $(LAB_ETCD_GO))"
	@echo "  make seeds        (course authors) stub failure and solution pass rates per seed, N=1000"
	@echo "  make mutants      (course authors) which deliberate mistakes each suite catches: CH=ex01 for one"
	@echo
	@echo "  go run ./grader hint ex01 | list | watch | reset ex01 | help"
	@echo "  make generate     (course authors) rewrite thin test files, refresh the pristine stubs, refill the book's captures"

grade: ## the progress report (go run ./grader)
	$(GRADING)@$(GRADER) $(GRADER_FLAGS) $(GRADED)

$(CHAPTERS):
	$(GRADING)@$(GRADER) $@ $(GRADER_FLAGS) $(GRADED)

# go test covers the harness, the grader's scripts, and, through the grader's
# engine, every pristine stub failing with its named failure and every
# solution passing (grader/workbook_test.go).
test: vet fmt-check ## the workbook's own tests
	$(GO) test -timeout 30m $(PACKAGES)
	@$(MAKE) --no-print-directory test-lab-etcd

# The etcd lab is a module of its own (labs/etcd) that needs a newer Go than
# the workbook. GOTOOLCHAIN=local: never download a toolchain for it.
LAB_ETCD_GO := $(shell sed -n 's/^go //p' labs/etcd/go.mod)
LAB_GO = GOTOOLCHAIN=local $(GO)

lab-etcd: ## the ex03 drill against a real three-member etcd (DRILL=solution for the reference)
	@cd labs/etcd && $(LAB_GO) build -o ../../bin/lab-etcd ./cmd/lab-etcd && ../../bin/lab-etcd $(if $(DRILL),-drill $(DRILL))

# make test runs the lab's tests when the Go in use is new enough, and says
# so plainly when it is not.
test-lab-etcd:
	@have=$$($(LAB_GO) env GOVERSION); need=go$(LAB_ETCD_GO); \
	if [ "$$(printf '%s\n%s\n' "$$need" "$$have" | sort -V | head -n1)" != "$$need" ]; then \
		echo "make test: skipped the etcd lab (labs/etcd): it needs $$need or newer, and this go is $$have"; \
	else \
		echo "make test: the etcd lab (labs/etcd) with $$have"; \
		cd labs/etcd && $(LAB_GO) vet ./... && $(LAB_GO) test ./...; \
	fi

vet:
	$(GO) vet $(PACKAGES) $(VET_EXTRA)

fmt-check:
	@out=$$(gofmt -l $$( (git ls-files '*.go' 2>/dev/null || find . -name '*.go') | grep -v $(if $(CI),'^$$','^exercises/'))); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

generate: ## rewrite the thin test files, refresh the pristine stubs, refill the book's captures
	$(GO) generate ./internal/harness/course
	$(GO) run ./grader/internal/captures/gen

bench: bench-grader ## simulation throughput and grader timings
	$(GO) test -run '^$$' -bench . -benchtime 10x ./internal/harness/sim/

bench-grader: ## warm make exNN and whole-grader wall times
	@GO=$(GO) grader/bench.sh

# On a fresh clone (exercises/ as shipped): each seed replayed on its own.
seeds: ## stub failure and solution pass rates, seed by seed, and 10,000-seed breadth
	@GO=$(GO) grader/seeds.sh $(CH)

# Each mutant in mutants/exNN/ applied to a copy of the solution and graded.
mutants: ## which deliberate mistakes each hidden suite catches, and with which failure
	@$(GO) build -o bin/mutants ./grader/mutants && GO=$(GO) bin/mutants $(CH)
