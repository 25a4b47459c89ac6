"""The catalog's rows: each dataset's columns and types, and rows as JSON lines (one object per row), which a
worker writes and DuckDB turns into Parquet without a Python loop over the values.

Invariant: a row names exactly its dataset's columns (``seq`` aside, which the writer adds), so every shard
of a dataset has one schema; the same values always give the same line.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Sequence
from functools import cache
from typing import Any

from ..jsontext import writable_value
from ..keyguard import KeyGuard
from ..messages import Conversation, Message
from ..replay import Outcome
from ..tokens import COUNTER_NAMES, get_counter
from .values import Bill, compact_json, outcome_json

MESSAGE_COLUMNS: tuple[str, ...] = (
    "run_id",
    "part",
    "position",
    "role",
    "role_class",
    *(f"tokens_{name}" for name in COUNTER_NAMES),
    "tool_calls",
    "tool_call_id",
    "paired_position",
    "reported_tokens",
    "chars",
)

#: Every dataset's columns and DuckDB types; ``seq`` (the batch) comes first in each.
SCHEMAS: dict[str, dict[str, str]] = {
    "files": {
        "seq": "BIGINT",
        "path": "VARCHAR",
        "size": "BIGINT",
        "mtime_ns": "BIGINT",
        "hash": "VARCHAR",
        "counter": "VARCHAR",
        "runs": "INTEGER",
        "error": "VARCHAR",
    },
    "runs": {
        "seq": "BIGINT",
        "run_id": "VARCHAR",
        "hash": "VARCHAR",
        "conversation": "INTEGER",
        "counter": "VARCHAR",
        "name": "VARCHAR",
        "format": "VARCHAR",
        "agent": "VARCHAR",
        "model": "VARCHAR",
        "recorded_window": "BIGINT",
        "messages": "INTEGER",
        "context_tokens": "BIGINT",
        "system_tokens": "BIGINT",
        "tools_tokens": "BIGINT",
        "window_tokens": "BIGINT",
        "window_source": "VARCHAR",
        "steps": "INTEGER",
        "recorded_compactions": "INTEGER",
    },
    "messages": {
        "seq": "BIGINT",
        "run_id": "VARCHAR",
        "part": "VARCHAR",
        "position": "INTEGER",
        "role": "VARCHAR",
        "role_class": "VARCHAR",
        **{f"tokens_{name}": "BIGINT" for name in COUNTER_NAMES},
        "tool_calls": "INTEGER",
        "tool_call_id": "VARCHAR",
        "paired_position": "INTEGER",
        "reported_tokens": "BIGINT",
        "chars": "BIGINT",
    },
    # where a run's kept conversation lies in the batch's kept/part-N.bin (zlib-compressed JSON)
    "kept": {"seq": "BIGINT", "run_id": "VARCHAR", "offset": "BIGINT", "length": "BIGINT"},
    "outcomes": {
        "seq": "BIGINT",
        "run_id": "VARCHAR",
        "play_key": "VARCHAR",
        "ratio": "DOUBLE",
        "keep": "INTEGER",
        "min_target": "DOUBLE",
        "outcome": "VARCHAR",
        "compactions": "INTEGER",
        "refused": "INTEGER",
        "peak_tokens": "BIGINT",
        "context_max": "BIGINT",
        "steps_over_capacity": "INTEGER",
        "agent_input_tokens": "BIGINT",
        "compaction_input_tokens": "BIGINT",
        # the setting's bill (``replay.assess``): tokens, USD at the run's price (null without one), loop flags
        "tokens": "BIGINT",
        "cost": "DOUBLE",
        "flagged": "INTEGER",
        # what its compactions summarised: the spans' tokens and their summaries' (the size model's retention)
        "span_tokens": "BIGINT",
        "summary_tokens": "BIGINT",
    },
}
#: A run's untouched outcome is stored as an outcome row with this setting (no real setting has it).
TEMPLATE_SETTING = (-1.0, -1, -1.0)


def line(dataset: str, **values: Any) -> str:
    """One row of ``dataset`` as a JSON line; a column not given is null. DuckDB refuses a lone surrogate, so a
    run's name or a file's path holding one (a broken escape, a name that is not UTF-8) has it written ``\\udXXX``."""
    row = {name: values.get(name) for name in _columns(dataset)}
    if dataset not in _NAMED:
        return compact_json(row)
    return known_key_guard().scrub(compact_json(writable_value(row)))


@cache
def _columns(dataset: str) -> tuple[str, ...]:
    """The columns a row of ``dataset`` names (``seq`` is the writer's)."""
    return tuple(name for name in SCHEMAS[dataset] if name != "seq")


#: The datasets whose text columns come from file names and run names (the others hold codes and numbers).
_NAMED = frozenset({"files", "runs"})


def known_key_guard() -> KeyGuard:
    """The key this process holds (``API_KEY``): no part of the catalog may hold any form of it."""
    return _guard(os.environ.get("API_KEY", ""))


@functools.lru_cache(maxsize=4)
def _guard(key: str) -> KeyGuard:
    return KeyGuard([key])


def outcome_lines(
    run_id: str,
    play_key: str,
    settings: Sequence[tuple[float, int, float]],
    outcomes: Sequence[Outcome],
    bills: Sequence[Bill],
) -> str:
    """One outcome row per setting, as ``line("outcomes", ...)`` writes it (every column given). A sweep writes one
    row per cell, so a row is filled into a template: its numbers encoded as one JSON array and split at the commas
    (numbers and nulls hold none), and the outcome's own JSON encoded as a string."""
    head = '{"run_id":' + compact_json(run_id) + ',"play_key":' + compact_json(play_key)
    template = _outcome_template()
    rows = []
    for (ratio, keep, target), outcome, bill in zip(settings, outcomes, bills, strict=True):
        numbers = compact_json(
            (
                ratio,
                keep,
                target,
                outcome.compactions,
                outcome.refused,
                outcome.peak_tokens,
                outcome.context_max,
                outcome.steps_over_capacity,
                outcome.agent_input_tokens,
                outcome.compaction_input_tokens,
                bill.tokens,
                bill.cost,
                bill.flagged,
                bill.span_tokens,
                bill.summary_tokens,
            )
        )[1:-1].split(",")
        rows.append(head + template % (*numbers[:3], compact_json(outcome_json(outcome)), *numbers[3:]))
    return "".join(rows)


@cache
def _outcome_template() -> str:
    """An outcome row after its run and play key, each value a ``%s``: the setting, the outcome, the numbers."""
    columns = _columns("outcomes")
    assert columns[:2] == ("run_id", "play_key") and columns[5] == "outcome" and len(columns) == 18
    return "".join(f',"{name}":%s' for name in columns[2:]) + "}\n"


def template_line(run_id: str, template_key: str, template: Outcome | None, bill: Bill | None) -> str:
    """The run's untouched outcome and its bill ("" when even the highest setting touches the run)."""
    ratio, keep, target = TEMPLATE_SETTING
    return (
        line(
            "outcomes",
            run_id=run_id,
            play_key=template_key,
            ratio=ratio,
            keep=keep,
            min_target=target,
            outcome=outcome_json(template) if template is not None else "",
            compactions=0,
            refused=0,
            peak_tokens=template.peak_tokens if template is not None else None,
            steps_over_capacity=template.steps_over_capacity if template is not None else None,
            tokens=bill.tokens if bill is not None else None,
            cost=bill.cost if bill is not None else None,
            flagged=0,
            span_tokens=0,
            summary_tokens=0,
        )
        + "\n"
    )


def role_class(message: Message) -> str:
    if message.role == "user":
        return "request" if message.is_real_user else "internal"
    if message.role == "tool":
        return "tool_output"
    return message.role


def message_lines(conversation: Conversation, run_id: str, counter: str) -> tuple[str, tuple[int, ...]]:
    """One row per message (system first, then context) with its count under ``counter``, and the counts."""
    messages = [*conversation.system, *conversation.messages]
    counts = tuple(get_counter(counter).message_tokens_many(messages))
    callers: dict[str, int] = {}
    system = len(conversation.system)
    # The row as ``line("messages", ...)`` writes it, from one template (a message row is the catalog's most
    # numerous): only strings that may need escaping go through json.dumps.
    template = _message_template(counter)
    run = _json(run_id)
    out = []
    for at, (message, tokens) in enumerate(zip(messages, counts, strict=True)):
        part, position = ("system", at) if at < system else ("context", at - system)
        role = message.role
        if part == "context" and role == "assistant":
            for call_id in message.call_ids:
                callers.setdefault(call_id, position)
        answers = message.tool_call_id
        paired = callers.get(answers or "", -1) if role == "tool" else -1
        reported = message.reported_total_tokens
        out.append(
            template.format(
                run=run,
                part=part,
                position=position,
                role=_name_json(role),
                role_class=_name_json(role_class(message)),
                tokens=tokens,
                tool_calls=len(message.tool_calls or ()),
                tool_call_id="null" if answers is None else _json(answers),
                paired=paired,
                reported="null" if reported is None else reported,
                chars=len(message.text),
            )
        )
    return "".join(out), counts


_json = json.dumps


@functools.lru_cache(maxsize=64)
def _name_json(name: str) -> str:
    """A role's or role class's JSON string: a handful of names, written once per message row."""
    return _json(name)


@cache
def _message_template(counter: str) -> str:
    """A message row's JSON line with its values as format fields; every other counter's column is null."""
    fields = {
        "run_id": "{run}",
        "part": '"{part}"',
        "position": "{position}",
        "role": "{role}",
        "role_class": "{role_class}",
        **{f"tokens_{name}": "{tokens}" if name == counter else "null" for name in COUNTER_NAMES},
        "tool_calls": "{tool_calls}",
        "tool_call_id": "{tool_call_id}",
        "paired_position": "{paired}",
        "reported_tokens": "{reported}",
        "chars": "{chars}",
    }
    assert tuple(fields) == MESSAGE_COLUMNS
    return "{{" + ",".join(f'"{name}":{value}' for name, value in fields.items()) + "}}\n"
