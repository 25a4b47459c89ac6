"""How a message is kept lean: shared field-set bookkeeping, one shared empty ``extra``, fields in a key-sharing
dict (or in the instance itself, for the loaders' messages), and token counts in one slot.

Invariant: nothing here changes a value's fields or their order; the shared objects are never written to, and the
counts a message holds are those its own (frozen) fields give, so copies, which start without counts, stay right.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

ModelT = TypeVar("ModelT", bound=BaseModel)

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

#: Per model class, a plain class whose instances' attribute dicts hold that model's fields.
_HOLDERS: dict[type[BaseModel], type] = {}


def share_keys(model: BaseModel) -> None:
    """Give ``model`` a ``__dict__`` equal to its own, items in the same order, that shares its key table.

    pydantic builds each model's ``__dict__`` as a dict of its own (272 bytes for a message's 8 fields); an
    instance dict of a plain class keeps only the values and shares the keys with its class (~160 bytes).
    It is an ordinary dict: equality, copies, pickles and dumps read it as before.
    """
    fields = model.__dict__
    if len(fields) != len(type(model).model_fields):
        return  # not the usual shape: keep pydantic's own dict
    holder_type = _HOLDERS.get(type(model))
    if holder_type is None:
        holder_type = _HOLDERS[type(model)] = type(f"{type(model).__name__}Fields", (), {})
    holder = holder_type()
    for key, value in fields.items():
        setattr(holder, key, value)
    object.__setattr__(model, "__dict__", vars(holder))


def lean_copy(model: ModelT) -> ModelT:
    """An equal model, fields set in the same order, whose fields the instance keeps itself, without a dict.

    CPython keeps a fresh instance's attributes in a bare array of values sharing its class's keys, and makes
    a dict of them only when something asks for ``__dict__`` (an equality test, a dump, a copy): a message
    that is only read, as the loaders' messages mostly are, saves that dict (64 bytes, on top of share_keys).
    Only for a model nothing else holds yet, with no token counts (they are not copied).
    """
    fields = model.__dict__
    cls = type(model)
    if len(fields) != len(cls.model_fields):
        return model
    copied = object.__new__(cls)
    for key, value in fields.items():
        object.__setattr__(copied, key, value)
    object.__setattr__(copied, "__pydantic_fields_set__", model.__pydantic_fields_set__)
    object.__setattr__(copied, "__pydantic_extra__", model.__pydantic_extra__)
    object.__setattr__(copied, "__pydantic_private__", model.__pydantic_private__)
    return copied


#: The slot a message's token counts live in: a bare int is the count of the process's counter (the first that
#: kept a count in this process; a CLI run uses one); a dict holds counts by counter name once another counted the
#: message. One slot, not one per counter: the object fits the 80-byte size class (with two it took 96).
COUNT_SLOT = "_counts"
_PROCESS_COUNTER: dict[str, str] = {}


def _process_counter(counter: str) -> str:
    return _PROCESS_COUNTER.setdefault("name", counter)  # atomic: the first caller's counter, for good


def cached_count(message: BaseModel, counter: str) -> int | None:
    """The count ``counter`` made of ``message``, if it made one."""
    held: int | dict[str, int] | None = getattr(message, COUNT_SLOT, None)
    if held is None:
        return None
    if isinstance(held, dict):
        return held.get(counter)
    return held if counter == _process_counter(counter) else None


def keep_count(message: BaseModel, counter: str, tokens: int) -> None:
    """Remember ``counter``'s count of ``message`` on it (the message is frozen, so the count stays right)."""
    held: int | dict[str, int] | None = getattr(message, COUNT_SLOT, None)
    if isinstance(held, dict):
        held[counter] = tokens
        return
    main = _process_counter(counter)
    if counter == main:
        object.__setattr__(message, COUNT_SLOT, tokens)
        return
    counts = {counter: tokens} if held is None else {main: held, counter: tokens}
    object.__setattr__(message, COUNT_SLOT, counts)


def is_process_counter(counter: str) -> bool:
    """Whether ``counter``'s counts sit in a message's slot as a bare int (it is the process's counter)."""
    return counter == _process_counter(counter)


def token_counts(message: BaseModel) -> dict[str, int]:
    """Every count held on ``message``, by counter name."""
    held: int | dict[str, int] | None = getattr(message, COUNT_SLOT, None)
    if held is None:
        return {}
    if isinstance(held, dict):
        return dict(held)
    return {_PROCESS_COUNTER["name"]: held}
