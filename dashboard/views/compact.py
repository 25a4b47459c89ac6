"""Live compaction: run one compaction of the conversation at hand with the offline backend or an
OpenAI-compatible endpoint, and see the prompt, the request, the reply, the summary, the retries, the
tokens before and after, and download the compacted conversation and its dump."""

from __future__ import annotations

import json

import streamlit as st

from compressor.window_parts import of_analysis
from dashboard import quality, roots, sources
from dashboard.compaction_view import compaction_run, show_result
from dashboard.components import error_line, flag_summary_secrets, plain, stop_when_empty
from dashboard.i18n import counted, option_labels
from dashboard.state import conversations, dumps, keys, live, session
from dashboard.state.session import t
from dashboard.window_view import decision_banner, no_model_conditions, window_summary

language = session.language()
settings = session.settings()
item = conversations.current()
analysis = conversations.analysis_for(item, settings)

st.title(t("compact.title"))
if item is None or analysis is None:
    stop_when_empty("compact.empty")

count = len(item.conversation.messages)
st.caption(plain(t("compact.subject", name=item.label, messages=counted(count, "message", language))))
offline = live.backend_kind() == "offline"
decision_banner(
    analysis.decision,
    conditions=no_model_conditions(analysis.config.model_configured, offline_backend=offline),
)
moment = t("breakdown.now", index=max(count - 1, 0), messages=counted(count, "message", language))
window_summary(of_analysis(analysis), moment=moment, key="compact")

# -- backend --------------------------------------------------------------------------------------
backend_kind = st.radio(
    t("compact.backend"),
    ("offline", "openai"),
    format_func=option_labels("compact.backend.", language),
    key=keys.W_BACKEND,
    persist_state=keys.PERSIST,
    horizontal=True,
    help=t("compact.backend_help"),
)
if backend_kind == "openai":
    server = live.server_endpoint()
    if server is not None:
        st.toggle(
            t("compact.use_server"),
            value=True,
            key=keys.W_USE_SERVER,
            persist_state=keys.PERSIST,
            help=t("compact.use_server_help"),
        )
    if live.uses_server_endpoint():
        st.text_input(
            t("compact.model_name"),
            key=keys.W_MODEL_NAME,
            persist_state=keys.PERSIST,
            placeholder=(server[1] if server else "") or "gpt-4o-mini",
        )
        st.caption(t("compact.server_endpoint"))
    else:
        left, right = st.columns(2)
        left.text_input(
            t("compact.base_url"),
            key=keys.W_BASE_URL,
            persist_state=keys.PERSIST,
            placeholder="https://api.openai.com/v1",
        )
        right.text_input(
            t("compact.model_name"),
            key=keys.W_MODEL_NAME,
            persist_state=keys.PERSIST,
            placeholder="gpt-4o-mini",
        )
        st.text_input(
            t("compact.api_key"),
            key=keys.W_API_KEY,
            persist_state=keys.PERSIST,
            type="password",
            help=t("compact.api_key_help"),
            autocomplete="off",
        )
        if server is not None or live.server_has_api_key():
            st.caption(t("compact.server_key"))
    st.caption(t("compact.live_cost", tokens=analysis.total_tokens))

preserve = st.text_area(
    t("compact.preserve"),
    key=keys.W_PRESERVE,
    persist_state=keys.PERSIST,
    help=t("compact.preserve_help"),
    height=80,
)
force = st.toggle(
    t("compact.force"), key=keys.W_FORCE, persist_state=keys.PERSIST, help=t("compact.force_help")
)
keep_dump = st.toggle(
    t(
        "compact.keep_dump",
        folder=f"{roots.root_label(roots.PROJECT_DIR / 'dumps')}{dumps.LIVE_DUMP_SUBFOLDER}/",
    ),
    key=keys.W_KEEP_DUMP,
    persist_state=keys.PERSIST,
    help=t("compact.keep_dump_help"),
)
if not analysis.decision.hit and not force:
    st.caption(t("compact.will_skip"))

signature = (
    item.key,
    settings.compaction_key,
    backend_kind,
    *live.endpoint(),
    live.uses_server_endpoint(),
    bool(force),
    preserve,
)
if st.button(t("compact.run"), type="primary", key=keys.page_widget("compact", "run")):
    result = compaction_run(
        item.conversation,
        settings,
        live.live_backend,
        force=bool(force),
        preserve=preserve.strip() or None,
        dump_dir=dumps.live_dump_dir(bool(keep_dump)),
        span_messages=analysis.span.counts[1],
    )
    live.store_live_result(signature, result)

stored = live.live_result()
if stored is None or stored[0][0] != item.key:
    st.caption(t("compact.not_run"))
    st.stop()
stored_signature, result = stored
if stored_signature != signature:
    st.warning(t("compact.stale"))

flag_summary_secrets(result.summary)
if result.status == "compacted":  # what the summary kept, beside the numbers below
    quality.result_kept(result, keys.page_widget("compact", "kept_jump"))
show_result(result, key="live")

st.subheader(t("compact.downloads"))
left, right = st.columns(2)
left.download_button(
    t("compact.download_conversation"),
    data=json.dumps(result.conversation.to_openjiuwen(), ensure_ascii=False, indent=2),
    file_name=f"{item.conversation.name or 'conversation'}-compacted.json",
    mime="application/json",
    key=keys.page_widget("compact", "download_conversation"),
    on_click="ignore",
    disabled=result.status != "compacted",
)
dump_bytes = sources.dump_bytes(result.dump_path)
right.download_button(
    t("compact.download_dump"),
    data=dump_bytes or b"",
    file_name=(result.dump_path or "dump.json").replace("\\", "/").rsplit("/", 1)[-1],
    mime="application/json",
    key=keys.page_widget("compact", "download_dump"),
    on_click="ignore",
    disabled=dump_bytes is None,
)
if result.dump_error:
    st.warning(error_line(result.dump_error))
if result.dump_path and keep_dump:
    st.caption(error_line(t("compact.dump_kept", path=result.dump_path)))
