# ragcard — two commands on a fresh machine:
#   make demo   installs ragcard and evaluates the reference agent on the bundled handbook
#   make test   installs the test tools and runs tests + ruff + mypy (all three, even when one fails)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo demo-persona install dev test lint bench bench-judges fuzz-inputs clean shipped

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install -q -e .

dev: $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'

# Exit code 1 means the decision was HOLD: the demo still succeeded in producing a scorecard.
# Its eval record (about 1.7 MB a run) goes under out/ with the rest of the demo's output, not
# into examples/handbook/eval/: the examples stay as shipped however often the demo runs, and
# `make clean` removes it all.
demo: install
	$(BIN)/ragcard run examples/handbook --fresh --out out/handbook --eval-dir out/handbook-eval; \
	  rc=$$?; [ $$rc -le 1 ]

# The shipped run the GitHub workflow gates against (.github/workflows/ragcard.yml): rerun it
# when a change to the agent, judge or scoring is meant to move the results, and commit it.
shipped: install
	rm -rf examples/handbook/shipped
	mkdir -p out
	$(BIN)/ragcard run examples/handbook --fresh --no-progress --out examples/handbook/shipped \
	  --eval-dir out/shipped-eval --db sqlite:///out/shipped-history.sqlite; rc=$$?; [ $$rc -le 1 ]
	rm -f examples/handbook/shipped/run.json

demo-persona: install
	$(BIN)/ragcard run examples/persona --fresh --out out/persona --eval-dir out/persona-eval; \
	  rc=$$?; [ $$rc -le 1 ]

lint: dev
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy

# Lint and types run even when a test fails (a newcomer sees every problem in one go); the
# target still fails when any of the three does.
test: dev
	@rc=0; \
	$(BIN)/pytest || rc=1; \
	$(BIN)/ruff check src tests benchmarks || rc=1; \
	$(BIN)/mypy || rc=1; \
	exit $$rc

# The input fuzzer's full mix (also run by .ci/run): 0 tracebacks, hangs and garbage accepted.
fuzz-inputs: dev
	$(BIN)/python tests/chaos/fuzz_inputs.py

bench: $(BIN)/python
	$(BIN)/pip install -q -e '.[dev,bench]'
	$(BIN)/python benchmarks/bench_retrieval.py
	$(BIN)/python benchmarks/bench_runner.py
	$(BIN)/python benchmarks/bench_score.py

# Judges: quality on WiCE/BEGIN/FaithBench (../shared/data), cost against Ragas (.venv-ragas),
# the local judge's acceptance fixture. Needs llama-cpp-python and the models (see
# benchmarks/README.md); ~20-30 min on 2 cores, so not part of `bench`.
bench-judges: $(BIN)/python
	$(BIN)/pip install -q -e '.[dev,bench]'
	nice -n 10 $(BIN)/python benchmarks/bench_judges.py
	nice -n 10 $(BIN)/python benchmarks/accept_local_judge.py

clean:
	rm -rf out examples/*/out examples/*/eval .pytest_cache .mypy_cache .ruff_cache
