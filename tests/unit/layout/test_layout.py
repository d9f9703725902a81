"""The package's shape: modules stay small, private names stay private, imports form no cycle."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "segeval"
MODULES = sorted(PACKAGE.rglob("*.py"))


def dotted(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every `import`/`from ... import` in the file, resolved to absolute names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = dotted(path).split(".")
    if path.name != "__init__.py":
        here = here[:-1]
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(here[: len(here) - node.level + 1] + ([base] if base else []))
            found.append((base, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((a.name, []) for a in node.names)
    return found


#: names that say how a module was cut (by size, by leftovers), not what it holds; and Windows' reserved names
NO_CONCERN = re.compile(r"(_more|_part\d*|_extra|\d+|misc|utils?|helpers?|common|stuff)$")
RESERVED = {"aux", "con", "prn", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_module_says_its_concern(path: Path) -> None:
    """A module holds one concern, said in its docstring's first sentence and named for it (the 400-line cap
    this replaces split modules by size: trec.py/trec_more.py, io/aux.py)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree)
    assert doc and len(doc.split()) >= 4, f"{path.name}: say in a docstring what the module holds"
    stem = path.stem
    assert stem == "__init__" or not NO_CONCERN.search(stem), f"{path.name}: name the module for its concern"
    assert stem.lower() not in RESERVED, f"{path.name}: a reserved device name on Windows"


def test_no_private_name_imported_across_modules() -> None:
    bad = []
    for path in MODULES:
        for module, names in imports(path):
            if not module.startswith("segeval"):
                continue
            bad += [f"{dotted(path)} imports {module}.{n}" for n in names if n.startswith("_") and n != "__version__"]
    assert not bad, "\n".join(bad)


def test_no_import_cycle() -> None:
    known = {dotted(p) for p in MODULES}
    graph: dict[str, set[str]] = {m: set() for m in known}
    for path in MODULES:
        src = dotted(path)
        for module, names in imports(path):
            for target in [module, *(f"{module}.{n}" for n in names)]:
                if target in known and target != src and not src.startswith(target + "."):
                    graph[src].add(target)
    # packages' __init__ re-exports are edges too; a cycle is a path back to the start
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            pytest.fail("import cycle: " + " -> ".join(cycle))
