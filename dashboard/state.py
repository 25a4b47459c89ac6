"""The dashboard's session state and caches: the only module that reads or writes ``st.session_state``
and the only one with ``st.cache_*`` wrappers.

Invariant: a conversation is parsed once (kept in the session, or in a resource cache for files on the
server) so a settings change re-analyses the same objects and never re-tokenises; secrets stay in the session.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import streamlit as st

from compressor.analysis import Analysis, analyze
from compressor.config import ModelClientConfig, ModelRequestConfig
from compressor.replay import LiveCostEstimate, Simulation, Sweep, estimate_live_cost, simulate
from compressor.replay import sweep as run_sweep
from compressor.secrets import Finding, find_secrets_in_messages
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
# Tune page (its summary model, grid and headroom are read by the Demo page too, so they persist).
W_SUMMARY_KIND = "w_tune_summary_kind"  # one of SUMMARY_KINDS
W_SUMMARY_TOKENS = "w_tune_summary_tokens"  # N of fixed:N
W_SUMMARY_RATIO = "w_tune_summary_ratio"  # X of ratio:X
W_SWEEP_RATIOS = "w_tune_sweep_ratios"  # (lowest, highest) trigger ratio of the grid
W_SWEEP_STEP = "w_tune_sweep_step"
W_SWEEP_KEEPS = "w_tune_sweep_keeps"
W_HEADROOM = "w_tune_headroom"
W_LIVE_CONFIRM = "w_tune_live_confirm_"  # + the estimate it confirms (see live_confirm_key)
# Demo page.
W_DEMO_STEP = "w_demo_step"

#: Page widgets keep their values across page switches (Streamlit drops a widget's value otherwise).
PERSIST: Literal["session"] = "session"
#: Widgets whose option labels are translated: a language switch re-asserts their values (see on_language_change).
LANGUAGE_SENSITIVE: tuple[str, ...] = (
    W_CAPACITY_MODE,
    W_COUNTER,
    W_BACKEND,
    W_DUMP_SOURCE,
    W_RERUN_BACKEND,
    W_SUMMARY_KIND,
)

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
K_RUNS = "replays"  # (what, item key, settings, …) -> (conversation, Simulation | Sweep | LiveCostEstimate)
K_LIVE_REPLAY = "live_replay"  # (signature, Simulation) of the last replay that called the live backend
K_DEMO_PLAYING = "demo_playing"
K_SECRETS = "message_secrets"  # item key -> (conversation, system findings, context findings)

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
    st.session_state.pop(K_SECRETS, None)


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


def message_secrets(item: LoadedConversation) -> tuple[list[tuple[int, Finding]], list[tuple[int, Finding]]]:
    """Secrets in the system and the context messages of ``item``, searched once per conversation: the
    search reads every character, so a settings change must not repeat it."""
    store: dict[str, tuple[Any, ...]] = st.session_state.setdefault(K_SECRETS, {})
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


# -- whole-run replays (Tune and Demo pages) ------------------------------------------------------

#: How a replayed compaction's summary is sized (compressor.outcome.SummaryModel); "live" calls the backend
#: the Live compaction page configures, once per compaction, after the user confirms the estimate.
SUMMARY_KINDS: tuple[str, ...] = ("ratio", "fixed", "offline", "live")
#: What the pages replay with while a live replay waits for its confirmation, and what the sweep uses when
#: "live" is chosen (a sweep never calls a model). ratio:0.1 is instant; the offline backend costs about
#: a millisecond per message per compaction, too slow for a sweep of a long run.
STAND_IN_SUMMARY = "ratio:0.1"
SWEEP_STEPS: tuple[float, ...] = (0.01, 0.02, 0.05, 0.1)
KEEP_CHOICES: tuple[int, ...] = (0, 1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64)
TUNE_DEFAULTS: dict[str, Any] = {
    W_SUMMARY_KIND: "ratio",
    W_SUMMARY_TOKENS: 1500,
    W_SUMMARY_RATIO: 0.1,
    W_SWEEP_RATIOS: (0.5, 0.95),
    W_SWEEP_STEP: 0.05,
    W_SWEEP_KEEPS: [0, 2, 4, 8],
    W_HEADROOM: 0.1,
}
#: Replays kept per session (each setting the sliders visit is one); the oldest is dropped first.
REPLAYS_KEPT = 24
#: Seconds between two steps of the Demo page's playback.
DEMO_INTERVAL_SECONDS = 1.2

_Value = TypeVar("_Value")


def init_tune() -> None:
    """Seed the Tune page's widgets with their defaults (once: later values are the user's)."""
    for key, value in TUNE_DEFAULTS.items():
        if key not in st.session_state:
            st.session_state[key] = list(value) if isinstance(value, list) else value


def _tune(key: str) -> Any:
    return st.session_state.get(key, TUNE_DEFAULTS[key])


def summary_kind() -> str:
    kind = _tune(W_SUMMARY_KIND)
    return kind if kind in SUMMARY_KINDS else TUNE_DEFAULTS[W_SUMMARY_KIND]


def replay_summary() -> str:
    """The summary model a replay without a model call uses: the Tune page's choice, or the stand-in for "live"."""
    kind = summary_kind()
    if kind == "fixed":
        return f"fixed:{max(int(_tune(W_SUMMARY_TOKENS)), 1)}"
    if kind == "ratio":
        return f"ratio:{min(max(float(_tune(W_SUMMARY_RATIO)), 0.01), 1.0):g}"
    if kind == "offline":
        return "offline"
    return STAND_IN_SUMMARY


def headroom() -> float:
    return float(_tune(W_HEADROOM))


def sweep_grid(current: Settings) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """The Tune page's grid (ratios from lowest to highest by the step, the chosen keeps), always holding
    the sidebar's own ratio and keep so the current setting is one of the cells."""
    low, high = (float(value) for value in _tune(W_SWEEP_RATIOS))
    step = float(_tune(W_SWEEP_STEP)) or TUNE_DEFAULTS[W_SWEEP_STEP]
    count = int((high - low) / step + 1e-9) + 1 if high >= low else 1
    ratios = {round(low + number * step, 2) for number in range(count)} | {current.trigger_context_ratio}
    keeps = {int(keep) for keep in _tune(W_SWEEP_KEEPS)} | {current.keep_recent_messages}
    return tuple(sorted(ratios)), tuple(sorted(keeps))


def _remembered(key: tuple[Any, ...], item: LoadedConversation, make: Callable[[], _Value]) -> _Value:
    """``make()`` once per key and conversation object in this session (a slider revisiting a value is free)."""
    store: dict[tuple[Any, ...], tuple[Any, Any]] = st.session_state.setdefault(K_RUNS, {})
    found = store.pop(key, None)
    if found is None or found[0] is not item.conversation:
        found = (item.conversation, make())
    store[key] = found  # newest last
    while len(store) > REPLAYS_KEPT:
        del store[next(iter(store))]
    value: _Value = found[1]
    return value


def _replay_options(current: Settings) -> dict[str, Any]:
    return {
        "context_max": current.explicit_context_max,
        "model": current.capacity_model,
        "counter": current.counter,
    }


def simulation_for(item: LoadedConversation, current: Settings, summary: str) -> Simulation:
    """``simulate()`` of a conversation under the sidebar settings with a summary model that calls nothing."""
    return _remembered(
        ("simulate", item.key, current.compaction_key, summary),
        item,
        lambda: simulate(item.conversation, current.config(), summary=summary, **_replay_options(current)),
    )


def sweep_for(
    item: LoadedConversation, current: Settings, summary: str, ratios: Sequence[float], keeps: Sequence[int]
) -> Sweep:
    """``sweep()`` of ratios × keeps at the sidebar's min target and capacity."""
    grid = (tuple(ratios), tuple(keeps), current.min_target_context_ratio)
    return _remembered(
        ("sweep", item.key, current.compaction_key, summary, grid),
        item,
        lambda: run_sweep(
            item.conversation,
            ratios=ratios,
            keeps=keeps,
            min_targets=[current.min_target_context_ratio],
            summary=summary,
            **_replay_options(current),
        ),
    )


def live_estimate(item: LoadedConversation, current: Settings) -> LiveCostEstimate:
    """What a live replay would send (``estimate_live_cost``), shown before the user confirms it."""
    return _remembered(
        ("estimate", item.key, current.compaction_key),
        item,
        lambda: estimate_live_cost(item.conversation, current.config(), **_replay_options(current)),
    )


def live_confirm_key(estimate: LiveCostEstimate) -> str:
    """The confirm checkbox's key names the estimate it confirms: a new estimate needs a new confirmation."""
    return f"{W_LIVE_CONFIRM}{estimate.calls}_{estimate.request_tokens}"


def _live_signature(item: LoadedConversation, current: Settings) -> tuple[Any, ...]:
    state = st.session_state
    endpoint = tuple(str(state.get(key) or "").strip() for key in (W_BACKEND, W_BASE_URL, W_MODEL_NAME))
    return (item.key, current.compaction_key, endpoint)


def run_live_replay(item: LoadedConversation, current: Settings) -> Simulation:
    """Replay calling the Live compaction page's backend at every compaction, and keep the result in the
    session; raises ConfigError/ValueError naming a missing field of the backend."""
    backend = live_backend()
    model, client = live_configs()
    simulation = simulate(
        item.conversation,
        current.config(model=model, model_client=client),
        summary=backend,
        **_replay_options(current),
    )
    st.session_state[K_LIVE_REPLAY] = (_live_signature(item, current), item.conversation, simulation)
    return simulation


def live_replay(item: LoadedConversation, current: Settings) -> Simulation | None:
    """The live replay of this conversation under these settings and this backend, if one was run."""
    found = st.session_state.get(K_LIVE_REPLAY)
    if (
        isinstance(found, tuple)
        and found[0] == _live_signature(item, current)
        and found[1] is item.conversation
    ):
        simulation: Simulation = found[2]
        return simulation
    return None


def replay(item: LoadedConversation, current: Settings) -> Simulation:
    """The run both pages show: the live replay when "live" is chosen and was run, else the Tune page's
    summary model (the stand-in while a live replay waits)."""
    if summary_kind() == "live":
        found = live_replay(item, current)
        if found is not None:
            return found
    return simulation_for(item, current, replay_summary())


# Demo playback. The step is the slider's value (1-based); "playing" advances it once per timed rerun.


def demo_playing() -> bool:
    return bool(st.session_state.get(K_DEMO_PLAYING))


def demo_step(steps: int) -> int:
    """The step shown, kept within 1..steps (another conversation may have fewer steps)."""
    try:
        step = int(st.session_state.get(W_DEMO_STEP, 1))
    except (TypeError, ValueError):
        step = 1
    step = min(max(step, 1), max(steps, 1))
    st.session_state[W_DEMO_STEP] = step
    return step


def set_demo_step(step: int) -> None:
    """Button callback (and playback): show ``step``."""
    st.session_state[W_DEMO_STEP] = step


def toggle_demo(steps: int) -> None:
    """Play/pause button callback; playing from the last step starts over."""
    playing = not demo_playing()
    st.session_state[K_DEMO_PLAYING] = playing
    if playing and demo_step(steps) >= steps:
        set_demo_step(1)


def advance_demo(steps: int) -> bool:
    """One step further while playing; False when the playback just reached the last step and stopped."""
    step = demo_step(steps) + 1
    if step <= steps:
        set_demo_step(step)
    if step >= steps:
        st.session_state[K_DEMO_PLAYING] = False
        return False
    return True
