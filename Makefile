# Two entry points for a fresh machine with Python 3.11: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test test-cluster compile lint typecheck unit nojit notebooks fuzz bench clean rules-doc styles-doc docs study-docs

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-base: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev,train,study,ray,video,clients,docs,web,browser]'
	touch $@ $(VENV)/.installed-base $(VENV)/.installed-docs

$(VENV)/.installed-docs: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[docs]'
	touch $@ $(VENV)/.installed-base

$(VENV)/.installed-study: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[study]'
	touch $@ $(VENV)/.installed-base

$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[bench]'
	touch $@ $(VENV)/.installed-base

## demo: set up and run the default house-rules study (report and plots under runs/)
demo: $(VENV)/.installed-study
	@echo "make demo: the default house-rules study (uno-env study): 12 variations of official Uno, 2 and 4"
	@echo "players, the 7 play styles of the default field; the first run compiles the engine once, with a progress line every"
	@echo "few seconds (README.md, Timings: the measured times). The report and plots land in"
	@echo "runs/study__default__0__<time>/ (report.md); progress is on stderr."
	$(BIN)/uno-env compile batch  # what the study runs on, compiled with visible progress
	$(BIN)/uno-env study

## test: set up and run linters, type checks, the docs build and the whole test suite
test: $(VENV)/.installed-dev compile lint typecheck docs unit nojit notebooks

## compile: compile every entry point of the engine into the cache, with progress
compile: $(VENV)/.installed-base
	$(BIN)/uno-env compile

lint:
	$(BIN)/ruff check uno_env agents training tests benchmarks examples setup.py
	$(BIN)/ruff format --check uno_env agents training tests benchmarks examples setup.py

typecheck:
	$(BIN)/mypy
	$(BIN)/mypy benchmarks examples

unit:
	$(BIN)/pytest -n 2 --dist loadgroup -q --durations=20

## test-cluster: the Ray cluster tests that start, kill and replace nodes of a loopback cluster
## (make test runs the page's study and sweep and the failure lines on one; these add about 2 min)
test-cluster: $(VENV)/.installed-dev compile
	$(BIN)/pytest -q -m cluster tests/test_cluster.py

# the notebooks, run end to end on tiny specs
notebooks:
	$(BIN)/pytest -q --nbmake notebooks

# the rule scenarios once more with the engine uncompiled (NUMBA_DISABLE_JIT=1)
nojit:
	NUMBA_DISABLE_JIT=1 $(BIN)/pytest -q -n 2 tests/test_rules_uno.py tests/test_rules_uno_edges.py tests/test_rules_house.py \
		tests/test_rules_french.py tests/test_rules_mario_maumau_edges.py tests/test_rules_macao_edges.py \
		tests/test_rules_combinations.py \
		tests/test_position.py tests/test_position_validation.py \
		tests/test_agents_styles.py tests/test_borrow.py \
		tests/test_fast_path.py::test_bit_counting tests/test_fast_path.py::test_held_faces_follow_parsing_and_swaps

## fuzz: thousands of mutated and extreme-field positions and hostile policy files, each in a
## child process with a timeout (a crash or a hang fails); not part of make test
fuzz: $(VENV)/.installed-dev
	$(BIN)/pytest -q -m fuzz tests/test_position_fuzz.py tests/test_policy_fuzz.py

## docs: build the documentation site into site/ (strict: a broken link or reference fails)
docs: $(VENV)/.installed-docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

## study-docs: run the default study and store it in docs/study-default, quoting its answer in the
## README and docs/study.md (what tests/test_study_published.py checks against the current code)
study-docs: $(VENV)/.installed-study
	out=$$(mktemp -d)/study && $(BIN)/uno-env study --out $$out && $(BIN)/python -m training.study.publish $$out

## rules-doc: regenerate docs/rules.md (from uno_env/game/rule_reference.toml) and docs/rule-switches.md
## (from docs/rule-switches.md.in and the RuleSet fields)
rules-doc: $(VENV)/.installed-base
	$(BIN)/python -m uno_env.game.reference docs/rules.md docs/rule-switches.md.in docs/rule-switches.md

## styles-doc: regenerate the style table of docs/agents.md (from uno_env.styles.registry)
styles-doc: $(VENV)/.installed-base
	$(BIN)/python -m uno_env.styles.doc docs/agents.md

## bench: engine speed against RLCard and OpenSpiel (installs the bench extra)
bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/bench_engine.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache site
