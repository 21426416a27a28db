# One History: the workbook's commands. `make help` lists them.

GO ?= go
SEED ?=
RUNS ?=
GRADER_FLAGS = $(if $(SEED),--seed $(SEED)) $(if $(RUNS),--runs $(RUNS))
CHAPTERS = ex01 ex02 ex03 ex04 ex05 ex06

.DEFAULT_GOAL := help
.PHONY: help grade test vet fmt-check bench $(CHAPTERS)

help: ## list the targets
	@echo "One History: a workbook on where \"the cluster\" lives."
	@echo
	@echo "  make grade        your progress: every chapter, per contract clause, with points"
	@echo "  make exNN         one chapter, told in full: make ex01 (SEED=42 replays, RUNS=1000 widens)"
	@echo "  make test         the workbook's own tests (harness, grader, solutions pass, stubs fail)"
	@echo "  make bench        simulation throughput and grader timings"
	@echo
	@echo "  go run ./grader hint ex01 | list | watch | reset ex01"

grade: ## the progress report (go run ./grader)
	$(GO) run ./grader $(GRADER_FLAGS)

$(CHAPTERS):
	$(GO) run ./grader $@ $(GRADER_FLAGS)

test: vet fmt-check ## the workbook's own tests
	$(GO) test $$($(GO) list ./... | grep -v '/exercises/')

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

bench: ## simulation throughput
	$(GO) test -run '^$$' -bench . -benchtime 2x ./internal/harness/sim/
