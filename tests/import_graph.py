"""The project's import graph, read from the source (no module is imported).

An edge ``a -> b`` is an import of project module ``b`` anywhere in ``a``: at module level or
inside a function (an import inside a function still ties the two modules together), but not
under ``if TYPE_CHECKING:`` (annotations only). ``from package import name`` is an edge to the
submodule ``package.name`` when that is a module, else to ``package``; importing a module also
runs its package's ``__init__``, which is not counted as an edge (it is where re-exports live).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("uno_env", "agents", "training")


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in sorted((REPO_ROOT / pkg).rglob("*.py"))}


@dataclass(frozen=True)
class Import:
    """One import statement of a module: what it names, and whether it sits in a function."""

    source: str
    target: str
    line: int
    in_function: bool


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST, in_function: bool) -> Iterator[tuple[ast.AST, bool]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _type_checking(child):
            for other in child.orelse:
                yield from _walk(other, in_function)
            continue
        inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        yield child, inner
        yield from _walk(child, inner)


def imports(path: Path, modules: dict[str, Path]) -> list[Import]:
    """Every import in ``path`` (project modules and others), resolved to module names."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node, in_function in _walk(ast.parse(path.read_text(encoding="utf-8")), False):
        if isinstance(node, ast.Import):
            found += [Import(name, alias.name, node.lineno, in_function) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.append(Import(name, sub if sub in modules else target, node.lineno, in_function))
    return found


def project_graph(packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    """Module -> the project modules it imports (within ``packages``)."""
    modules = all_modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        if name.split(".")[0] not in packages:
            continue
        edges = {i.target for i in imports(path, modules) if i.target in modules and i.target != name}
        graph[name] = {t for t in edges if t.split(".")[0] in packages}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def function_level_imports(packages: tuple[str, ...] = PACKAGES) -> list[Import]:
    """Every import inside a function in ``packages`` (project modules and libraries)."""
    modules = all_modules()
    return [
        i
        for name, path in modules.items()
        if name.split(".")[0] in packages
        for i in imports(path, modules)
        if i.in_function
    ]
