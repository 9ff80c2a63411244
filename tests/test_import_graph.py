"""The import graph has no cycles, and imports inside functions are the few deferred ones.

Read from the source (:mod:`tests.import_graph`): an import inside a function counts as an
edge, so a cycle cannot hide behind one. Imports inside functions are kept for what a plain
``import uno_env`` (or a command's start-up) should not pay for: optional dependencies
(extras such as Torch, Stable-Baselines3, Ray, Matplotlib) and the RL stack that
``uno_env.envs`` loads on first use; ``docs/architecture.md`` gives their count, checked here.
"""

from __future__ import annotations

import re

from tests.import_graph import REPO_ROOT, cycles, function_level_imports, project_graph


def test_uno_env_has_no_import_cycle() -> None:
    graph = project_graph(("uno_env",))
    assert len(graph) > 40
    assert cycles(graph) == []


def test_agents_have_no_import_cycle() -> None:
    assert cycles(project_graph(("agents",))) == []


def test_training_has_no_import_cycle() -> None:
    """The command line, the shared options, the run folder and the Ray side, evaluation and
    the opponent pools import one way; so do the study, the sweep and the transfer matrix (the
    sweep reads the study's spec fields, the study reads a named sweep's runs above both), and
    the atlas's spec, plan, run and report."""
    graph = project_graph(("training",))
    assert len(graph) > 40
    assert cycles(graph) == []
    assert not graph["training.common"] & {"training.cli", "training.play", "training.evaluate"}
    assert "training.runner" not in graph["training.cluster"]
    assert "training.evaluate" not in graph["training.pool"]
    assert not graph["training.study.spec"] & {"training.sweep", "training.study.planning"}
    assert "training.study" not in graph["training.transfer"] | graph["training.sweep"]
    assert "training.atlas.spec" not in graph["training.atlas.planning"]
    assert "training.atlas.run" not in graph["training.atlas.report"]


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_imports_inside_functions() -> None:
    """An import inside a function is an edge: ``uno_env.envs.vector`` imports the SB3 wrapper
    only when asked for it."""
    graph = project_graph(("uno_env",))
    assert "uno_env.envs.sb3" in graph["uno_env.envs.vector"]


def test_uno_env_imports_nothing_of_its_own_inside_functions() -> None:
    """Inside ``uno_env`` an import in a function is for a library only, never for a module of
    the package: those are imported at the top, where the import graph shows them (the env
    package's lazy names aside: ``uno_env/__init__.py`` and ``uno_env/envs/__init__.py`` load
    the environments, and with them Gymnasium and PettingZoo, on first use)."""
    lazy_loaders = {"uno_env", "uno_env.envs"}
    optional = {("uno_env.envs.vector", "uno_env.envs.sb3")}  # needs stable-baselines3 (train extra)
    own = sorted(
        f"{i.source}:{i.line} {i.target}"
        for i in function_level_imports(("uno_env",))
        if i.target.split(".")[0] == "uno_env"
        and i.source not in lazy_loaders
        and (i.source, i.target) not in optional
    )
    assert own == []


def test_the_documented_count_of_imports_inside_functions() -> None:
    """docs/architecture.md says how many imports sit inside functions, per package."""
    text = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for package in ("uno_env", "agents", "training"):
        count = len({(i.source, i.line) for i in function_level_imports((package,))})  # statements
        match = re.search(rf"`{package}/`: (\d+) imports?\s+inside\s+functions", text)
        assert match is not None, package
        assert int(match.group(1)) == count, (package, count)


# ------------------------------------------------------------------ comments say why, not when
ISSUE_CITATION = re.compile(r"\bissues? \d+\b|\bissue-\d+\b", re.IGNORECASE)


def issue_citations(text: str) -> list[int]:
    """Lines of ``text`` that cite an issue by number."""
    return [n for n, line in enumerate(text.splitlines(), 1) if ISSUE_CITATION.search(line)]


def test_code_says_why_not_when() -> None:
    """Comments and docstrings say why, not which issue asked for a change (history belongs in
    the docs and the commit log)."""
    found = []
    for top in ("uno_env", "agents", "training", "tests", "benchmarks", "examples"):
        for path in sorted((REPO_ROOT / top).rglob("*.py")):
            name = path.relative_to(REPO_ROOT).as_posix()
            if name != "tests/test_import_graph.py":
                found += [f"{name}:{n}" for n in issue_citations(path.read_text(encoding="utf-8"))]
    assert found == []
    assert issue_citations("x = 1  # issue 21: cold start\n# why, not when\n") == [1]
