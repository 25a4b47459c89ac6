"""Live compaction: run one compaction of the conversation at hand with the offline backend or an
OpenAI-compatible endpoint, and see the prompt, the request, the reply, the summary, the retries, the
tokens before and after, and download the compacted conversation and its dump."""

from __future__ import annotations

import json

import streamlit as st

from dashboard import roots, sources
from dashboard.components import compaction_run, flag_summary_secrets, plain, show_result, stop_when_empty
from dashboard.i18n import explain, option_labels
from dashboard.state import conversations, dumps, keys, live, session
from dashboard.state.session import t

language = session.language()
settings = session.settings()
item = conversations.current()
analysis = conversations.analysis_for(item, settings)

st.title(t("compact.title"))
if item is None or analysis is None:
    stop_when_empty("compact.empty")

st.caption(plain(t("compact.subject", name=item.label, messages=len(item.conversation.messages))))
(st.success if analysis.decision.hit else st.info)(explain(analysis.decision, language))

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
    left, right = st.columns(2)
    left.text_input(
        t("compact.base_url"),
        key=keys.W_BASE_URL,
        persist_state=keys.PERSIST,
        placeholder="https://api.openai.com/v1",
    )
    right.text_input(
        t("compact.model_name"), key=keys.W_MODEL_NAME, persist_state=keys.PERSIST, placeholder="gpt-4o-mini"
    )
    st.text_input(
        t("compact.api_key"),
        key=keys.W_API_KEY,
        persist_state=keys.PERSIST,
        type="password",
        help=t("compact.api_key_help"),
        autocomplete="off",
    )
    if live.server_has_api_key():
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

signature = (item.key, settings.compaction_key, backend_kind, bool(force), preserve)
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
    st.warning(plain(result.dump_error))
if result.dump_path and keep_dump:
    st.caption(plain(t("compact.dump_kept", path=result.dump_path)))
