"""The backend the Live compaction page configures, one compaction run with it, and the last results of
the Live page and of Dump review's re-run.

Invariant: a typed API key lives only in the session and reaches nothing but the endpoint typed with it; the
server's ``API_KEY`` reaches only the server's own ``API_BASE``; a stored result carries the signature of what
produced it, so a page can tell when it is stale.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import streamlit as st
from pydantic import SecretStr

from compressor.backends import Backend, OfflineBackend, OpenAICompatibleBackend, ReplayBackend
from compressor.compaction_result import CompactionResult
from compressor.compactor import CurrentRoundCompressor
from compressor.config import ModelClientConfig, ModelRequestConfig
from compressor.errors import ConfigError
from compressor.messages import Conversation

from ..settings import Settings
from . import keys

#: What produced a stored result (conversation or dump, settings, backend, options), compared for staleness.
Signature = tuple[object, ...]
#: The session id the dashboard's compactions write into their dumps.
SESSION_ID = "dashboard"


def backend_kind() -> str:
    """The Live page's backend choice: "offline" (the default) or "openai"."""
    return "openai" if st.session_state.get(keys.W_BACKEND) == "openai" else "offline"


def server_endpoint() -> tuple[str, str] | None:
    """The server's own endpoint (``API_BASE``, ``MODEL_NAME``), or None when the server has none."""
    base = os.environ.get("API_BASE", "").strip()
    return (base, os.environ.get("MODEL_NAME", "").strip()) if base else None


def uses_server_endpoint() -> bool:
    """True when the Live page calls the server's endpoint (its URL, and its key, never shown)."""
    return server_endpoint() is not None and bool(st.session_state.get(keys.W_USE_SERVER, True))


def endpoint() -> tuple[str, str]:
    """(base URL, model name) the Live page would call: the server's own, or what the visitor typed."""
    state = st.session_state
    typed_model = str(state.get(keys.W_MODEL_NAME) or "").strip()
    server = server_endpoint()
    if server is not None and uses_server_endpoint():
        return server[0], typed_model or server[1]
    return str(state.get(keys.W_BASE_URL) or "").strip(), typed_model


def live_configs(*, with_key: bool = False) -> tuple[ModelRequestConfig | None, ModelClientConfig | None]:
    """The model and client the Live page configures (None, None for the offline backend or missing fields).

    Without ``with_key`` the client carries no API key: enough for analysis, which only asks whether
    openJiuwen would have a model.
    """
    if st.session_state.get(keys.W_BACKEND) != "openai":
        return None, None
    base, name = endpoint()
    if not base or not name:
        return None, None
    key = api_key() if with_key else ""
    try:
        return ModelRequestConfig(model=name), ModelClientConfig(api_base=base, api_key=SecretStr(key))
    except ValueError:
        return None, None


def api_key() -> str:
    """The key for the endpoint the Live page calls: the server's ``API_KEY`` for the server's own endpoint
    only; a URL the visitor typed gets the key the visitor typed, or none (the server's key stays with its
    endpoint, so an endpoint a visitor names can never echo it back)."""
    if uses_server_endpoint():
        return os.environ.get("API_KEY", "")
    return str(st.session_state.get(keys.W_API_KEY) or "")


def server_has_api_key() -> bool:
    return bool(os.environ.get("API_KEY"))


def live_backend() -> Backend:
    """The backend the Live page configures; raises ConfigError/ValueError naming a missing field."""
    if st.session_state.get(keys.W_BACKEND) != "openai":
        return OfflineBackend()
    model, client = live_configs(with_key=True)
    if model is None or client is None:
        raise ConfigError("base URL and model name are both needed for the OpenAI-compatible backend")
    return OpenAICompatibleBackend(client, model)


def rerun_backend(choice: str, dump_path: str) -> Backend:
    """Dump review's re-run model: the dump's recorded reply ("replay"), else the Live page's backend;
    raises OSError/ValueError naming what is missing."""
    return ReplayBackend.from_dump(dump_path) if choice == "replay" else live_backend()


def run_compaction(
    conversation: Conversation,
    settings: Settings,
    backend: Backend,
    *,
    force: bool,
    preserve: str | None,
    dump_dir: Path | None,
) -> CompactionResult:
    """``CurrentRoundCompressor(...).compact(...)`` with the sidebar settings and the Live page's model."""
    # With the key: the compactor passes it to the dump writer, which refuses to write it anywhere.
    model, client = live_configs(with_key=True)
    compressor = CurrentRoundCompressor(
        settings.config(model=model, model_client=client),
        backend,
        context_max=settings.explicit_context_max,
        model=settings.capacity_model,
        counter=settings.counter,
        dump_dir=str(dump_dir) if dump_dir is not None else None,
        session_id=SESSION_ID,
    )
    return asyncio.run(compressor.compact(conversation, force=force, preserve_instruction=preserve))


def store_live_result(signature: Signature, result: CompactionResult) -> None:
    st.session_state[keys.K_LIVE_RESULT] = (signature, result)


def live_result() -> tuple[Signature, CompactionResult] | None:
    """The Live page's last result with its signature, or None before its first run."""
    found = st.session_state.get(keys.K_LIVE_RESULT)
    return found if isinstance(found, tuple) else None


def store_rerun_result(path: str, signature: Signature, result: CompactionResult) -> None:
    st.session_state[keys.K_RERUN_RESULT] = (path, signature, result)


def rerun_result(path: str) -> tuple[Signature, CompactionResult] | None:
    """The last re-run of the dump at ``path`` with its signature, or None."""
    found = st.session_state.get(keys.K_RERUN_RESULT)
    if isinstance(found, tuple) and found[0] == path:
        return found[1], found[2]
    return None
