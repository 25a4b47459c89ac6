"""Live compaction: run one compaction of the conversation at hand with the offline backend or an
OpenAI-compatible endpoint, and see the prompt, the request, the reply, the summary, the retries, the
tokens before and after, and download the compacted conversation and its dump."""

from __future__ import annotations

import json

import streamlit as st

from dashboard import components, roots, state
from dashboard.components import flag_summary_secrets, plain, stop_when_empty
from dashboard.i18n import explain, option_labels, t
from dashboard.results import compaction_available, run_compaction, show_result

settings = state.settings()
item = state.current()
analysis = state.analysis_for(item, settings)

st.title(t("compact.title"))
if item is None or analysis is None:
    stop_when_empty("compact.empty")
if not compaction_available():
    st.info(t("compact.unavailable"))
    st.stop()

st.caption(plain(t("compact.subject", name=item.label, messages=len(item.conversation.messages))))
(st.success if analysis.decision.hit else st.info)(explain(analysis.decision))

# -- backend --------------------------------------------------------------------------------------
backend_kind = st.radio(
    t("compact.backend"),
    ("offline", "openai"),
    format_func=option_labels("compact.backend."),
    key=state.W_BACKEND,
    persist_state=state.PERSIST,
    horizontal=True,
    help=t("compact.backend_help"),
)
if backend_kind == "openai":
    left, right = st.columns(2)
    left.text_input(
        t("compact.base_url"),
        key=state.W_BASE_URL,
        persist_state=state.PERSIST,
        placeholder="https://api.openai.com/v1",
    )
    right.text_input(
        t("compact.model_name"),
        key=state.W_MODEL_NAME,
        persist_state=state.PERSIST,
        placeholder="gpt-4o-mini",
    )
    st.text_input(
        t("compact.api_key"),
        key=state.W_API_KEY,
        persist_state=state.PERSIST,
        type="password",
        help=t("compact.api_key_help"),
        autocomplete="off",
    )
    if state.server_has_api_key():
        st.caption(t("compact.server_key"))
    st.caption(t("compact.live_cost", tokens=analysis.total_tokens))

preserve = st.text_area(
    t("compact.preserve"),
    key=state.W_PRESERVE,
    persist_state=state.PERSIST,
    help=t("compact.preserve_help"),
    height=80,
)
force = st.toggle(
    t("compact.force"), key=state.W_FORCE, persist_state=state.PERSIST, help=t("compact.force_help")
)
keep_dump = st.toggle(
    t(
        "compact.keep_dump",
        folder=f"{roots.root_label(roots.PROJECT_DIR / 'dumps')}{state.LIVE_DUMP_SUBFOLDER}/",
    ),
    key=state.W_KEEP_DUMP,
    persist_state=state.PERSIST,
    help=t("compact.keep_dump_help"),
)
if not analysis.decision.hit and not force:
    st.caption(t("compact.will_skip"))

signature = (item.key, settings.compaction_key, backend_kind, bool(force), preserve)
if st.button(t("compact.run"), type="primary", key=state.page_widget("compact", "run")):
    with st.status(t("compact.running"), expanded=True) as status:
        try:
            backend = state.live_backend()
        except ValueError as error:
            status.update(label=t("compact.config_error"), state="error")
            st.error(plain(str(error)))
            st.stop()
        status.write(plain(t("compact.step.backend", backend=backend.label)))
        status.write(t("compact.step.request", messages=analysis.span.counts[1]))
        result = run_compaction(
            item.conversation,
            settings,
            backend,
            force=bool(force),
            preserve=preserve.strip() or None,
            dump_dir=state.live_dump_dir(bool(keep_dump)),
        )
        ok = result.status in ("compacted", "skipped", "no_benefit")
        status.update(label=t(f"status.{result.status}"), state="complete" if ok else "error", expanded=False)
    state.store_live_result(signature, result)

stored = state.live_result()
if stored is None:
    st.caption(t("compact.not_run"))
    st.stop()
stored_signature, result = stored
if stored_signature[0] != item.key:
    st.caption(t("compact.not_run"))
    st.stop()
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
    key=state.page_widget("compact", "download_conversation"),
    on_click="ignore",
    disabled=result.status != "compacted",
)
dump_bytes = components.read_dump_bytes(result.dump_path)
right.download_button(
    t("compact.download_dump"),
    data=dump_bytes or b"",
    file_name=(result.dump_path or "dump.json").replace("\\", "/").rsplit("/", 1)[-1],
    mime="application/json",
    key=state.page_widget("compact", "download_dump"),
    on_click="ignore",
    disabled=dump_bytes is None,
)
if result.dump_error:
    st.warning(plain(result.dump_error))
if result.dump_path and keep_dump:
    st.caption(plain(t("compact.dump_kept", path=result.dump_path)))
