"""One exception tree for the library, and the error classification openJiuwen retries by (SPEC §11).

    CompressorError
     ├── ConversationFormatError   a file or value is not a conversation we can read (file + problem)
     ├── DumpFormatError           a dump file cannot be read as a compaction dump
     ├── ConfigError               a setting is out of range or refers to something unknown
     ├── OutputError               an output file cannot be written (path + reason)
     └── BackendError              a model call failed; carries kind, status_code, retryable
          └── BackendTimeout       the model did not answer in time

Every message is one line naming what was wrong and where, so the CLI and the dashboard can show it as is.
"""

from __future__ import annotations

from enum import StrEnum


class CompressorError(Exception):
    """Root of every error this library raises on purpose."""


class ConversationFormatError(CompressorError, ValueError):
    """The input is not a conversation: ``str(error)`` is ``"<source>: <problem>"`` on one line."""

    def __init__(self, source: str, problem: str) -> None:
        self.source = source
        self.problem = " ".join(problem.split())
        super().__init__(f"{source}: {self.problem}" if source else self.problem)


class DumpFormatError(CompressorError, ValueError):
    """A file in a dump directory is not a readable compaction dump."""

    def __init__(self, source: str, problem: str) -> None:
        self.source = source
        self.problem = " ".join(problem.split())
        super().__init__(f"{source}: {self.problem}")


class ConfigError(CompressorError, ValueError):
    """A setting is invalid; the message names the setting."""


class OutputError(CompressorError):
    """An output file could not be written: ``str(error)`` is ``"<path>: <reason>"`` on one line."""

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = " ".join(problem.split())
        super().__init__(f"{path}: {self.problem}")


class ErrorKind(StrEnum):
    """How a failed model call is treated (SPEC §11), in classification order."""

    CONTEXT_OVERFLOW = "context_overflow"
    RATE_LIMIT = "rate_limit"
    AUTHENTICATION = "authentication"
    TIMEOUT = "timeout"
    SERVER_UNSTABLE = "server_unstable"
    API_REQUEST_ERROR = "api_request_error"
    UNKNOWN = "unknown"


#: What the user reads for each kind, in plain words.
KIND_DESCRIPTIONS: dict[ErrorKind, str] = {
    ErrorKind.CONTEXT_OVERFLOW: "the request was larger than the model's context window",
    ErrorKind.RATE_LIMIT: "the endpoint is rate limiting requests",
    ErrorKind.AUTHENTICATION: "the endpoint refused the credentials",
    ErrorKind.TIMEOUT: "the model did not answer in time",
    ErrorKind.SERVER_UNSTABLE: "the endpoint had a server error",
    ErrorKind.API_REQUEST_ERROR: "the endpoint rejected the request as invalid",
    ErrorKind.UNKNOWN: "the call failed for an unrecognised reason",
}

# Text markers per kind, checked in this order against the lower-cased message chain (SPEC §11).
_MARKERS: tuple[tuple[ErrorKind, tuple[str, ...]], ...] = (
    (
        ErrorKind.CONTEXT_OVERFLOW,
        (
            "context length",
            "context_length",
            "maximum context",
            "max context",
            "token limit",
            "too many tokens",
            "prompt is too long",
            "input is too long",
            "request too large",
            "413",
        ),
    ),
    (ErrorKind.RATE_LIMIT, ("rate_limit", "rate limit", "too many requests", "429")),
    (
        ErrorKind.AUTHENTICATION,
        ("authentication", "unauthorized", "invalid api key", "api key invalid", "401", "403"),
    ),
    (ErrorKind.TIMEOUT, ("timeout", "timed out", "read timeout", "connect timeout")),
    (
        ErrorKind.SERVER_UNSTABLE,
        (
            "internal server error",
            "service unavailable",
            "bad gateway",
            "gateway timeout",
            "overloaded",
            "temporarily unavailable",
            "500",
            "501",
            "502",
            "503",
            "504",
        ),
    ),
    (ErrorKind.API_REQUEST_ERROR, ("bad request", "invalid request", "400")),
)

# The one place an HTTP status maps to a kind.
_STATUS_KINDS: dict[int, ErrorKind] = {
    413: ErrorKind.CONTEXT_OVERFLOW,
    429: ErrorKind.RATE_LIMIT,
    401: ErrorKind.AUTHENTICATION,
    403: ErrorKind.AUTHENTICATION,
    500: ErrorKind.SERVER_UNSTABLE,
    502: ErrorKind.SERVER_UNSTABLE,
    503: ErrorKind.SERVER_UNSTABLE,
    504: ErrorKind.SERVER_UNSTABLE,
    400: ErrorKind.API_REQUEST_ERROR,
}

_KIND_ORDER = {kind: position for position, kind in enumerate(ErrorKind)}


def classify(text: str, status_code: int | None = None, *, is_timeout: bool = False) -> ErrorKind:
    """The kind of a failure from its message text, HTTP status and timeout-ness, first match in SPEC order."""
    lowered = text.lower()
    candidates: list[ErrorKind] = []
    for kind, markers in _MARKERS:
        if any(marker in lowered for marker in markers):
            candidates.append(kind)
            break
    if status_code is not None and status_code in _STATUS_KINDS:
        candidates.append(_STATUS_KINDS[status_code])
    if is_timeout:
        candidates.append(ErrorKind.TIMEOUT)
    if not candidates:
        return ErrorKind.UNKNOWN
    return min(candidates, key=_KIND_ORDER.__getitem__)


class BackendError(CompressorError):
    """A model call failed. ``kind`` decides the retry policy; the message never holds a credential."""

    def __init__(
        self,
        message: str,
        *,
        kind: ErrorKind,
        status_code: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.kind = kind
        self.status_code = status_code
        self.retry_after = retry_after
        super().__init__(" ".join(message.split()))

    @property
    def retryable(self) -> bool:
        return self.kind in TRANSIENT_KINDS or self.kind is ErrorKind.CONTEXT_OVERFLOW


class BackendTimeout(BackendError):
    """The model did not answer before the client's timeout."""

    def __init__(self, message: str = "the model did not answer before the timeout") -> None:
        super().__init__(message, kind=ErrorKind.TIMEOUT)


#: Kinds retried with exponential backoff (SPEC §11).
TRANSIENT_KINDS: frozenset[ErrorKind] = frozenset(
    {ErrorKind.RATE_LIMIT, ErrorKind.TIMEOUT, ErrorKind.SERVER_UNSTABLE, ErrorKind.UNKNOWN}
)


def classify_exception(error: BaseException) -> ErrorKind:
    """Classify any exception: a BackendError keeps its kind; others by their text and chained causes."""
    if isinstance(error, BackendError):
        return error.kind
    texts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = error
    is_timeout = False
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        texts.append(str(current))
        is_timeout = is_timeout or isinstance(current, TimeoutError)
        current = current.__cause__ or current.__context__
    return classify(" ".join(texts), None, is_timeout=is_timeout)
