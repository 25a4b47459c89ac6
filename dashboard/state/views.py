"""What a page draws from values that a settings change does not touch (a conversation's message bars and table
under one span), kept between reruns so moving the trigger slider rebuilds only what it changes.

Invariant: an entry is found only by the very objects and numbers it was made from (the conversation object, by
identity, and the span, counter and language); a new version of any of them makes a new entry; few are kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from . import keys

#: Figures and tables kept per session (the oldest is dropped first).
KEPT = 12
_Made = TypeVar("_Made")


def kept(key: tuple[Any, ...], owner: object, make: Callable[[], _Made]) -> _Made:
    """``make()`` once per ``key`` and ``owner`` (the conversation it is drawn from, compared by identity, so a
    new conversation never meets an old one's figure) in this session, the newest ``KEPT`` kept."""
    store: dict[tuple[Any, ...], tuple[object, Any]] = st.session_state.setdefault(keys.K_VIEWS, {})
    entry = store.pop(key, None)
    if entry is None or entry[0] is not owner:
        entry = (owner, make())
    store[key] = entry  # newest last
    while len(store) > KEPT:
        del store[next(iter(store))]
    found: _Made = entry[1]
    return found
