"""An OpenAI-compatible Chat Completions backend over httpx (OpenAI, vLLM, Ollama, DeepSeek, DashScope, OpenRouter).

Invariant: every failure leaves ``complete`` as one BackendError classified from the status code and the
server's own error text (never the URL), within one deadline for the whole call and the caps of ``ReplyLimits``;
the API key is sent only as a header, and no form of it (``KeyGuard``) survives in an error or a reply.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import math
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
from pydantic import ValidationError

from ..config import ModelClientConfig, ModelRequestConfig
from ..errors import BackendError, BackendTimeout, ConfigError, ErrorKind, classify
from ..jsontext import json_text, may_hold_surrogates, writable_value
from ..keyguard import KeyGuard, key_problem
from ..messages import Message, ToolDef
from .base import ModelReply
from .limits import ACCEPTED_ENCODINGS, ReplyLimits, ReplyRefused, read_body
from .transport import BoundedTransport

#: How much of a server's error text goes into an exception message.
DETAIL_CHARS = 300
#: A reply nested deeper than this is not a chat completion (and must not reach a recursive walk).
MAX_REPLY_DEPTH = 64
#: Charsets a reply may declare, by Python's codec names; anything else is read as UTF-8.
_PLAIN_CHARSETS = frozenset(
    {"utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be", "ascii",
     "iso8859-1", "iso8859-15", "cp1252", "gbk", "gb18030", "big5", "shift_jis", "euc_jp", "euc_kr"}
)  # fmt: skip
_ANY_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.I)


def parse_retry_after(headers: Mapping[str, str], *, now: datetime | None = None) -> float | None:
    """Seconds the server asks us to wait: ``retry-after-ms``, else ``Retry-After`` as seconds or an HTTP date."""
    lowered = {name.lower(): value for name, value in headers.items()}
    millis = _number(lowered.get("retry-after-ms"))
    if millis is not None:
        return max(millis / 1000.0, 0.0)
    value = lowered.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return max(seconds, 0.0)
    try:
        when = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now if now is not None else datetime.now(UTC)
    return max((when - current).total_seconds(), 0.0)


def _number(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def reply_text(content: Any) -> str:
    """The text of a reply message's content: a string, a list of text parts, or nothing."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces: list[str] = []
        for part in content:
            if isinstance(part, str):
                pieces.append(part)
            elif (
                isinstance(part, dict)
                and part.get("type") in ("text", "output_text", None)
                and isinstance(part.get("text"), str)
            ):
                pieces.append(part["text"])
        return "".join(pieces)
    return ""


def _one_line(text: str, limit: int = DETAIL_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _error_fields(parsed: Any, text: str) -> tuple[str, str]:
    """(the server's error message, extra classification text such as error type and code)."""
    if isinstance(parsed, dict):
        error = parsed.get("error")
        if isinstance(error, dict):
            message = error.get("message")
            extras = " ".join(str(error[key]) for key in ("type", "code") if error.get(key) is not None)
            if isinstance(message, str) and message.strip():
                return message, extras
            return json.dumps(error, ensure_ascii=False), extras
        if isinstance(error, str) and error.strip():
            return error, ""
        for key in ("message", "detail"):
            value = parsed.get(key)
            if isinstance(value, str) and value.strip():
                extras = " ".join(str(parsed[k]) for k in ("type", "code") if parsed.get(k) is not None)
                return value, extras
            if value is not None:
                return json.dumps(value, ensure_ascii=False), ""
    return text, ""


def client_config_from_env(env: Mapping[str, str] | None = None) -> ModelClientConfig | None:
    """The client config from ``API_BASE``/``API_KEY``/``MODEL_PROVIDER``; None when API_BASE is unset."""
    try:
        return ModelClientConfig.from_env(env)
    except ValidationError as exc:
        problem = exc.errors()[0].get("msg", "invalid value")
        raise ConfigError(f"API_BASE: {problem}") from None


class OpenAICompatibleBackend:
    """POSTs ``{api_base}/chat/completions`` once per call; the compactor decides about retries."""

    kind = "openai"

    def __init__(
        self,
        client_config: ModelClientConfig,
        request: ModelRequestConfig,
        *,
        http_client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        limits: ReplyLimits | None = None,
    ) -> None:
        problem = key_problem(client_config.api_key.get_secret_value())
        if problem is not None:
            raise ConfigError(f"api_key: {problem}")
        self.client_config = client_config
        self.request = request
        self.limits = limits or ReplyLimits()
        self._http_client = http_client
        self._transport = transport
        try:
            base = httpx.URL(client_config.api_base)
        except httpx.InvalidURL as exc:
            raise ConfigError(f"api_base: not a usable URL ({exc})") from None
        # Keep any query (some gateways need one); never guess a /v1: the base is used as given.
        self.endpoint = base.copy_with(path=base.path.rstrip("/") + "/chat/completions")
        self.host = base.host if base.port is None else f"{base.host}:{base.port}"
        self.label = f"OpenAI-compatible: {request.model_name} at {self.host}"

    @property
    def deadline(self) -> float:
        """Seconds one call to this endpoint may take, connect to last byte (a compaction's calls, retries and waits
        together get ``retry.whole_deadline`` of it)."""
        return self.client_config.timeout

    @property
    def _key(self) -> str:
        # Read from the SecretStr on demand, so no plain copy of the key sits in the backend's attributes.
        return self.client_config.api_key.get_secret_value()

    @property
    def _guard(self) -> KeyGuard:
        return KeyGuard([self._key])

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> OpenAICompatibleBackend | None:
        """From ``API_BASE``, ``API_KEY``, ``MODEL_NAME`` and ``MODEL_PROVIDER``; None when API_BASE is unset."""
        client_config = client_config_from_env(env)
        if client_config is None:
            return None
        request = ModelRequestConfig.from_env(env)
        if request is None:
            raise ConfigError("MODEL_NAME: not set, but API_BASE is; name the model the endpoint should run")
        return cls(client_config, request)

    # -- the request ---------------------------------------------------------------------------

    def request_body(self, messages: Sequence[Message], tools: Sequence[ToolDef]) -> dict[str, Any]:
        """The JSON body sent to the endpoint (tools are sent for prefix-cache reuse, but may not be called)."""
        body: dict[str, Any] = {
            "model": self.request.model_name,
            "messages": [message.to_openai() for message in messages],
            "temperature": self.request.temperature,
        }
        if self.request.top_p is not None:
            body["top_p"] = self.request.top_p
        if self.request.max_tokens is not None:
            body["max_tokens"] = self.request.max_tokens
        if tools:
            body["tools"] = [tool.openai() for tool in tools]
            body["tool_choice"] = "none"
        body["stream"] = False
        return body

    def _headers(self) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "Accept-Encoding": ACCEPTED_ENCODINGS,  # decoded by read_body, a bounded step at a time
        }
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return headers

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolDef]) -> ModelReply:
        # Encoded here, not by httpx: lone surrogates are escaped and NaN is never sent.
        body = json_text(self.request_body(messages, tools)).encode("utf-8")
        deadline = self.client_config.timeout
        failure: BackendError | None = None
        answer: tuple[int, httpx.Headers, bytes] | None = None
        try:
            async with asyncio.timeout(deadline):  # connect to last byte, interim responses and all
                answer = await self._exchange(body)
        except (TimeoutError, httpx.TimeoutException) as exc:
            failure = BackendTimeout(
                f"the endpoint at {self.host} did not finish answering within {deadline:g} s "
                f"({'the deadline of the whole call' if isinstance(exc, TimeoutError) else type(exc).__name__})"
            )
        except ReplyRefused as exc:
            reason = self._guard.scrub(str(exc))
            failure = BackendError(
                f"the reply of the endpoint at {self.host} was refused: {reason}", kind=classify(reason)
            )
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            failure = self._transport_error(exc)
        # Raised outside the except blocks on purpose: the httpx exception (which holds the request and
        # its Authorization header) must not stay reachable as __context__ of what we raise.
        if failure is not None:
            raise failure
        assert answer is not None
        return self._reply(*answer)

    async def _exchange(self, body: bytes) -> tuple[int, httpx.Headers, bytes]:
        if self._http_client is not None:
            return await self._send(self._http_client, body)
        # A client per call: compactions make a handful of requests, and a fresh client never outlives
        # the event loop it was made in (the CLI and the dashboard each run their own loops).
        transport = self._transport or BoundedTransport(
            verify=self.client_config.verify_ssl, limits=self.limits
        )
        async with httpx.AsyncClient(
            transport=transport, verify=self.client_config.verify_ssl, timeout=self.client_config.timeout
        ) as client:
            return await self._send(client, body)

    async def _send(self, client: httpx.AsyncClient, body: bytes) -> tuple[int, httpx.Headers, bytes]:
        timeout = httpx.Timeout(self.client_config.timeout)
        async with client.stream(
            "POST", self.endpoint, content=body, headers=self._headers(), timeout=timeout
        ) as response:
            return response.status_code, response.headers, await read_body(response, self.limits)

    # -- the one place a response or a failure becomes an error --------------------------------

    def _scrub(self, text: str) -> str:
        return self._guard.scrub(text)

    def _transport_error(self, exc: Exception) -> BackendError:
        detail = str(exc).strip() or type(exc).__name__
        detail = _ANY_URL.sub("the endpoint", detail).replace(self.host, "the endpoint")
        detail = self._scrub(_one_line(self._scrub(detail)))  # before the cut (a whole key) and after it
        return BackendError(
            f"could not reach the endpoint at {self.host}: {detail}", kind=classify(detail, None)
        )

    def status_error(
        self, status: int, parsed: Any, text: str, headers: Mapping[str, str], *, answered: int | None = None
    ) -> BackendError:
        """The BackendError for an error reply: kind from the status and the server's text, never the URL."""
        message, extras = _error_fields(parsed, text)
        detail = self._scrub(_one_line(message))
        if answered is not None and answered != status:
            summary = f"HTTP {answered} from the endpoint carrying error {status}"
        else:
            summary = f"HTTP {status} from the endpoint"
        summary = f"{summary}: {detail}" if detail else f"{summary} ({httpx.codes.get_reason_phrase(status)})"
        kind = classify(f"{summary} {extras}", status)
        return BackendError(summary, kind=kind, status_code=status, retry_after=parse_retry_after(headers))

    def _reply(self, status: int, headers: httpx.Headers, data: bytes) -> ModelReply:
        # An endpoint that echoes the request must not carry the key into a summary, a dump or the screen:
        # scrubbed in the text, and again in the parsed values (a key written with \u escapes decodes whole).
        text = self._scrub(data.decode(_charset(headers), errors="replace"))
        try:
            parsed: Any = json.loads(text) if text.strip() else None
            _check_depth(parsed)
        except (ValueError, RecursionError):  # not JSON, an over-long integer, or nested past reason
            parsed = None
            malformed = True
        else:
            malformed = False
            parsed = self._guard.scrub_value(parsed)
            if may_hold_surrogates(text):  # a "\ud800" escape: the summary must print, log and show on a page
                parsed = writable_value(parsed)
        if not 200 <= status < 300:
            raise self.status_error(status, parsed, text, headers)
        if malformed or not isinstance(parsed, dict):
            shape = (
                "not JSON"
                if malformed or parsed is None
                else f"JSON but not an object ({type(parsed).__name__})"
            )
            raise BackendError(
                f"HTTP {status} from the endpoint, but the body is {shape}: {self._scrub(_one_line(text, 80))!r}",
                kind=ErrorKind.UNKNOWN,
                status_code=status,
            )
        if "choices" not in parsed and parsed.get("error") is not None:
            # Some gateways answer 200 and put the real failure in the body.
            code = parsed["error"].get("code") if isinstance(parsed["error"], dict) else None
            inner = code if isinstance(code, int) and 400 <= code < 600 else status
            raise self.status_error(inner, parsed, text, headers, answered=status)
        choices = parsed.get("choices")
        if not isinstance(choices, list):
            raise BackendError(
                f"HTTP {status} from the endpoint, but the reply has no 'choices' list",
                kind=ErrorKind.UNKNOWN,
                status_code=status,
            )
        usage = parsed.get("usage") if isinstance(parsed.get("usage"), dict) else None
        if not choices or not isinstance(choices[0], dict):
            return ModelReply(content="", usage=usage, raw=parsed)
        first = choices[0]
        message = first.get("message")
        if isinstance(message, dict):
            content = reply_text(message.get("content"))
        else:
            content = reply_text(first.get("text"))
        return ModelReply(content=content, usage=usage, raw=parsed)


def _charset(headers: httpx.Headers) -> str:
    """The charset the Content-Type names when it is a plain text encoding, else UTF-8 (what JSON is written in).

    Only plain encodings: Python's codec registry also holds rot13, zlib, base64 and punycode (slow on big input).
    """
    for part in headers.get("content-type", "").split(";")[1:]:
        name, _, value = part.partition("=")
        if name.strip().lower() == "charset":
            try:
                found = codecs.lookup(value.strip().strip('"')).name
            except LookupError:
                break
            return found if found in _PLAIN_CHARSETS else "utf-8"
    return "utf-8"


def _check_depth(value: Any) -> None:
    """Raise ValueError when lists and objects nest deeper than MAX_REPLY_DEPTH (iteratively)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_REPLY_DEPTH:
            raise ValueError(f"nested deeper than {MAX_REPLY_DEPTH} levels")
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
