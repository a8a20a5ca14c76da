"""The shape of the code: no import cycle anywhere, and the features' contract works.

The layers and the purity of the engines and the AI are import-linter contracts
(``[tool.importlinter]`` in pyproject.toml, run by ``make lint`` before the tests); the
project-specific contract type they use is checked here against small made-up graphs,
so a contract that could never fail would show.
"""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest
from importlinter.domain.contract import ContractCheck

from config.importrules import FeatureApiContract

ROOT = Path(__file__).resolve().parents[1]
#: Every package of the project (those that exist: the lab packages may be absent).
PACKAGES = [name for name in ("games", "ai", "accounts", "common", "config", "tools", "ailab")
            if (ROOT / name / "__init__.py").exists()]


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph`` (module -> modules it imports): Tarjan's strongly
    connected components of more than one module, or of one that imports itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:  # iterative: deep graphs must not hit the recursion limit
        nonlocal counter
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_tarjan_finds_a_cycle_and_no_false_one() -> None:
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [
        ["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_cycle_anywhere_in_the_project() -> None:
    """Imports inside functions count too (grimp sees them): a cycle hidden in a function
    is still a cycle."""
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    imports = {module: set(graph.find_modules_directly_imported_by(module))
               for module in graph.modules}
    cycles = strongly_connected(imports)
    assert cycles == [], "\n".join(" -> ".join(cycle) for cycle in cycles)


def _check(edges: list[tuple[str, str]]) -> ContractCheck:
    graph = grimp.ImportGraph()
    for importer, imported in [*edges, ("app.a", "app.b")]:
        for module in (importer, imported):
            parts = module.split(".")
            for depth in range(1, len(parts) + 1):
                graph.add_module(".".join(parts[:depth]))
    for importer, imported in edges:
        graph.add_import(importer=importer, imported=imported)
    contract = FeatureApiContract(
        name="features", session_options={},
        contract_options={"features": ["app.a", "app.b"],
                          "public": ["services", "selectors"]})
    return contract.check(graph, verbose=False)


@pytest.mark.parametrize(("edges", "kept"), [
    ([("app.a.views", "app.b.services"), ("app.b.tasks", "app.a.selectors")], True),
    ([("app.a.views", "app.a.page")], True),  # a feature's own internals are its own
    ([("app.a.views", "app.b.page")], False),
    ([("app.a.receivers", "app.b.views")], False),
    ([("app.a.sub.deep", "app.b.services.helpers")], True),
    ([("app.a.sub.deep", "app.b.internal.helpers")], False),
])
def test_the_feature_contract_refuses_imports_of_another_features_internals(
    edges: list[tuple[str, str]], kept: bool,
) -> None:
    check = _check(edges)
    assert check.kept is kept, check.metadata
