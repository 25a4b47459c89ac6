"""Evaluation records holding a ``traj`` message list (e.g. tau-bench): one Conversation per record.

Invariant: records keep their order; each conversation is named ``<stem> #<index>`` plus the record's
task (and trial) when it has them, so the 200 conversations of one file stay distinguishable.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from compressor.formats.building import build_conversation, build_tools, indexed
from compressor.formats.chat import convert_messages, message_format
from compressor.formats.problems import Loc, expect_dict, expect_list
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation


def looks_like_record(value: Any) -> bool:
    return isinstance(value, dict) and "traj" in value


def record_name(stem: str, index: int, record: dict[str, Any]) -> str:
    tags = [f"{key} {record[key]}" for key in ("task_id", "trial") if isinstance(record.get(key), str | int)]
    label = ", ".join(tag.replace("task_id", "task") for tag in tags)
    return f"{stem} #{index} ({label})" if label else f"{stem} #{index}"


def from_record(record: Any, loc: Loc, *, name: str) -> Conversation:
    record = expect_dict(record, loc, "a record")
    traj_loc = loc.key("traj")
    items = expect_list(record.get("traj"), traj_loc, "traj")
    anthropic_blocks = message_format(items) == "anthropic"
    messages = convert_messages(indexed(items, traj_loc), anthropic_blocks=anthropic_blocks)
    tools = build_tools(record.get("tools"), loc.key("tools"))
    return build_conversation(messages, tools, name=name, source_format="traj-records", loc=traj_loc)


def from_records(located: Iterable[tuple[Loc, Any]], *, stem: str) -> list[Conversation]:
    out: list[Conversation] = []
    for index, (loc, record) in enumerate(located):
        name = record_name(stem, index, record) if isinstance(record, dict) else f"{stem} #{index}"
        out.append(from_record(record, loc, name=name))
    return out


def _read(shape: Shape) -> list[Conversation]:
    if shape.container == "object":
        return [from_record(shape.raw, Loc(), name=record_name(shape.stem, 0, shape.raw))]
    return from_records(shape.located(), stem=shape.stem)


READER = Reader(
    name="traj-records",
    looks_like=lambda shape: any(looks_like_record(value) for value in shape.objects),
    read=_read,
)
