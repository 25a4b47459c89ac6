"""The agent sessions the Load page offers: those in the standard places that lie inside the allowed roots.

Invariant: a place outside every configured root is never listed, walked or read; a session is offered as (root
index, path below that root), so opening it goes through the same confined read as any file under a root.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from compressor.formats.places import PLACES, SessionFile, find_sessions

#: How long a listing is reused before the folders are walked again (a running agent writes new sessions).
LISTING_SECONDS = 30


@dataclass(frozen=True)
class OfferedSession:
    """A session file inside a root: the agent, where it lies (root index, relative path), size and time."""

    session: SessionFile
    root_index: int
    relative: str
    #: A session store kept as a folder (OpenCode's ``storage/``), opened whole rather than as one file.
    folder: bool = False


def _inside(path: Path, configured: Sequence[Path]) -> int | None:
    for index, root in enumerate(configured):
        if path.is_relative_to(root.resolve()):
            return index
    return None


def offered_sessions(configured: Sequence[Path], home: Path | None = None) -> list[OfferedSession]:
    """The sessions in the standard places that exist inside ``configured`` roots, newest first."""
    home = Path.home() if home is None else home
    return _offered(tuple(configured), home, tuple(sorted(os.environ.items())))


@st.cache_data(ttl=LISTING_SECONDS, show_spinner=False)
def _offered(
    configured: tuple[Path, ...], home: Path, environ: tuple[tuple[str, str], ...]
) -> list[OfferedSession]:
    env = dict(environ)
    roots = ((place, place.root(home, env)) for place in PLACES)
    places = tuple(
        place for place, root in roots if root is not None and _inside(root.resolve(), configured) is not None
    )
    offered: list[OfferedSession] = []
    for session in find_sessions(home, env, places) if places else []:
        real = session.path.resolve()
        index = _inside(real, configured)
        if index is not None:
            relative = str(real.relative_to(configured[index].resolve()))
            offered.append(OfferedSession(session, index, relative, folder=real.is_dir()))
    return offered
