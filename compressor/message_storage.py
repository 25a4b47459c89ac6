"""How a message is kept lean: shared field-set bookkeeping, one shared empty ``extra``, token counts in slots.

Invariant: nothing here changes a value's fields; the shared objects are never written to, and the counts a
message holds are those its own (frozen) fields give, so copies, which start without counts, stay right.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

#: One shared ``fields_set`` per combination of set fields (values are frozen, so nothing adds to it);
#: a set per instance would cost ~200 bytes a message. Bounded: odd inputs keep their own set.
_FIELDS_SETS: dict[frozenset[str], set[str]] = {}
_FIELDS_SETS_MAX = 256


def share_fields_set(model: BaseModel) -> None:
    own = model.__pydantic_fields_set__
    key = frozenset(own)
    shared = _FIELDS_SETS.get(key)
    if shared is None:
        if len(_FIELDS_SETS) >= _FIELDS_SETS_MAX:
            return
        shared = _FIELDS_SETS[key] = set(own)
    object.__setattr__(model, "__pydantic_fields_set__", shared)


#: The one empty ``__pydantic_extra__`` messages without unknown fields share (a dict each cost 64 bytes); nothing
#: writes to it: a frozen model refuses attributes and ``model_copy`` copies it before adding to it.
NO_EXTRA: dict[str, Any] = {}

#: The slot that holds each built-in counter's count on a message; other counters' counts share one dict.
COUNT_SLOTS: dict[str, str] = {
    "cl100k_base": "_cl100k_count",
    "o200k_base": "_o200k_count",
    "string_length": "_length_count",
}


def cached_count(message: BaseModel, counter: str) -> int | None:
    """The count ``counter`` made of ``message``, if it made one."""
    slot = COUNT_SLOTS.get(counter)
    if slot is not None:
        return getattr(message, slot, None)
    other: dict[str, int] | None = getattr(message, "_other_counts", None)
    return None if other is None else other.get(counter)


def keep_count(message: BaseModel, counter: str, tokens: int) -> None:
    """Remember ``counter``'s count of ``message`` on it (the message is frozen, so the count stays right)."""
    slot = COUNT_SLOTS.get(counter)
    if slot is not None:
        object.__setattr__(message, slot, tokens)
        return
    other: dict[str, int] | None = getattr(message, "_other_counts", None)
    if other is None:
        other = {}
        object.__setattr__(message, "_other_counts", other)
    other[counter] = tokens


def token_counts(message: BaseModel) -> dict[str, int]:
    """Every count held on ``message``, by counter name."""
    held = {name: getattr(message, slot) for name, slot in COUNT_SLOTS.items() if hasattr(message, slot)}
    return {**held, **(getattr(message, "_other_counts", None) or {})}
