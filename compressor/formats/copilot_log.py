"""VS Code's chat session log (``chatSessions/<sessionId>.jsonl``, VS Code 1.109 and later) replayed into the one
session object its entries describe, as VS Code reads it back.

Invariant: the entries are applied in order to a copy of the first one's state and nothing else; an entry that
does not fit the state it is applied to is one ``FormatProblem`` naming its line, never a half-built session.

Schema: microsoft/vscode ``src/vs/workbench/contrib/chat/common/model/objectMutationLog.ts`` (``ObjectMutationLog``:
``read``, ``_applySet``, ``_applyPush``) and ``chatSessionOperationLog.ts`` (the state is ``ISerializableChatData``
version 3, the same object the older flat ``<sessionId>.json`` holds). Each line is one entry:

- ``{"kind": 0, "v": state}`` — the whole state; the first line, and again whenever VS Code compacts the log;
- ``{"kind": 1, "k": path, "v": value}`` — set the value at ``path`` (a list of keys and indexes); a missing ``v``
  is JavaScript's ``undefined``, which JSON leaves out;
- ``{"kind": 2, "k": path, "v": [items], "i": n}`` — the list at ``path`` cut to ``n`` items when ``i`` is given,
  then ``items`` appended;
- ``{"kind": 3, "k": path}`` — the value at ``path`` removed.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from compressor.formats.problems import FormatProblem, Loc, short, type_name

INITIAL, SET, PUSH, DELETE = 0, 1, 2, 3
KINDS = (INITIAL, SET, PUSH, DELETE)


def is_entry(value: Any) -> bool:
    """An object shaped like one log entry."""
    if not isinstance(value, dict):
        return False
    kind = value.get("kind")
    if kind == INITIAL and not isinstance(kind, bool):
        return isinstance(value.get("v"), dict)
    return kind in KINDS and not isinstance(kind, bool) and isinstance(value.get("k"), list)


def starts_a_log(value: Any) -> bool:
    """The first entry of a chat session log: the whole session state."""
    if not is_entry(value) or value["kind"] != INITIAL:
        return False
    return isinstance(value["v"].get("requests"), list)


def replay(entries: Iterable[tuple[Loc, Any]], *, owned: bool = False) -> dict[str, Any]:
    """The session state the entries leave, as ``ObjectMutationLog.read`` rebuilds it.

    ``owned``: the entries were parsed here and nobody else holds them, so their values become the state as they
    are; otherwise each is copied first and the caller's values are never changed.
    """
    state: dict[str, Any] | None = None
    for loc, entry in entries:
        if not owned:
            entry = copy.deepcopy(entry)
        if not is_entry(entry):
            raise FormatProblem(loc, f"is not a chat session log entry (got {_described(entry)})")
        kind = entry["kind"]
        if kind == INITIAL:
            state = entry["v"]
            continue
        if state is None:
            raise FormatProblem(loc, "changes a session before the log's first entry gives its whole state")
        path = entry["k"]
        _check_path(path, loc)
        if kind == SET:
            _set(state, path, entry.get("v"), "v" in entry, loc)
        elif kind == DELETE:
            _set(state, path, None, False, loc)
        else:
            _push(state, path, entry.get("v"), entry.get("i"), loc)
    if state is None:
        raise FormatProblem(Loc(), "holds no chat session log entries")
    return state


def _described(entry: Any) -> str:
    if isinstance(entry, dict):
        return f"an object with kind {short(entry.get('kind'))}"
    return type_name(entry)


def _check_path(path: list[Any], loc: Loc) -> None:
    for step in path:
        if isinstance(step, bool) or not isinstance(step, str | int):
            raise FormatProblem(loc.key("k"), f"a path step must be a key or an index, got {short(step)}")


def _where(path: list[Any]) -> str:
    return "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path) or "the session"


def _holder(state: Any, path: list[Any], loc: Loc) -> Any:
    """The object or list holding the last step of ``path``."""
    current = state
    for index, step in enumerate(path[:-1]):
        current = _child(current, step)
        if current is None:
            raise FormatProblem(
                loc.key("k"), f"changes {_where(path)}, but {_where(path[: index + 1])} is absent"
            )
    return current


def _child(holder: Any, step: str | int) -> Any:
    if isinstance(holder, dict) and isinstance(step, str):
        return holder.get(step)
    if isinstance(holder, list) and isinstance(step, int) and 0 <= step < len(holder):
        return holder[step]
    return None


def _set(state: dict[str, Any], path: list[Any], value: Any, present: bool, loc: Loc) -> None:
    if not path:
        raise FormatProblem(loc.key("k"), "replaces the whole session outside a first entry")
    holder = _holder(state, path, loc)
    step = path[-1]
    if isinstance(holder, dict) and isinstance(step, str):
        if present:
            holder[step] = value
        else:
            holder.pop(step, None)  # undefined: JSON.stringify leaves the key out
        return
    if isinstance(holder, list) and isinstance(step, int) and 0 <= step <= len(holder):
        if step == len(holder):
            holder.append(value if present else None)
        else:
            holder[step] = value if present else None
        return
    raise FormatProblem(loc.key("k"), f"changes {_where(path)}, which its {type_name(holder)} cannot hold")


def _push(state: dict[str, Any], path: list[Any], values: Any, start: Any, loc: Loc) -> None:
    if not path:
        raise FormatProblem(loc.key("k"), "appends to the whole session, which is not a list")
    holder = _holder(state, path, loc)
    step = path[-1]
    current = _child(holder, step)
    if current is None:
        current = []
    if not isinstance(current, list):
        raise FormatProblem(loc.key("k"), f"appends to {_where(path)}, which is a {type_name(current)}")
    if start is not None:
        if isinstance(start, bool) or not isinstance(start, int) or start < 0:
            raise FormatProblem(loc.key("i"), f"must be a list index, got {short(start)}")
        del current[start:]
    if values is not None:
        if not isinstance(values, list):
            raise FormatProblem(loc.key("v"), f"must be a list of items to append, got {type_name(values)}")
        current.extend(values)
    if isinstance(holder, dict) and isinstance(step, str):
        holder[step] = current
    elif isinstance(holder, list) and isinstance(step, int) and 0 <= step <= len(holder):
        if step == len(holder):
            holder.append(current)
        else:
            holder[step] = current
    else:
        raise FormatProblem(
            loc.key("k"), f"appends to {_where(path)}, which its {type_name(holder)} cannot hold"
        )
