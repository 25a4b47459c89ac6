"""Error classification (SPEC §11): every marker, every status, the order, chained causes; the error tree."""

from __future__ import annotations

import pytest

from compressor.errors import (
    TRANSIENT_KINDS,
    BackendError,
    BackendTimeout,
    CompressorError,
    ErrorKind,
    classify,
    classify_exception,
)

K = ErrorKind

# Written out from SPEC §11 on purpose (not imported), so the code's table is checked against the spec.
SPEC_MARKERS: tuple[tuple[ErrorKind, tuple[str, ...]], ...] = (
    (
        K.CONTEXT_OVERFLOW,
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
    (K.RATE_LIMIT, ("rate_limit", "rate limit", "too many requests", "429")),
    (
        K.AUTHENTICATION,
        ("authentication", "unauthorized", "invalid api key", "api key invalid", "401", "403"),
    ),
    (K.TIMEOUT, ("timeout", "timed out", "read timeout", "connect timeout")),
    (
        K.SERVER_UNSTABLE,
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
    (K.API_REQUEST_ERROR, ("bad request", "invalid request", "400")),
)

# "gateway timeout" holds "timeout", which SPEC orders first: it can never reach server_unstable.
MARKER_CASES = [
    (marker, K.TIMEOUT if marker == "gateway timeout" else kind)
    for kind, markers in SPEC_MARKERS
    for marker in markers
]

SPEC_STATUSES = {
    413: K.CONTEXT_OVERFLOW,
    429: K.RATE_LIMIT,
    401: K.AUTHENTICATION,
    403: K.AUTHENTICATION,
    500: K.SERVER_UNSTABLE,
    502: K.SERVER_UNSTABLE,
    503: K.SERVER_UNSTABLE,
    504: K.SERVER_UNSTABLE,
    400: K.API_REQUEST_ERROR,
}


class TestMarkers:
    @pytest.mark.parametrize(("marker", "kind"), MARKER_CASES)
    def test_each_marker_alone_gives_its_kind(self, marker: str, kind: ErrorKind) -> None:
        assert classify(f"the call failed: {marker} (see logs)") is kind

    @pytest.mark.parametrize(("marker", "kind"), MARKER_CASES)
    def test_markers_are_case_insensitive(self, marker: str, kind: ErrorKind) -> None:
        assert classify(marker.upper()) is kind

    @pytest.mark.parametrize(
        "text",
        [
            "",
            "something odd happened",
            "connection reset by peer",
            "model 'x' not found",
            "invalid_request_error",
        ],
    )
    def test_text_without_a_marker_is_unknown(self, text: str) -> None:
        assert classify(text) is K.UNKNOWN

    def test_real_provider_messages(self) -> None:
        assert classify("This model's maximum context length is 8192 tokens") is K.CONTEXT_OVERFLOW
        assert classify("Error code: 413 - request too large") is K.CONTEXT_OVERFLOW
        assert classify("Rate limit reached for gpt-4o") is K.RATE_LIMIT
        assert classify("Incorrect API key provided: sk-…; Invalid API key") is K.AUTHENTICATION
        assert classify("Request timed out.") is K.TIMEOUT
        assert classify("The server is overloaded, try again later") is K.SERVER_UNSTABLE
        assert classify("unsupported parameter: foo", 400) is K.API_REQUEST_ERROR


class TestStatuses:
    @pytest.mark.parametrize(("status", "kind"), sorted(SPEC_STATUSES.items()))
    def test_each_status_gives_its_kind(self, status: int, kind: ErrorKind) -> None:
        assert classify("no marker here", status) is kind

    @pytest.mark.parametrize("status", [301, 404, 409, 418, 422, 501, 505, 529])
    def test_other_statuses_add_nothing(self, status: int) -> None:
        # 501 is a text marker, not a status rule: the status alone does not classify.
        assert classify("no marker here", status) is K.UNKNOWN

    def test_a_timeout_exception_is_a_timeout(self) -> None:
        assert classify("", None, is_timeout=True) is K.TIMEOUT


class TestOrder:
    """When several rules match, the first kind in SPEC order wins, whether it came from text or status."""

    @pytest.mark.parametrize(
        ("text", "status", "is_timeout", "kind"),
        [
            ("429 context length exceeded", None, False, K.CONTEXT_OVERFLOW),
            ("rate limit", 413, False, K.CONTEXT_OVERFLOW),
            ("maximum context length", 400, False, K.CONTEXT_OVERFLOW),
            ("unauthorized", 429, False, K.RATE_LIMIT),
            ("too many requests", 401, False, K.RATE_LIMIT),
            ("invalid api key", 503, False, K.AUTHENTICATION),
            ("timed out", 401, False, K.AUTHENTICATION),
            ("Gateway Timeout", 504, False, K.TIMEOUT),
            ("internal server error", None, True, K.TIMEOUT),
            ("bad request", 503, False, K.SERVER_UNSTABLE),
            ("overloaded", 400, False, K.SERVER_UNSTABLE),
            ("bad request timeout", None, False, K.TIMEOUT),
            ("no marker", 400, True, K.TIMEOUT),
        ],
    )
    def test_first_kind_in_spec_order_wins(
        self, text: str, status: int | None, is_timeout: bool, kind: ErrorKind
    ) -> None:
        assert classify(text, status, is_timeout=is_timeout) is kind


class TestClassifyException:
    def test_a_backend_error_keeps_its_kind(self) -> None:
        error = BackendError("HTTP 400 from the endpoint: rate limit words", kind=K.API_REQUEST_ERROR)
        assert classify_exception(error) is K.API_REQUEST_ERROR

    def test_explicit_cause_is_read(self) -> None:
        try:
            try:
                raise ValueError("This model's maximum context length is 4096 tokens")
            except ValueError as inner:
                raise RuntimeError("the model call failed") from inner
        except RuntimeError as outer:
            assert classify_exception(outer) is K.CONTEXT_OVERFLOW

    def test_implicit_context_is_read(self) -> None:
        try:
            try:
                raise ConnectionError("503 Service Unavailable")
            except ConnectionError:
                raise RuntimeError("wrapper without a marker") from None
        except RuntimeError as outer:
            # `from None` only hides the context from tracebacks; it is still the chain openJiuwen reads.
            assert outer.__context__ is not None
            assert classify_exception(outer) is K.SERVER_UNSTABLE

    def test_the_outer_text_and_the_cause_are_classified_together_in_order(self) -> None:
        outer = RuntimeError("429 too many requests")
        outer.__cause__ = ValueError("prompt is too long")
        assert classify_exception(outer) is K.CONTEXT_OVERFLOW

    def test_a_timeout_error_anywhere_in_the_chain_is_a_timeout(self) -> None:
        outer = RuntimeError("call failed")
        outer.__cause__ = TimeoutError()
        assert classify_exception(outer) is K.TIMEOUT

    def test_a_cyclic_chain_terminates(self) -> None:
        first, second = RuntimeError("first"), RuntimeError("second")
        first.__context__, second.__context__ = second, first
        assert classify_exception(first) is K.UNKNOWN

    def test_unrecognised_is_unknown(self) -> None:
        assert classify_exception(KeyError("choices")) is K.UNKNOWN


class TestErrorTree:
    def test_transient_kinds_are_the_spec_ones(self) -> None:
        assert frozenset({K.RATE_LIMIT, K.TIMEOUT, K.SERVER_UNSTABLE, K.UNKNOWN}) == TRANSIENT_KINDS

    @pytest.mark.parametrize(
        ("kind", "retryable"),
        [
            (K.CONTEXT_OVERFLOW, True),
            (K.RATE_LIMIT, True),
            (K.AUTHENTICATION, False),
            (K.TIMEOUT, True),
            (K.SERVER_UNSTABLE, True),
            (K.API_REQUEST_ERROR, False),
            (K.UNKNOWN, True),
        ],
    )
    def test_retryable_follows_the_kind(self, kind: ErrorKind, retryable: bool) -> None:
        assert BackendError("x", kind=kind).retryable is retryable

    def test_backend_error_carries_status_and_retry_after_on_one_line(self) -> None:
        error = BackendError(
            "HTTP 429 from\nthe endpoint:   slow down", kind=K.RATE_LIMIT, status_code=429, retry_after=2.5
        )
        assert str(error) == "HTTP 429 from the endpoint: slow down"
        assert (error.status_code, error.retry_after) == (429, 2.5)
        assert isinstance(error, CompressorError)

    def test_backend_timeout_is_a_timeout_backend_error(self) -> None:
        error = BackendTimeout()
        assert isinstance(error, BackendError)
        assert error.kind is K.TIMEOUT
        assert error.status_code is None
