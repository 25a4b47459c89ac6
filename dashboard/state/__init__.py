"""The dashboard's session state, one room per job: ``keys`` (every session key), ``session`` (settings, URL,
language, ``t()``), ``conversations``, ``dumps``, ``follow`` (polls of what an agent is still writing), ``live``
(backend and results), ``fleet`` (the Fleet page's build), ``replays`` (Tune, Demo),
``scratch`` (temporary folders) and ``views`` (figures a rerun reuses).

Invariant: only this package reads or writes ``st.session_state`` and only it wraps loaders in
``st.cache_*``. Pages import the rooms (``from dashboard.state import keys, session``) so every call says
which job it asks of.
"""

from . import conversations, dumps, fleet, follow, keys, live, replays, scratch, session, views

__all__ = [
    "conversations",
    "dumps",
    "fleet",
    "follow",
    "keys",
    "live",
    "replays",
    "scratch",
    "session",
    "views",
]
