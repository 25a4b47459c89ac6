"""The rules of the house (shared ARCHITECTURE.md), checked on the source: floors, circles, sizes, imports.

Every import counts, module-level and function-level alike: the checks read the AST, not ``sys.modules``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("compressor", "dashboard")
UI_PACKAGES = {"streamlit", "plotly", "pandas"}
#: Data, not logic: the string tables of the UI's languages may grow past the size limit.
STRING_TABLES = {"dashboard/i18n/en.py", "dashboard/i18n/zh.py"}
MODULE_LIMIT = 450
PAGE_LIMIT = 250


def source_files() -> Iterator[Path]:
    for package in PACKAGES:
        yield from sorted((REPO / package).rglob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in source_files()}


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, anywhere in the file, resolved to the project's modules where it can be."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                child = f"{target}.{alias.name}"
                found.add(child if child in MODULES else target)
    return found


GRAPH = {name: imported_modules(path) for name, path in MODULES.items()}


def top(module: str) -> str:
    return module.split(".")[0]


class TestFloors:
    def test_only_the_cli_mentions_the_dashboard(self) -> None:
        offenders = sorted(
            name
            for name, imports in GRAPH.items()
            if name.startswith("compressor")
            and not name.startswith("compressor.cli")
            and any(top(module) == "dashboard" for module in imports)
        )
        assert offenders == []

    def test_the_library_imports_no_ui_package(self) -> None:
        offenders = {
            name: sorted(module for module in imports if top(module) in UI_PACKAGES)
            for name, imports in GRAPH.items()
            if name.startswith("compressor") and not name.startswith("compressor.cli")
        }
        assert {name: found for name, found in offenders.items() if found} == {}

    def test_importing_every_library_module_loads_no_ui_package(self) -> None:
        library = sorted(
            name
            for name in MODULES
            if name.startswith("compressor")
            and not name.startswith("compressor.cli")
            and name != "compressor.__main__"
        )
        code = (
            "import importlib, sys\n"
            f"for name in {library!r}: importlib.import_module(name)\n"
            f"print(','.join(sorted(m for m in {sorted(UI_PACKAGES)!r} if m in sys.modules)))"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
        )
        assert done.stdout.strip() == ""


def circles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), over the project's own modules.

    Importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` first, so an import is also an edge to each
    package above the imported module (except the importer's own packages, which are being imported already).
    """
    edges: dict[str, list[str]] = {}
    for name, imports in GRAPH.items():
        targets: set[str] = set()
        for module in imports:
            parts = module.split(".")
            for depth in range(1, len(parts) + 1):
                target = ".".join(parts[:depth])
                if target in MODULES and target != name and not name.startswith(target + "."):
                    targets.add(target)
        edges[name] = sorted(targets)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle() -> None:
    assert circles() == []


class TestSizes:
    @pytest.mark.parametrize("path", list(source_files()), ids=lambda p: str(p.relative_to(REPO)))
    def test_module_is_small(self, path: Path) -> None:
        relative = str(path.relative_to(REPO))
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if relative in STRING_TABLES:
            return
        limit = PAGE_LIMIT if relative.startswith("dashboard/views/") else MODULE_LIMIT
        assert lines <= limit, f"{relative}: {lines} lines (limit {limit}); split it by job"


def test_no_silenced_import_error() -> None:
    offenders = []
    for path in [
        *source_files(),
        *sorted((REPO / "tests").rglob("*.py")),
        *sorted((REPO / "benchmarks").rglob("*.py")),
    ]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ExceptHandler) and node.type is not None:
                names = {n.id for n in ast.walk(node.type) if isinstance(n, ast.Name)}
                if names & {"ImportError", "ModuleNotFoundError"} and all(
                    isinstance(s, ast.Pass) for s in node.body
                ):
                    offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == []


def test_no_machine_paths_in_the_sources() -> None:
    """The suite runs from any checkout: no absolute path of this development machine in code or tests (paths in
    test data, such as a session's ``/home/user/app`` working folder, are data, not dependencies)."""
    offenders = []
    sources = [
        *source_files(),
        *sorted((REPO / "tests").rglob("*.py")),
        *sorted((REPO / "benchmarks").rglob("*.py")),
    ]
    for path in sources:
        if path == Path(__file__).resolve():
            continue
        text = path.read_text(encoding="utf-8")
        for marker in ("/work/main", "/work/shared", "/work/.library", "/root/.pyenv"):
            if marker in text:
                offenders.append(f"{path.relative_to(REPO)}: {marker}")
    assert offenders == []
