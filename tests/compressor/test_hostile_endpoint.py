"""A hostile endpoint cannot hold a call, fill the memory, or get the key back out (issue 15), shown against a
real server on 127.0.0.1 (tests/support/hostile_server.py): every call ends within its deadline, holds at most
about twice the reply cap, and fails as one classified BackendError; the CLI then exits 3 with the conversation
unchanged and no dump; and a key the endpoint writes back, in any encoding, reaches no artefact.
"""

from __future__ import annotations

import asyncio
import io
import json
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from compressor.backends import OpenAICompatibleBackend
from compressor.backends.limits import MIB, ReplyLimits
from compressor.cli import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, main
from compressor.config import ModelClientConfig, ModelRequestConfig
from compressor.errors import BackendError, BackendTimeout, ErrorKind
from compressor.formats import load_conversation
from compressor.messages import Message
from compressor.retry import DEADLINE_CALLS
from tests.compressor.test_security import conversation_file
from tests.support.hostile_server import (
    ENCODINGS,
    Behaviour,
    HostileServer,
    asks_to_wait,
    chat_completion,
    declared_charset,
    drip,
    echo_key,
    endless_chunked,
    gzip_bomb,
    head,
    huge_json,
    in_turn,
    interim_forever,
    raw_reply,
    slow_then,
)
from tests.support.key_forms import spellings

KEY = "sk-canary-9d2f4b7a1c3e5086b4d6f8a0"
DEADLINE = 1.0
#: The deadline of a call that must end for another reason (a cap): long enough that a loaded machine never
#: turns the expected failure into a timeout, and still short of a hang.
ROOMY = 10.0
#: What a call may hold beyond the reply cap: the decoded bytes once more while they are joined or decompressed.
PEAK_FACTOR = 2.5
REQUEST = [
    Message(role="user", content="Fix the parser."),
    Message(role="user", content="Write the snapshot."),
]


def backend(
    url: str, *, timeout: float = DEADLINE, limits: ReplyLimits | None = None
) -> OpenAICompatibleBackend:
    return OpenAICompatibleBackend(
        ModelClientConfig(api_base=url, api_key=SecretStr(KEY), timeout=timeout),
        ModelRequestConfig(model="hostile-model"),
        limits=limits,
    )


def measured_call(server: HostileServer, **options: Any) -> tuple[BackendError, float, int]:
    """(the error, seconds the call took, peak bytes allocated while it ran)."""
    tracemalloc.start()
    began = time.monotonic()
    try:
        with pytest.raises(BackendError) as caught:
            asyncio.run(backend(server.url, **options).complete(REQUEST, []))
        return caught.value, time.monotonic() - began, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# (name, the behaviour, the kind it fails as, words of the error)
BOUNDED: list[tuple[str, Callable[[], Behaviour], ErrorKind, str]] = [
    ("drip-a-byte-at-a-time", lambda: drip(0.2), ErrorKind.TIMEOUT, "deadline of the whole call"),
    ("endless-chunked-body", endless_chunked, ErrorKind.UNKNOWN, "longer than 16 MiB"),
    ("gzip-bomb-1GB", lambda: gzip_bomb(1024**3), ErrorKind.UNKNOWN, "inflates to more than 16 MiB"),
    ("gzip-bomb-one-member", lambda: gzip_bomb(64 * MIB, single=True), ErrorKind.UNKNOWN, "inflates to more"),
    ("endless-100-continue", interim_forever, ErrorKind.UNKNOWN, "interim responses included"),
    ("slow-100-continue", lambda: interim_forever(0.05), ErrorKind.TIMEOUT, "deadline of the whole call"),
    ("huge-valid-json", lambda: huge_json(24 * MIB), ErrorKind.UNKNOWN, "longer than 16 MiB"),
]


class TestEveryCallIsBounded:
    @pytest.mark.parametrize(
        ("name", "behaviour", "kind", "words"), BOUNDED, ids=[case[0] for case in BOUNDED]
    )
    def test_the_call_ends_in_time_and_memory_as_one_classified_error(
        self, name: str, behaviour: Callable[[], Behaviour], kind: ErrorKind, words: str
    ) -> None:
        deadline = DEADLINE if kind is ErrorKind.TIMEOUT else ROOMY
        with HostileServer(behaviour()) as server:
            error, seconds, peak = measured_call(server, timeout=deadline)
        assert error.kind is kind and words in str(error)
        assert isinstance(error, BackendTimeout) == (kind is ErrorKind.TIMEOUT)
        assert seconds < deadline + 1.0
        assert peak < PEAK_FACTOR * ReplyLimits().max_reply_bytes
        assert server.calls == 1
        assert "\n" not in str(error) and "127.0.0.1" in str(error)  # one line, naming the host only

    def test_the_caps_are_the_backends_own_setting(self) -> None:
        limits = ReplyLimits(max_reply_bytes=64 * 1024, max_head_bytes=1024)
        with HostileServer(huge_json(200 * 1024)) as server:
            error, _, peak = measured_call(server, limits=limits, timeout=ROOMY)
        assert "longer than 64 KiB" in str(error) and peak < 4 * MIB

    def test_a_large_reply_under_the_cap_is_read_whole(self) -> None:
        with HostileServer(huge_json(4 * MIB)) as server:
            reply = asyncio.run(backend(server.url, timeout=10).complete(REQUEST, []))
        assert reply.content.count("x") >= 4 * MIB
        assert server.requests[0].headers["accept-encoding"] == "gzip, deflate"

    def test_a_gzip_reply_under_the_cap_is_decoded(self) -> None:
        with HostileServer(gzip_bomb(2 * MIB)) as server:
            error, _, _ = measured_call(server, timeout=ROOMY)
        # two MiB of zero bytes: decoded whole, then (rightly) not JSON
        assert "not JSON" in str(error) and "inflates" not in str(error)


# (name, the bytes the server sends, words of the error): each a one-line classified failure, never a hang
BROKEN: list[tuple[str, bytes, str]] = [
    ("json-nested-100000-deep", head(Content_Length=200_000) + b"[" * 100_000 + b"]" * 100_000, "not JSON"),
    (
        "integer-of-5000-digits",
        head(Content_Length=5_013) + b'{"choices": ' + b"1" * 5_000 + b"}",
        "not JSON",
    ),
    ("one-header-of-1-MiB", b"HTTP/1.1 200 OK\r\nX-Pad: " + b"a" * MIB + b"\r\n\r\n", "could not reach"),
    ("100000-headers", b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 100_000 + b"\r\n", "could not reach"),
    ("body-cut-short", head(Content_Length=10_000) + b'{"choices": [', "could not reach"),
    ("not-http-at-all", b"SSH-2.0-OpenSSH_9.6\r\n" * 10, "could not reach"),
    (
        "chunk-size-of-16-exabytes",
        head(Transfer_Encoding="chunked") + b"ffffffffffffffff\r\n" + b"x" * 1000,
        "could",
    ),
]


class TestBrokenReplies:
    @pytest.mark.parametrize(("name", "data", "words"), BROKEN, ids=[case[0] for case in BROKEN])
    def test_a_broken_reply_is_one_classified_error(self, name: str, data: bytes, words: str) -> None:
        with HostileServer(raw_reply(data)) as server:
            error, seconds, peak = measured_call(server, timeout=ROOMY)
        assert error.kind is ErrorKind.UNKNOWN and words in str(error), str(error)
        assert seconds < ROOMY and peak < PEAK_FACTOR * ReplyLimits().max_reply_bytes
        assert "\n" not in str(error)


class TestDeclaredCharsets:
    @pytest.mark.parametrize(
        "charset", ["utf-8", "rot13", "zlib_codec", "base64", "punycode", "no-such-charset", ""]
    )
    def test_a_charset_that_is_not_a_text_encoding_is_read_as_utf8(self, charset: str) -> None:
        with HostileServer(declared_charset(charset)) as server:
            reply = asyncio.run(backend(server.url).complete(REQUEST, []))
        assert "naïve café ✓" in reply.content

    def test_a_real_legacy_charset_is_honoured(self) -> None:
        body = chat_completion("café").decode().encode("latin-1")
        with HostileServer(declared_charset("ISO-8859-1", body)) as server:
            reply = asyncio.run(backend(server.url).complete(REQUEST, []))
        assert reply.content == "café"


class TestRepliesThatMustPrint:
    def test_a_lone_surrogate_in_a_reply_comes_back_written_escaped(self) -> None:
        body = chat_completion("<state_snapshot>fix \ud800 here</state_snapshot>")  # JSON writes it "\\ud800"
        with HostileServer(declared_charset("utf-8", body)) as server:
            reply = asyncio.run(backend(server.url).complete(REQUEST, []))
        assert reply.content == "<state_snapshot>fix \\ud800 here</state_snapshot>"
        json.dumps(reply.to_dict(), ensure_ascii=False).encode(
            "utf-8"
        )  # the parsed body too: it prints and shows


def cli_compact(
    tmp_path: Path, server: HostileServer, *extra: str, timeout: float = DEADLINE
) -> dict[str, Any]:
    """``compact --json`` against the server, with dumps and --out in tmp: what it printed and wrote."""
    source = conversation_file(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    argv = ["compact", str(source), "--force", "--keep-recent", "2", "--context-max", "200000", "--json",
            "--dump-dir", str(tmp_path / "dumps"), "--out", str(tmp_path / "out.json"), "--api-base", server.url,
            "--model", "hostile-model", "--api-key", KEY, "--timeout", str(timeout), *extra]  # fmt: skip
    began = time.monotonic()
    code = main(argv, out=out, err=err)
    files = {
        p.relative_to(tmp_path).as_posix(): p.read_text("utf-8")
        for p in sorted(tmp_path.rglob("*"))
        if p.is_file()
    }
    return {
        "code": code,
        "seconds": time.monotonic() - began,
        "stdout": out.getvalue(),
        "stderr": err.getvalue(),
        "result": json.loads(out.getvalue().splitlines()[-1]),
        "files": files,
        "source": source,
    }


class TestTheCompactionFailsCleanly:
    @pytest.mark.parametrize(
        ("name", "behaviour", "kind", "words"), BOUNDED[:5], ids=[case[0] for case in BOUNDED[:5]]
    )
    def test_exit_3_the_conversation_unchanged_and_no_dump(
        self, name: str, behaviour: Callable[[], Behaviour], kind: ErrorKind, words: str, tmp_path: Path
    ) -> None:
        deadline = DEADLINE if kind is ErrorKind.TIMEOUT else ROOMY
        with HostileServer(behaviour()) as server:
            run = cli_compact(tmp_path, server, timeout=deadline)
        result = run["result"]
        assert run["code"] == EXIT_FAILED and result["status"] == "failed" and result["reason"] == kind.value
        assert server.calls == 3  # SPEC §11: a transient failure is retried twice
        assert run["seconds"] < DEADLINE_CALLS * deadline + 1.0  # all of them within 3 deadlines of one call
        assert not any(name.startswith("dumps/") and name.endswith(".json") for name in run["files"])
        assert_unchanged(run)
        log = [json.loads(line) for line in run["files"]["dumps/CurrentRoundCompressor.jsonl"].splitlines()]
        retries = [r for r in log if r["event"] == "compression_retry"]
        assert [r["error_type"] for r in retries] == [f"transient:{kind.value}"] * 2


def assert_unchanged(run: dict[str, Any]) -> None:
    written = load_conversation(json.loads(run["files"]["out.json"]))
    original = load_conversation(run["source"])
    assert [m.to_openjiuwen() for m in written.messages] == [m.to_openjiuwen() for m in original.messages]


class TestTheDeadlineHoldsRetriesAndWaits:
    """All the calls of a compaction end within 3 times ``--timeout``: a Retry-After past that is not slept on, and
    the last call gets only the time left (issue 15)."""

    @pytest.mark.parametrize(
        "retry_after",
        ["240", "3600", "Wed, 21 Oct 2099 07:28:00 GMT"],
        ids=["4-minutes", "an-hour", "a-date"],
    )
    def test_a_wait_past_the_deadline_fails_at_once_as_rate_limit(
        self, retry_after: str, tmp_path: Path
    ) -> None:
        with HostileServer(asks_to_wait(retry_after)) as server:
            run = cli_compact(tmp_path, server)
        result = run["result"]
        assert (
            run["code"] == EXIT_FAILED and result["status"] == "failed" and result["reason"] == "rate_limit"
        )
        assert server.calls == 1 and run["seconds"] < DEADLINE + 1.0
        assert (
            "asked to wait" in result["error"]
            and f"deadline of {DEADLINE_CALLS * DEADLINE:g} s" in result["error"]
        )
        assert result["attempts"][-1]["error"] == result["error"]  # the table says why it stopped, too
        assert_unchanged(run)

    def test_a_wait_that_fits_is_honoured_and_the_retries_made(self, tmp_path: Path) -> None:
        with HostileServer(asks_to_wait("0.3")) as server:
            run = cli_compact(tmp_path, server, timeout=10.0)
        assert run["code"] == EXIT_FAILED and run["result"]["reason"] == "rate_limit"
        assert server.calls == 3 and run["seconds"] >= 0.6  # two waits of 0.3 s: Retry-After was honoured
        assert [a["delay_seconds"] for a in run["result"]["attempts"]] == [0.3, 0.3, None]

    def test_the_last_call_gets_only_the_time_left(self, tmp_path: Path) -> None:
        # A wait of 1.2 s, then a call that times out after its 1 s: the retry has 0.8 s of the 3 s left, not 1 s
        # (0.8 s, not less: under load the second call can start a few tenths late, and the third must still fit).
        wait = asks_to_wait("1.2")
        with HostileServer(in_turn(wait, slow_then(60, b""))) as server:
            run = cli_compact(tmp_path, server)
        assert run["code"] == EXIT_FAILED and run["result"]["reason"] == "timeout"
        assert (
            server.calls == 3
            and DEADLINE_CALLS * DEADLINE - 0.2 < run["seconds"] < DEADLINE_CALLS * DEADLINE + 1.0
        )
        assert "all calls and waits together" in run["result"]["error"]

    @pytest.mark.parametrize("timeout", ["inf", "nan", "-1", "0", "1e999"])
    def test_a_deadline_that_bounds_nothing_is_one_line_and_no_call(
        self, timeout: str, tmp_path: Path
    ) -> None:
        source = conversation_file(tmp_path)
        out, err = io.StringIO(), io.StringIO()
        with HostileServer(asks_to_wait("0")) as server:
            argv = [
                "compact",
                str(source),
                "--force",
                "--api-base",
                server.url,
                "--model",
                "m",
                "--timeout",
                timeout,
            ]
            code = main(argv, out=out, err=err)
        assert code == EXIT_BAD_INPUT and server.calls == 0 and out.getvalue() == ""
        assert err.getvalue().startswith("compaction-lab: --timeout: ") and err.getvalue().count("\n") == 1


def artefacts(run: dict[str, Any]) -> dict[str, str]:
    return {"stdout": run["stdout"], "stderr": run["stderr"], **run["files"]}


class TestTheKeyNeverComesBack:
    @pytest.mark.parametrize("encoding", list(ENCODINGS))
    def test_a_reply_quoting_the_key_reaches_no_artefact(self, encoding: str, tmp_path: Path) -> None:
        with HostileServer(echo_key(encoding)) as server:
            run = cli_compact(tmp_path, server)
        assert server.requests[0].key == KEY  # the key was really in play
        assert run["code"] == EXIT_OK and run["result"]["status"] == "compacted"
        assert any(name.startswith("dumps/") and name.endswith(".json") for name in run["files"])
        leaks = {name: spellings(text, KEY) for name, text in artefacts(run).items()}
        assert {name: found for name, found in leaks.items() if found} == {}
        assert "[redacted]" in run["result"]["summary"]

    @pytest.mark.parametrize("encoding", list(ENCODINGS))
    def test_an_error_quoting_the_key_reaches_no_artefact(self, encoding: str, tmp_path: Path) -> None:
        with HostileServer(echo_key(encoding, status=401)) as server:
            run = cli_compact(tmp_path, server)
        assert run["code"] == EXIT_FAILED and run["result"]["reason"] == "authentication"
        leaks = {name: spellings(text, KEY) for name, text in artefacts(run).items()}
        assert {name: found for name, found in leaks.items() if found} == {}
        assert "[redacted]" in run["result"]["error"]

    @pytest.mark.parametrize("encoding", list(ENCODINGS))
    def test_the_backends_error_and_reply_hold_no_form_of_the_key(self, encoding: str) -> None:
        with HostileServer(echo_key(encoding, status=500)) as server:
            error, _, _ = measured_call(server, timeout=ROOMY)
        assert spellings(str(error) + repr(error.args), KEY) == []
        assert error.__cause__ is None and error.__context__ is None
        with HostileServer(echo_key(encoding)) as server:
            reply = asyncio.run(backend(server.url).complete(REQUEST, []))
        assert spellings(json.dumps(reply.to_dict()), KEY) == [] and spellings(reply.content, KEY) == []
