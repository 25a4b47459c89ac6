"""The dashboard's session state and caches: the only module that reads or writes ``st.session_state``
and the only one with ``st.cache_*`` wrappers.

Invariant: a conversation is parsed once (kept in the session, or in a resource cache for files on the
server) so a settings change re-analyses the same objects and never re-tokenises; secrets stay in the session.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import streamlit as st

from compressor.analysis import Analysis, analyze
from compressor.config import ModelClientConfig, ModelRequestConfig
from compressor.windows import Capacity, resolve_context_max

from . import roots
from .settings import (
    DEFAULTS,
    LANGUAGES,
    Q_CONTEXT_MAX,
    Q_COUNTER,
    Q_KEEP,
    Q_LANG,
    Q_MIN_TARGET,
    Q_MODEL,
    Q_TRIGGER,
    Settings,
    from_query,
    to_query,
)
from .sources import FileOutcome, LoadedConversation, loaded_items, parse_upload, parse_uploads

if TYPE_CHECKING:
    from compressor.backends import Backend

# -- session keys ---------------------------------------------------------------------------------
# Widgets of the shared sidebar (their keys hold the values).
W_LANG = "w_lang"
W_CONVERSATION = "w_conversation"
W_TRIGGER = "w_trigger_context_ratio"
W_MIN_TARGET = "w_min_target_context_ratio"
W_KEEP = "w_keep_recent_messages"
W_CAPACITY_MODE = "w_capacity_mode"
W_CONTEXT_MAX = "w_context_max"
W_MODEL = "w_model"
W_COUNTER = "w_counter"
SETTING_WIDGETS: dict[str, str] = {
    W_TRIGGER: "trigger_context_ratio",
    W_MIN_TARGET: "min_target_context_ratio",
    W_KEEP: "keep_recent_messages",
    W_CAPACITY_MODE: "capacity_mode",
    W_CONTEXT_MAX: "context_max",
    W_MODEL: "model",
    W_COUNTER: "counter",
    W_LANG: "language",
}
# Live compaction page.
W_BACKEND = "w_live_backend"
W_BASE_URL = "w_live_base_url"
W_MODEL_NAME = "w_live_model_name"
W_API_KEY = "w_live_api_key"  # password field; lives only here, never in the URL, a file or a log
W_PRESERVE = "w_live_preserve"
W_FORCE = "w_live_force"
W_KEEP_DUMP = "w_live_keep_dump"
# Load page.
W_UPLOAD = "w_upload"
W_SAMPLE = "w_sample"
# Dump review page.
W_DUMP_SOURCE = "w_dump_source"
W_DUMP_UPLOAD = "w_dump_upload"
W_DUMP_PICK = "w_dump_pick"
W_RERUN_BACKEND = "w_rerun_backend"
W_RERUN_FORCE = "w_rerun_force"

#: Page widgets keep their values across page switches (Streamlit drops a widget's value otherwise).
PERSIST: Literal["session"] = "session"
#: Widgets whose option labels are translated: a language switch re-asserts their values (see on_language_change).
LANGUAGE_SENSITIVE: tuple[str, ...] = (W_CAPACITY_MODE, W_COUNTER, W_BACKEND, W_DUMP_SOURCE, W_RERUN_BACKEND)

# Plain session values.
K_ITEMS = "loaded_items"  # dict[str, LoadedConversation], in load order
K_PENDING_SELECT = "pending_selection"
K_PENDING_SETTINGS = "pending_settings"
K_SEEDED = "settings_seeded"
K_LOAD_REPORT = "load_report"  # list[FileOutcome] of the last load action
K_SEEN_UPLOADS = "seen_upload_ids"
K_LIVE_RESULT = "live_result"  # (signature, CompactionResult)
K_LIVE_DUMP_DIR = "live_dump_dir"
K_BROWSE = "browse_"  # + page name -> (root index, relative folder)
K_DUMP_FOLDER = "dump_folder"  # (root index, relative folder)
K_DUMP_UPLOAD_DIR = "dump_upload_dir"
K_DUMP_SEEN_UPLOADS = "dump_seen_upload_ids"
K_RERUN_RESULT = "rerun_result"  # (dump path, signature, CompactionResult)

DEMO_FILE = "demo-conversation.json"
#: Where the demo dump session lives (produced by our own compressor); the Dump review page opens it first.
DEMO_DUMP_FOLDER = "demo"
#: Where the Live page keeps a dump when the user asks to keep it (under the project's dumps/).
LIVE_DUMP_SUBFOLDER = "dashboard"


# -- session setup --------------------------------------------------------------------------------


def init_session() -> None:
    """Run first on every rerun: seed settings from the URL once, apply pending changes, load the demo."""
    state = st.session_state
    if not state.get(K_SEEDED):
        _write_settings(from_query(st.query_params.to_dict()))
        state[K_SEEDED] = True
    pending = state.pop(K_PENDING_SETTINGS, None)
    if isinstance(pending, Settings):
        _write_settings(pending)
    if K_ITEMS not in state:
        state[K_ITEMS] = {}
        demo = load_sample(DEMO_FILE)
        add_items(loaded_items("sample", demo), select=True)
    items: dict[str, LoadedConversation] = state[K_ITEMS]
    selected = state.pop(K_PENDING_SELECT, None)
    if selected in items:
        state[W_CONVERSATION] = selected
    if state.get(W_CONVERSATION) not in items:
        state[W_CONVERSATION] = next(iter(items), None)


def _write_settings(settings: Settings) -> None:
    for widget, name in SETTING_WIDGETS.items():
        st.session_state[widget] = getattr(settings, name)


def settings() -> Settings:
    """The settings the sidebar widgets hold now, checked the way a shared link is (never invalid)."""
    state = st.session_state
    params: dict[str, Any] = {
        Q_TRIGGER: state.get(W_TRIGGER),
        Q_MIN_TARGET: state.get(W_MIN_TARGET),
        Q_KEEP: state.get(W_KEEP),
        Q_CONTEXT_MAX: state.get(W_CONTEXT_MAX),
        Q_COUNTER: state.get(W_COUNTER),
        Q_LANG: state.get(W_LANG),
    }
    if state.get(W_CAPACITY_MODE) == "model":
        params[Q_MODEL] = state.get(W_MODEL)
    return from_query({name: value for name, value in params.items() if value is not None})


def apply_settings(new: Settings) -> None:
    """Widget callback: put other settings in the sidebar, e.g. ``st.button(..., on_click=apply_settings,
    args=(settings,))`` for a Tune page's "apply to sidebar" (callbacks run before the sidebar is drawn)."""
    _write_settings(new)


def request_settings(new: Settings) -> None:
    """Outside a callback: ask for other sidebar settings, applied at the start of a rerun started now."""
    st.session_state[K_PENDING_SETTINGS] = new
    st.rerun()


def reset_settings() -> None:
    """Sidebar button callback: back to the defaults (the language is kept)."""
    language = st.session_state.get(W_LANG, DEFAULTS.language)
    _write_settings(Settings(language=language))


def sync_query_params(current: Settings) -> None:
    """Mirror the settings into the URL so the page address can be shared (never a secret)."""
    wanted = to_query(current)
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def on_language_change() -> None:
    """Language radio callback. Streamlit stores a radio's or selectbox's value as its shown label, so a
    label that changes language would no longer match and the widget would fall back to its default;
    writing each value back as the Python value keeps the choice."""
    for key in LANGUAGE_SENSITIVE:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def language() -> str:
    value = st.session_state.get(W_LANG, DEFAULTS.language)
    return value if value in LANGUAGES else DEFAULTS.language


# -- loaded conversations -------------------------------------------------------------------------


def items() -> dict[str, LoadedConversation]:
    found = st.session_state.get(K_ITEMS)
    return found if isinstance(found, dict) else {}


def current() -> LoadedConversation | None:
    state = st.session_state
    found = items()
    key = state.get(K_PENDING_SELECT) or state.get(W_CONVERSATION)
    if key in found:
        return found[key]
    return next(iter(found.values()), None)


def add_items(new: Sequence[LoadedConversation], *, select: bool = True) -> None:
    """Keep conversations in the session (replacing same-key ones) and select the first new one."""
    store = st.session_state.setdefault(K_ITEMS, {})
    for item in new:
        store[item.key] = item
    if select and new:
        select_item(new[0].key)


def select_item(key: str) -> None:
    """Make ``key`` the current conversation (the sidebar picker follows on the next run)."""
    st.session_state[K_PENDING_SELECT] = key


def clear_items() -> None:
    st.session_state[K_ITEMS] = {}
    st.session_state.pop(K_PENDING_SELECT, None)
    st.session_state.pop(K_LIVE_RESULT, None)


def set_load_report(outcomes: Sequence[FileOutcome]) -> None:
    st.session_state[K_LOAD_REPORT] = list(outcomes)


def load_report() -> list[FileOutcome]:
    return list(st.session_state.get(K_LOAD_REPORT, []))


def new_uploads(files: Sequence[Any], seen_key: str = K_SEEN_UPLOADS) -> list[Any]:
    """The uploaded files not handled yet (Streamlit hands the same files to every rerun)."""
    seen: set[str] = st.session_state.setdefault(seen_key, set())
    fresh = [f for f in files if f.file_id not in seen]
    seen.update(f.file_id for f in fresh)
    return fresh


def _keep(origin: str, outcomes: Sequence[FileOutcome]) -> None:
    add_items(loaded_items(origin, outcomes), select=True)
    set_load_report(outcomes)


# Widget callbacks of the Load page: they run before the script, so the sidebar shows the result at once.


def on_upload() -> None:
    """Parse the newly uploaded files (a zip counts as its members) and keep what loaded."""
    fresh = new_uploads(st.session_state.get(W_UPLOAD) or [])
    if fresh:
        _keep("upload", parse_uploads([(upload.name, upload.getvalue()) for upload in fresh]))


def on_open_sample() -> None:
    name = st.session_state.get(W_SAMPLE)
    if isinstance(name, str) and name:
        _keep("sample", load_sample(name))


def on_open_root_file(root_index: int, relative: str) -> None:
    configured = roots.configured_roots()
    try:
        outcomes = load_root_file(configured[root_index], relative)
    except (IndexError, roots.OutsideRootError, OSError) as error:
        outcomes = [FileOutcome(relative, error=f"{relative}: {error}")]
    _keep("root", outcomes)


# -- analysis -------------------------------------------------------------------------------------


def live_configs(*, with_key: bool = False) -> tuple[ModelRequestConfig | None, ModelClientConfig | None]:
    """The model and client the Live page configures (None, None for the offline backend or missing fields).

    Without ``with_key`` the client carries no API key: enough for analysis, which only asks whether
    openJiuwen would have a model.
    """
    state = st.session_state
    if state.get(W_BACKEND) != "openai":
        return None, None
    base = str(state.get(W_BASE_URL) or "").strip()
    name = str(state.get(W_MODEL_NAME) or "").strip()
    if not base or not name:
        return None, None
    key = api_key() if with_key else ""
    try:
        from pydantic import SecretStr

        return ModelRequestConfig(model=name), ModelClientConfig(api_base=base, api_key=SecretStr(key))
    except ValueError:
        return None, None


def api_key() -> str:
    """The key typed in the password field, else the server's ``API_KEY`` (never sent to the browser)."""
    typed = str(st.session_state.get(W_API_KEY) or "")
    return typed or os.environ.get("API_KEY", "")


def server_has_api_key() -> bool:
    return bool(os.environ.get("API_KEY"))


def analysis_for(item: LoadedConversation | None, current_settings: Settings) -> Analysis | None:
    """``analyze()`` of a conversation under the settings (cheap: the token profile is cached on it)."""
    if item is None:
        return None
    model, client = live_configs()
    return analyze(
        item.conversation,
        current_settings.config(model=model, model_client=client),
        context_max=current_settings.explicit_context_max,
        model=current_settings.capacity_model,
        counter=current_settings.counter,
    )


def capacity(current_settings: Settings) -> Capacity:
    return resolve_context_max(current_settings.explicit_context_max, current_settings.capacity_model)


# -- cached loaders -------------------------------------------------------------------------------


def sample_files() -> list[str]:
    """The bundled sample conversations (the demo first)."""
    names = [
        path.name
        for path in roots.SAMPLES_DIR.iterdir()
        if path.is_file() and path.name.lower().endswith(roots.CONVERSATION_SUFFIXES)
    ]
    return sorted(names, key=lambda name: (name != DEMO_FILE, name.lower()))


def load_sample(name: str) -> list[FileOutcome]:
    path = roots.confine(roots.SAMPLES_DIR, name)
    stat = path.stat()
    return list(_load_server_file(str(path), name, stat.st_mtime_ns, stat.st_size))


def load_root_file(root: Path, relative: str) -> list[FileOutcome]:
    """A file under a root (confined), parsed once per version of the file."""
    path = roots.confine(root, relative)
    stat = path.stat()
    return list(_load_server_file(str(path), relative, stat.st_mtime_ns, stat.st_size))


@st.cache_resource(max_entries=32, show_spinner=False)
def _load_server_file(path: str, label: str, mtime_ns: int, size: int) -> tuple[FileOutcome, ...]:
    # Frozen conversations are shared between sessions, so their token profiles are too.
    del mtime_ns, size  # part of the cache key only
    return tuple(parse_upload(label, Path(path).read_bytes()))


def dump_index(folder: Path) -> Any:
    """``compressor.dumps.index_dumps`` of a folder: the walk is fresh on every run (new dumps show at
    once) while parsed files come from a cache shared by all sessions, so 2,000 dumps are read once."""
    from compressor.dumps import index_dumps

    return index_dumps(folder, cache=_dump_index_cache())


@st.cache_resource(show_spinner=False)
def _dump_index_cache() -> Any:
    from compressor.dumps import DumpIndexCache

    return DumpIndexCache()


def dump_record(path: str) -> Any:
    stat = Path(path).stat()
    return _dump_record(path, stat.st_mtime_ns, stat.st_size)


@st.cache_resource(max_entries=64, show_spinner=False)
def _dump_record(path: str, mtime_ns: int, size: int) -> Any:
    from compressor.dumps import read_dump

    del mtime_ns, size
    return read_dump(path)


# -- folders --------------------------------------------------------------------------------------


def page_widget(page: str, name: str) -> str:
    """The widget key of a page-local control (kept per page so pages never share a widget)."""
    return f"w_{page}_{name}"


def browse_widget(page: str, name: str) -> str:
    """The widget key of one control of a page's folder browser."""
    return f"w_browse_{page}_{name}"


def browse_position(page: str) -> tuple[int, str]:
    found = st.session_state.get(K_BROWSE + page)
    return found if isinstance(found, tuple) else (0, "")


def set_browse_position(page: str, root_index: int, relative: str) -> None:
    st.session_state[K_BROWSE + page] = (root_index, relative)


def dump_folder() -> tuple[int, str] | None:
    """The dump folder chosen for review (root index, relative path), or None before any choice."""
    found = st.session_state.get(K_DUMP_FOLDER)
    return found if isinstance(found, tuple) else None


def set_dump_folder(root_index: int, relative: str) -> None:
    st.session_state[K_DUMP_FOLDER] = (root_index, relative)


def default_dump_folder(configured: Sequence[Path]) -> tuple[int, str]:
    """The demo session under the first root that has it, else the first root itself."""
    for index, root in enumerate(configured):
        try:
            if roots.confine(root, DEMO_DUMP_FOLDER).is_dir():
                return index, DEMO_DUMP_FOLDER
        except (roots.OutsideRootError, OSError):
            continue
    return 0, ""


def session_temp_dir(key: str, prefix: str) -> Path:
    """A private folder for this session (uploaded dumps, live-run dumps), made on first use."""
    found = st.session_state.get(key)
    if isinstance(found, str) and Path(found).is_dir():
        return Path(found)
    made = tempfile.mkdtemp(prefix=prefix)
    st.session_state[key] = made
    return Path(made)


def dump_upload_dir() -> Path:
    """This session's private folder of uploaded dumps."""
    return session_temp_dir(K_DUMP_UPLOAD_DIR, "compaction-lab-dumps-")


def new_dump_uploads(files: Sequence[Any]) -> list[Any]:
    return new_uploads(files, K_DUMP_SEEN_UPLOADS)


def live_dump_dir(keep: bool) -> Path:
    """Where the Live page writes its dump: dumps/dashboard/ when kept, else a private temporary folder."""
    if keep:
        return roots.PROJECT_DIR / "dumps" / LIVE_DUMP_SUBFOLDER
    return session_temp_dir(K_LIVE_DUMP_DIR, "compaction-lab-live-")


# -- backends and results -------------------------------------------------------------------------


def live_backend() -> Backend:
    """The backend the Live page configures; raises ConfigError/ValueError naming a missing field."""
    from compressor.backends import OfflineBackend, OpenAICompatibleBackend
    from compressor.errors import ConfigError

    if st.session_state.get(W_BACKEND) != "openai":
        return OfflineBackend()
    model, client = live_configs(with_key=True)
    if model is None or client is None:
        raise ConfigError("base URL and model name are both needed for the OpenAI-compatible backend")
    return OpenAICompatibleBackend(client, model)


def store_live_result(signature: tuple[Any, ...], result: Any) -> None:
    st.session_state[K_LIVE_RESULT] = (signature, result)


def live_result() -> tuple[tuple[Any, ...], Any] | None:
    found = st.session_state.get(K_LIVE_RESULT)
    return found if isinstance(found, tuple) else None


def store_rerun_result(path: str, signature: tuple[Any, ...], result: Any) -> None:
    st.session_state[K_RERUN_RESULT] = (path, signature, result)


def rerun_result(path: str) -> tuple[tuple[Any, ...], Any] | None:
    found = st.session_state.get(K_RERUN_RESULT)
    if isinstance(found, tuple) and found[0] == path:
        return found[1], found[2]
    return None
