"""Every key the dashboard keeps in ``st.session_state``: the widgets' keys (their values live there) and the
plain session values, each spelled once.

Invariant: no other module spells a session key; a page-local widget's key is built by ``page_widget`` so two
pages never share one.
"""

from __future__ import annotations

from typing import Literal

# -- widgets of the shared sidebar (their keys hold the values) --------------------------------------
W_LANG = "w_lang"
W_CONVERSATION = "w_conversation"
W_TRIGGER = "w_trigger_context_ratio"
W_MIN_TARGET = "w_min_target_context_ratio"
W_KEEP = "w_keep_recent_messages"
W_CAPACITY_MODE = "w_capacity_mode"
W_CONTEXT_MAX = "w_context_max"
W_MODEL = "w_model"
W_COUNTER = "w_counter"
#: Sidebar widget → the ``Settings`` field it holds.
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
# -- Live compaction page ---------------------------------------------------------------------------
W_BACKEND = "w_live_backend"
W_USE_SERVER = "w_live_use_server"  # call the server's own endpoint (API_BASE) with the server's key
W_BASE_URL = "w_live_base_url"
W_MODEL_NAME = "w_live_model_name"
W_API_KEY = "w_live_api_key"  # password field; lives only here, never in the URL, a file or a log
W_PRESERVE = "w_live_preserve"
W_FORCE = "w_live_force"
W_KEEP_DUMP = "w_live_keep_dump"
# -- Load page --------------------------------------------------------------------------------------
W_UPLOAD = "w_upload"
W_SAMPLE = "w_sample"
# -- Dump review page -------------------------------------------------------------------------------
W_DUMP_SOURCE = "w_dump_source"
W_DUMP_UPLOAD = "w_dump_upload"
W_DUMP_PICK = "w_dump_pick"
W_RERUN_BACKEND = "w_rerun_backend"
W_RERUN_FORCE = "w_rerun_force"
# -- Tune page (its summary model, grid and headroom are read by the Demo page too, so they persist) --
W_SUMMARY_KIND = "w_tune_summary_kind"  # one of replays.SUMMARY_KINDS
W_SUMMARY_TOKENS = "w_tune_summary_tokens"  # N of fixed:N
W_SUMMARY_RATIO = "w_tune_summary_ratio"  # X of ratio:X
W_SWEEP_RATIOS = "w_tune_sweep_ratios"  # (lowest, highest) trigger ratio of the grid
W_SWEEP_STEP = "w_tune_sweep_step"
W_SWEEP_KEEPS = "w_tune_sweep_keeps"
W_HEADROOM = "w_tune_headroom"
W_LIVE_CONFIRM = "w_tune_live_confirm_"  # + the estimate it confirms (replays.live_confirm_key)
# -- Demo page --------------------------------------------------------------------------------------
W_DEMO_STEP = "w_demo_step"

#: Page widgets keep their values across page switches (Streamlit drops a widget's value otherwise).
PERSIST: Literal["session"] = "session"
#: Widgets whose option labels are translated: a language switch re-asserts their values
#: (``session.on_language_change``).
LANGUAGE_SENSITIVE: tuple[str, ...] = (
    W_CAPACITY_MODE,
    W_COUNTER,
    W_BACKEND,
    W_DUMP_SOURCE,
    W_RERUN_BACKEND,
    W_SUMMARY_KIND,
)

# -- plain session values ---------------------------------------------------------------------------
K_SEEDED = "settings_seeded"  # the settings were read from the URL once
K_SETTINGS = "last_settings"  # the Settings shown last: restores a widget value Streamlit dropped
K_SETTINGS_PENDING = "settings_pending"  # settings the program wrote that the sidebar has not drawn yet
K_ITEMS = "loaded_items"  # dict[str, LoadedConversation], in load order
K_PENDING_SELECT = "pending_selection"  # the conversation to select on the next run
K_LOAD_REPORT = "load_report"  # list[FileOutcome] of the last load action
K_SEEN_UPLOADS = "seen_upload_ids"
K_SECRETS = "message_secrets"  # item key -> (conversation, system findings, context findings)
K_LIVE_RESULT = "live_result"  # (signature, CompactionResult)
K_RERUN_RESULT = "rerun_result"  # (dump path, signature, CompactionResult)
K_BROWSE = "browse_"  # + page name -> (root index, relative folder)
K_DUMP_FOLDER = "dump_folder"  # (root index, relative folder)
K_DUMP_SEEN_UPLOADS = "dump_seen_upload_ids"
K_RUNS = "replays"  # (what, item key, settings, …) -> (conversation, Simulation | Sweep | LiveCostEstimate)
K_LIVE_REPLAY = (
    "live_replay"  # (signature, conversation, Simulation) of the last replay that called a backend
)
K_DEMO_PLAYING = "demo_playing"
K_VIEWS = "views"  # (what, conversation id, span, …) -> a figure or table a rerun reuses
K_FOLLOW_SEEN = "follow_seen"  # item key or folder -> the signature of the version on show
K_FLEET_JOB = "fleet_job"  # state.fleet.FleetJob: the session's fleet build (thread, progress, Fleet)
K_FLEET_UPLOAD_DIR = "fleet_upload_dir"  # the folder the last uploaded zip of runs was unpacked into
K_FLEET_OPEN = "fleet_open"  # ("error", line): why the last "open this run" could not read the run
K_FLEET_SHOWN = "fleet_shown"  # the FleetJob whose results the page drew last
K_QUALITY = "quality_scores"  # kind -> [(scored object, extras, score)] (state.quality)
K_RUN_COUNT = "run_count"  # this session's script runs so far, shown to the browser tests (run_marker)


def page_widget(page: str, name: str) -> str:
    """The widget key of a page-local control (kept per page so pages never share a widget)."""
    return f"w_{page}_{name}"


def browse_widget(page: str, name: str) -> str:
    """The widget key of one control of a page's folder browser."""
    return f"w_browse_{page}_{name}"
