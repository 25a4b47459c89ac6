"""The dashboard's own rules, checked on the source: the pure rooms never touch Streamlit, only ``state/``
reads the session or caches, and the values at the edges are typed (never a bare ``Any``)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

DASHBOARD = Path(__file__).resolve().parents[2] / "dashboard"
#: Rooms that compute words, figures, tables and files: the language and every label are parameters.
PURE = [
    *sorted((DASHBOARD / "i18n").glob("*.py")),
    *sorted((DASHBOARD / "charts").glob("*.py")),
    *sorted((DASHBOARD / "tables").glob("*.py")),
] + [
    DASHBOARD / name
    for name in ("report.py", "settings.py", "sources.py", "roots.py", "content.py", "dump_uploads.py")
]
#: Modules whose public functions take and return the library's values, typed.
TYPED = [
    *sorted((DASHBOARD / "state").glob("*.py")),
    *sorted((DASHBOARD / "charts").glob("*.py")),
    *sorted((DASHBOARD / "tables").glob("*.py")),
    *(
        DASHBOARD / name
        for name in (
            "components.py",
            "window_view.py",
            "compaction_view.py",
            "dump_view.py",
            "browser.py",
            "follow.py",
            "content.py",
            "dump_uploads.py",
            "report.py",
        )
    ),
]


def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def imported(path: Path) -> Iterator[str]:
    for node in ast.walk(tree(path)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield ("." * node.level) + (node.module or "")


def rel(path: Path) -> str:
    return str(path.relative_to(DASHBOARD.parent))


@pytest.mark.parametrize("path", PURE, ids=rel)
def test_a_pure_room_never_imports_streamlit_or_the_state(path: Path) -> None:
    found = [
        name for name in imported(path) if name.split(".")[0] == "streamlit" or "state" in name.split(".")
    ]
    assert found == []


def test_only_the_state_reads_the_session_or_caches() -> None:
    offenders = []
    for path in sorted(DASHBOARD.rglob("*.py")):
        if path.is_relative_to(DASHBOARD / "state"):
            continue
        for node in ast.walk(tree(path)):
            if isinstance(node, ast.Attribute) and node.attr in (
                "session_state",
                "cache_data",
                "cache_resource",
            ):
                offenders.append(f"{rel(path)}:{node.lineno} {node.attr}")
    assert offenders == []


def bare_any(annotation: ast.expr | None) -> bool:
    return isinstance(annotation, ast.Name) and annotation.id == "Any"


@pytest.mark.parametrize("path", TYPED, ids=rel)
def test_public_functions_take_and_return_typed_values(path: Path) -> None:
    offenders = []
    for node in ast.walk(tree(path)):
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            offenders += [f"{node.name}({arg.arg})" for arg in arguments if bare_any(arg.annotation)]
            if bare_any(node.returns):
                offenders.append(f"{node.name} -> Any")
    assert offenders == []
