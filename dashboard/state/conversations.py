"""The conversations a session holds: loaded from uploads, bundled samples and files under the roots, the
one on show, and what is computed from it on every run (its analysis, the secrets in its messages).

Invariant: a conversation is parsed once (kept in the session, or in a resource cache shared by sessions for
files on the server) so a settings change re-analyses the same object and never re-tokenises it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from compressor.analysis import Analysis, analyze
from compressor.dumps.files import UnreadableFile
from compressor.formats.places import is_store_folder
from compressor.formats.stores import open_store
from compressor.message_pack import MessagePack
from compressor.messages import Conversation, Message
from compressor.secrets import Finding, find_secrets_in_messages

from .. import roots
from ..settings import Settings
from ..sources import (
    FileOutcome,
    LoadedConversation,
    conversation_chars,
    loaded_items,
    one_line,
    parse_store,
    parse_upload,
    parse_uploads,
    within_session_budget,
)
from . import keys, live

#: The bundled run every session opens with.
DEMO_FILE = "demo-conversation.json"
#: Secrets found in one message list: (index in the list, finding).
Found = list[tuple[int, Finding]]


def init_items() -> None:
    """Run on every rerun after the settings: load the demo once, apply a pending selection (until the picker
    has drawn it), keep the sidebar's picker on a conversation that exists."""
    state = st.session_state
    if keys.K_ITEMS not in state:
        state[keys.K_ITEMS] = {}
        add_items(loaded_items("sample", load_sample(DEMO_FILE)), select=True)
    held = items()
    # A selection stays pending until the sidebar has drawn it: a run cut short by the next one would else
    # leave the browser's old choice to come back.
    selected = state.get(keys.K_PENDING_SELECT)
    if selected in held:
        state[keys.W_CONVERSATION] = selected
    if state.get(keys.W_CONVERSATION) not in held:
        state[keys.W_CONVERSATION] = next(iter(held), None)


def picker_drawn() -> None:
    """The sidebar's conversation picker has been drawn: a pending selection has reached it."""
    st.session_state.pop(keys.K_PENDING_SELECT, None)


def items() -> dict[str, LoadedConversation]:
    found = st.session_state.get(keys.K_ITEMS)
    return found if isinstance(found, dict) else {}


def current() -> LoadedConversation | None:
    """The conversation on show: the one just selected, else the sidebar's, else the first loaded."""
    state = st.session_state
    found = items()
    key = state.get(keys.K_PENDING_SELECT) or state.get(keys.W_CONVERSATION)
    if key in found:
        return found[key]
    return next(iter(found.values()), None)


def add_items(new: Sequence[LoadedConversation], *, select: bool = True) -> None:
    """Keep conversations in the session (replacing same-key ones) and select the first new one."""
    store = st.session_state.setdefault(keys.K_ITEMS, {})
    for item in new:
        store[item.key] = item
    if select and new:
        select_item(new[0].key)


def select_item(key: str) -> None:
    """Make ``key`` the current conversation (the sidebar picker follows on the next run)."""
    st.session_state[keys.K_PENDING_SELECT] = key


def clear_items() -> None:
    """Button callback: forget every loaded conversation and what was computed from them."""
    st.session_state[keys.K_ITEMS] = {}
    for key in (keys.K_PENDING_SELECT, keys.K_LIVE_RESULT, keys.K_SECRETS):
        st.session_state.pop(key, None)


def set_load_report(outcomes: Sequence[FileOutcome]) -> None:
    st.session_state[keys.K_LOAD_REPORT] = list(outcomes)


def load_report() -> list[FileOutcome]:
    """What the last load action gave, file by file."""
    return list(st.session_state.get(keys.K_LOAD_REPORT, []))


def new_uploads(files: Sequence[UploadedFile], seen_key: str = keys.K_SEEN_UPLOADS) -> list[UploadedFile]:
    """The uploaded files not handled yet (Streamlit hands the same files to every rerun)."""
    seen: set[str] = st.session_state.setdefault(seen_key, set())
    fresh = [upload for upload in files if upload.file_id not in seen]
    seen.update(upload.file_id for upload in fresh)
    return fresh


def _keep(origin: str, outcomes: Sequence[FileOutcome], *, root_index: int | None = None) -> None:
    held = sum(conversation_chars(item.conversation) for item in items().values())
    outcomes = within_session_budget(outcomes, held)  # a tokenising budget per session
    add_items(loaded_items(origin, outcomes, root_index=root_index), select=True)
    set_load_report(outcomes)


# Widget callbacks of the Load page: they run before the script, so the sidebar shows the result at once.


def on_upload() -> None:
    """Parse the newly uploaded files (a zip counts as its members) and keep what loaded."""
    fresh = new_uploads(st.session_state.get(keys.W_UPLOAD) or [])
    if fresh:
        _keep("upload", parse_uploads([(upload.name, upload.getvalue()) for upload in fresh]))


def on_open_sample() -> None:
    name = st.session_state.get(keys.W_SAMPLE)
    if isinstance(name, str) and name:
        _keep("sample", load_sample(name))


def on_open_root_file(root_index: int, relative: str) -> None:
    configured = roots.configured_roots()
    try:
        outcomes, database = _open_root_file(configured[root_index], relative)
    except (IndexError, roots.OutsideRootError, UnreadableFile, OSError) as error:
        outcomes, database = [FileOutcome(relative, error=one_line(error, relative))], False
    # a database is read whole on every open, never followed (the "store" origin), as a store folder is
    _keep("store" if database else "root", outcomes, root_index=root_index)


def on_open_root_store(root_index: int, relative: str) -> None:
    """Open a session store kept as a folder under a root (OpenCode's ``storage/``): every session it holds."""
    configured = roots.configured_roots()
    try:
        outcomes = load_root_store(configured[root_index], relative)
    except (IndexError, roots.OutsideRootError, UnreadableFile, OSError) as error:
        outcomes = [FileOutcome(relative, error=one_line(error, relative or "."))]
    _keep("store", outcomes, root_index=root_index)  # read whole, never followed


# -- what every run computes from the conversation on show -------------------------------------------


def analysis_for(item: LoadedConversation | None, current_settings: Settings) -> Analysis | None:
    """``analyze()`` of a conversation under the settings (cheap: the token profile is cached on it)."""
    if item is None:
        return None
    model, client = live.live_configs()
    return analyze(
        item.conversation,
        current_settings.config(model=model, model_client=client),
        context_max=current_settings.explicit_context_max,
        model=current_settings.capacity_model,
        counter=current_settings.counter,
    )


def message_secrets(item: LoadedConversation) -> tuple[Found, Found]:
    """Secrets in the system and the context messages of ``item``, searched once per conversation: the
    search reads every character, so a settings change must not repeat it."""
    store: dict[str, tuple[object, Found, Found]] = st.session_state.setdefault(keys.K_SECRETS, {})
    found = store.get(item.key)
    if found is None or found[0] is not item.conversation:
        conversation = item.conversation
        found = (
            conversation,
            find_secrets_in_messages(conversation.system),
            find_secrets_in_messages(conversation.messages),
        )
        store[item.key] = found
    return found[1], found[2]


# -- files on the server, parsed once per version --------------------------------------------------


def sample_files() -> list[str]:
    """The bundled sample conversations (the demo first)."""
    names = [
        path.name
        for path in roots.SAMPLES_DIR.iterdir()
        if path.is_file() and path.name.lower().endswith(roots.CONVERSATION_SUFFIXES)
    ]
    return sorted(names, key=lambda name: (name != DEMO_FILE, name.lower()))


def load_sample(name: str) -> list[FileOutcome]:
    return load_root_file(roots.SAMPLES_DIR, name)


def load_root_file(root: Path, relative: str) -> list[FileOutcome]:
    """A regular file under a root (confined), parsed once per version of the file; OutsideRootError,
    UnreadableFile or OSError naming the file when it cannot be read."""
    return _open_root_file(root, relative)[0]


def _open_root_file(root: Path, relative: str) -> tuple[list[FileOutcome], bool]:
    """``load_root_file``, and whether the file is an SQLite database (its header read once, here)."""
    signature = roots.file_signature(root, relative)
    if signature is None:
        roots.read_file(root, relative)  # raises, naming why the file cannot be read
        raise UnreadableFile(f"{relative}: cannot be read")
    store = open_store(roots.confine(root, relative), relative)  # a regular file: a Store only for a database
    if store is not None and store.kind == "sqlite":
        # Read by its path, page by page and on every open: a database (Cursor's state.vscdb) may be far bigger than
        # the chats it holds, and a running agent's write may reach only its -wal, which the file's date misses.
        return [parse_store(relative, store)], True
    return list(_load_server_file(str(root), relative, *signature)), False


def is_root_store(root: Path, relative: str) -> bool:
    """The folder ``relative`` under ``root`` is a session store a page can open (False when it is outside)."""
    try:
        folder = roots.confine(root, relative)
    except roots.OutsideRootError:
        return False
    return folder.is_dir() and is_store_folder(folder)


def load_root_store(root: Path, relative: str) -> list[FileOutcome]:
    """A session store folder under a root (confined; the store reader opens only regular files inside it and
    follows no link out of it), read on every open: a store changes wherever a session is written."""
    folder = roots.confine(root, relative)
    if not folder.is_dir() or not is_store_folder(folder):
        raise UnreadableFile(
            f"{relative or '.'}: is not a session store folder (such as OpenCode's storage/)"
        )
    return [parse_store(relative or folder.name, folder)]


@st.cache_resource(max_entries=32, show_spinner=False)
def _load_server_file(root: str, relative: str, mtime_ns: int, size: int) -> tuple[FileOutcome, ...]:
    # Frozen conversations are shared between sessions, so their token profiles are too.
    del mtime_ns, size  # part of the cache key only
    return tuple(parse_upload(relative, roots.read_file(Path(root), relative)))


# -- following a file that is still being written ----------------------------------------------------


def refresh_item(key: str) -> bool:
    """Read a followed conversation's file again if it changed; True when the session now holds a newer
    version. Messages already read are kept with their token counts (the same objects, or a packed start), so
    only what was appended is tokenised; a torn last line is left for the next poll by the loader."""
    item = items().get(key)
    if item is None or not item.followable or item.root_index is None:
        return False
    configured = roots.configured_roots()
    if item.root_index >= len(configured):
        return False
    root = configured[item.root_index]
    signature = roots.file_signature(root, item.file)
    store: dict[str, object] = st.session_state.setdefault(keys.K_FOLLOW_SEEN, {})
    if signature is None or store.get(key) == signature:
        return False
    store[key] = signature
    try:
        outcomes = parse_upload(item.file, roots.read_file(root, item.file))
    except (roots.OutsideRootError, UnreadableFile, OSError):
        return False
    number = int(key.rsplit("#", 1)[-1]) if "#" in key else 0
    fresh = [c for outcome in outcomes for c in outcome.conversations]
    if number >= len(fresh):
        return False
    grown = continued(item.conversation, fresh[number])
    if grown == item.conversation:
        return False
    st.session_state[keys.K_ITEMS][key] = replace(item, conversation=grown)
    return True


def _reuse(old: Sequence[Message], new: Sequence[Message]) -> Sequence[Message]:
    kept = 0
    for before, after in zip(old, new, strict=False):
        if before != after:
            break
        kept += 1
    if isinstance(old, MessagePack):  # the pack's start keeps its counts; the rest is packed after it
        reused = old[:kept]
        reused.extend(new[kept:])
        return reused
    return [*old[:kept], *new[kept:]]


def continued(old: Conversation, new: Conversation) -> Conversation:
    """``new`` with the messages it shares with ``old`` (an unchanged start) taken from ``old``, with their token
    counts."""
    return new.model_copy(
        update={"system": _reuse(old.system, new.system), "messages": _reuse(old.messages, new.messages)}
    )
