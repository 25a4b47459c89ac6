"""Model backends behind one small Protocol: OpenAI-compatible (httpx), offline (extractive) and replay.

Invariant: ``make_backend`` is the one place a backend is chosen: an explicit choice wins, then a given
client config, then ``API_BASE`` in the environment; with none of them the offline backend answers.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..config import ModelClientConfig, ModelRequestConfig
from ..errors import ConfigError
from .base import BACKEND_KINDS, Backend, ModelReply
from .offline import SNAPSHOT_SECTIONS, OfflineBackend
from .openai_compatible import OpenAICompatibleBackend, client_config_from_env, parse_retry_after
from .replay import ReplayBackend

__all__ = [
    "BACKEND_KINDS",
    "SNAPSHOT_SECTIONS",
    "Backend",
    "ModelReply",
    "OfflineBackend",
    "OpenAICompatibleBackend",
    "ReplayBackend",
    "make_backend",
    "parse_retry_after",
]

REPLAY_PREFIX = "replay:"


def make_backend(
    spec: str | None,
    *,
    client_config: ModelClientConfig | None = None,
    request: ModelRequestConfig | None = None,
    env: Mapping[str, str] | None = None,
) -> Backend:
    """The backend for ``spec``: "offline", "openai", "replay:PATH", or None to choose from the settings.

    "openai" (or a given ``client_config``) fills whatever is missing from ``API_BASE``/``API_KEY``/
    ``MODEL_NAME``; None picks the OpenAI-compatible backend when ``API_BASE`` is set, else offline.
    """
    choice = (spec or "").strip()
    if not choice.startswith(REPLAY_PREFIX):
        choice = choice.lower()
    if choice == "offline":
        return OfflineBackend()
    if choice.startswith(REPLAY_PREFIX):
        path = choice[len(REPLAY_PREFIX) :].strip()
        if not path:
            raise ConfigError("backend: 'replay:' needs a dump file path, e.g. replay:dumps/123_x.json")
        return ReplayBackend.from_dump(path)
    if choice and choice != "openai":
        raise ConfigError(f"backend: unknown choice {choice!r}; use offline, openai or replay:PATH")
    if choice == "openai" or client_config is not None or client_config_from_env(env) is not None:
        return _openai(client_config, request, env)
    return OfflineBackend()


def _openai(
    client_config: ModelClientConfig | None,
    request: ModelRequestConfig | None,
    env: Mapping[str, str] | None,
) -> OpenAICompatibleBackend:
    client_config = client_config or client_config_from_env(env)
    if client_config is None:
        raise ConfigError("api_base: the openai backend needs an API base (--api-base or API_BASE)")
    request = request or ModelRequestConfig.from_env(env)
    if request is None:
        raise ConfigError("model: the openai backend needs a model name (--model or MODEL_NAME)")
    return OpenAICompatibleBackend(client_config, request)
