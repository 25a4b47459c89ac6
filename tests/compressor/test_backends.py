"""Model backends: the OpenAI-compatible client against a real local server and httpx.MockTransport,
the fault matrix of SPEC §11, key hygiene, the offline extractive snapshot, replay, and backend choice."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from compressor.backends import (
    SNAPSHOT_SECTIONS,
    Backend,
    ModelReply,
    OfflineBackend,
    OpenAICompatibleBackend,
    ReplayBackend,
    make_backend,
    parse_retry_after,
)
from compressor.backends.offline import MAX_ITEMS, build_reply
from compressor.backends.redaction import ASCII_LOOKALIKES, redact
from compressor.config import ModelClientConfig, ModelRequestConfig
from compressor.errors import (
    TRANSIENT_KINDS,
    BackendError,
    BackendTimeout,
    ConfigError,
    DumpFormatError,
    ErrorKind,
)
from compressor.messages import Message, ToolCall, ToolDef
from tests.conftest import SAMPLES
from tests.support.openai_server import ScriptedServer, refused_url

CANARY = "sk-canary-5f1e2d3c4b5a69788796a5b4"
SAMPLE_DUMPS = SAMPLES / "openjiuwen-dumps"
PROMPT = Message(role="user", content="Write the state snapshot now.")
TOOLS = [
    ToolDef(name="read_file", description="Read a file", parameters={"type": "object", "properties": {}})
]
REQUEST = [
    Message(role="system", content="You are a coding agent."),
    Message(role="user", content="Fix the failing test."),
    Message(
        role="assistant",
        content="",
        tool_calls=[ToolCall(id="c1", name="read_file", arguments='{"file_path": "src/app.py"}')],
    ),
    Message(role="tool", tool_call_id="c1", content="def main(): ..."),
    PROMPT,
]


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def openai_backend(
    api_base: str,
    *,
    key: str = CANARY,
    timeout: float = 5.0,
    model: str = "gpt-test",
    transport: httpx.AsyncBaseTransport | None = None,
    **request: Any,
) -> OpenAICompatibleBackend:
    return OpenAICompatibleBackend(
        ModelClientConfig(api_base=api_base, api_key=SecretStr(key), timeout=timeout),
        ModelRequestConfig(model=model, **request),
        transport=transport,
    )


def failure(backend: Backend, messages: Sequence[Message] = REQUEST) -> BackendError:
    with pytest.raises(BackendError) as info:
        run(backend.complete(messages, TOOLS))
    return info.value


def mock(handler: Callable[[httpx.Request], httpx.Response]) -> httpx.MockTransport:
    return httpx.MockTransport(handler)


def completion(content: Any, **message: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": content, **message}}]}


def assert_no_secret(error: BaseException, secret: str = CANARY) -> None:
    """The secret is in no text of the error, and the error drags no chained exception along."""
    assert secret not in str(error)
    assert secret not in repr(error)
    assert all(secret not in str(arg) for arg in error.args)
    assert error.__cause__ is None
    assert error.__context__ is None


# -- the request ---------------------------------------------------------------------------------


class TestRequestShape:
    def test_posts_the_chat_completions_body_to_the_base_url(self) -> None:
        with ScriptedServer(["ok"]) as server:
            reply = run(openai_backend(server.url).complete(REQUEST, TOOLS))
        assert reply.content == "ok"
        [request] = server.requests
        assert (request.method, request.path) == ("POST", "/v1/chat/completions")
        body = request.body
        assert body["model"] == "gpt-test"
        assert body["messages"] == [message.to_openai() for message in REQUEST]
        assert body["messages"][2]["tool_calls"][0]["function"]["name"] == "read_file"
        assert body["tools"] == [tool.openai() for tool in TOOLS]
        assert body["tool_choice"] == "none"
        assert body["stream"] is False
        assert body["temperature"] == 0.2
        assert "top_p" not in body and "max_tokens" not in body

    def test_sampling_settings_are_sent_only_when_set(self) -> None:
        backend = openai_backend("http://x.invalid/v1", temperature=0.0, top_p=0.9, max_tokens=2048)
        body = backend.request_body(REQUEST, TOOLS)
        assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.0, 0.9, 2048)

    def test_without_tools_neither_tools_nor_tool_choice_is_sent(self) -> None:
        with ScriptedServer(["ok"]) as server:
            run(openai_backend(server.url).complete(REQUEST, []))
        body = server.requests[0].body
        assert "tools" not in body and "tool_choice" not in body

    def test_the_key_is_a_bearer_header(self) -> None:
        with ScriptedServer(["ok"]) as server:
            run(openai_backend(server.url).complete(REQUEST, TOOLS))
        assert server.requests[0].headers["authorization"] == f"Bearer {CANARY}"

    def test_no_key_means_no_authorization_header(self) -> None:
        with ScriptedServer(["ok"]) as server:
            run(openai_backend(server.url, key="").complete(REQUEST, TOOLS))
        assert "authorization" not in server.requests[0].headers

    @pytest.mark.parametrize(
        ("suffix", "path"),
        [("/v1", "/v1/chat/completions"), ("/v1/", "/v1/chat/completions"), ("", "/chat/completions")],
    )
    def test_the_base_is_used_as_given_without_guessing_v1(self, suffix: str, path: str) -> None:
        with ScriptedServer(["ok"]) as server:
            run(openai_backend(server.base_url + suffix).complete(REQUEST, TOOLS))
        assert server.requests[0].path == path

    def test_a_query_on_the_base_is_kept_after_the_path(self) -> None:
        seen: list[httpx.URL] = []

        def handler(request: httpx.Request) -> httpx.Response:
            seen.append(request.url)
            return httpx.Response(200, json=completion("ok"))

        backend = openai_backend(
            "https://gw.example/openai/v1?api-version=2024-06-01", transport=mock(handler)
        )
        run(backend.complete(REQUEST, TOOLS))
        assert str(seen[0]) == "https://gw.example/openai/v1/chat/completions?api-version=2024-06-01"

    def test_an_injected_client_is_used_and_left_open(self) -> None:
        calls: list[str] = []

        def handler(request: httpx.Request) -> httpx.Response:
            calls.append(request.headers["authorization"])
            return httpx.Response(200, json=completion("ok"))

        async def twice() -> bool:
            async with httpx.AsyncClient(transport=mock(handler)) as client:
                backend = OpenAICompatibleBackend(
                    ModelClientConfig(api_base="https://api.example/v1", api_key=SecretStr(CANARY)),
                    ModelRequestConfig(model="m"),
                    http_client=client,
                )
                await backend.complete(REQUEST, TOOLS)
                await backend.complete(REQUEST, TOOLS)
                return client.is_closed

        assert run(twice()) is False
        assert calls == [f"Bearer {CANARY}"] * 2

    def test_label_names_model_and_host_but_not_the_key(self) -> None:
        backend = openai_backend("https://api.openai.com/v1", model="gpt-4o")
        assert backend.label == "OpenAI-compatible: gpt-4o at api.openai.com"
        assert backend.kind == "openai"
        assert openai_backend("http://localhost:11434/v1", model="qwen3").label.endswith("at localhost:11434")


# -- the reply -----------------------------------------------------------------------------------


class TestReplies:
    @pytest.mark.parametrize(
        ("body", "content"),
        [
            (completion("summary text"), "summary text"),
            (
                completion([{"type": "text", "text": "part one, "}, {"type": "text", "text": "part two"}]),
                "part one, part two",
            ),
            (completion(["plain ", "strings"]), "plain strings"),
            (
                completion([{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "answer"}]),
                "answer",
            ),
            (
                completion(
                    None,
                    tool_calls=[
                        {"id": "t", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                    ],
                ),
                "",
            ),
            (
                completion(
                    "",
                    tool_calls=[
                        {"id": "t", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                    ],
                ),
                "",
            ),
            ({"choices": []}, ""),
            ({"choices": [{"index": 0, "text": "legacy completion"}]}, "legacy completion"),
        ],
    )
    def test_content_of_the_first_choice(self, body: dict[str, Any], content: str) -> None:
        backend = openai_backend(
            "https://api.example/v1", transport=mock(lambda _: httpx.Response(200, json=body))
        )
        reply = run(backend.complete(REQUEST, TOOLS))
        assert reply == ModelReply(content=content, usage=None, raw=body)

    def test_usage_is_passed_through(self) -> None:
        body = {**completion("x"), "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}
        backend = openai_backend(
            "https://api.example/v1", transport=mock(lambda _: httpx.Response(200, json=body))
        )
        assert run(backend.complete(REQUEST, TOOLS)).usage == body["usage"]

    def test_scripted_server_reply_round_trips(self) -> None:
        with ScriptedServer(["<state_snapshot>done</state_snapshot>"]) as server:
            reply = run(openai_backend(server.url).complete(REQUEST, TOOLS))
        assert reply.content == "<state_snapshot>done</state_snapshot>"
        assert reply.raw is not None and reply.raw["model"] == "gpt-test"


# -- the fault matrix ----------------------------------------------------------------------------

# (case id, scripted response, expected kind, expected status_code)
FAULTS: list[tuple[str, Any, ErrorKind, int | None]] = [
    ("400", {"raise": "unsupported parameter: foo", "status_code": 400}, ErrorKind.API_REQUEST_ERROR, 400),
    (
        "400-overflow",
        {"raise": "This model's maximum context length is 8192 tokens", "status_code": 400},
        ErrorKind.CONTEXT_OVERFLOW,
        400,
    ),
    ("401", {"raise": "Invalid API key", "status_code": 401}, ErrorKind.AUTHENTICATION, 401),
    ("403", {"raise": "Your region is not supported", "status_code": 403}, ErrorKind.AUTHENTICATION, 403),
    ("404", {"raise": "The model `gpt-test` does not exist", "status_code": 404}, ErrorKind.UNKNOWN, 404),
    ("413", {"status_code": 413, "body": "Payload Too Large"}, ErrorKind.CONTEXT_OVERFLOW, 413),
    (
        "429",
        {"raise": "Rate limit reached", "status_code": 429, "headers": {"Retry-After": "7"}},
        ErrorKind.RATE_LIMIT,
        429,
    ),
    ("500", {"raise": "Internal Server Error", "status_code": 500}, ErrorKind.SERVER_UNSTABLE, 500),
    ("501-text", {"status_code": 501, "body": ""}, ErrorKind.SERVER_UNSTABLE, 501),
    (
        "502",
        {"status_code": 502, "body": "<html><body><h1>502 Bad Gateway</h1></body></html>"},
        ErrorKind.SERVER_UNSTABLE,
        502,
    ),
    ("503", {"raise": "Service Unavailable", "status_code": 503}, ErrorKind.SERVER_UNSTABLE, 503),
    ("504", {"raise": "upstream connect error", "status_code": 504}, ErrorKind.SERVER_UNSTABLE, 504),
    ("504-timeout-text", {"raise": "Gateway Timeout", "status_code": 504}, ErrorKind.TIMEOUT, 504),
    (
        "vllm-error",
        {
            "status_code": 400,
            "json": {"object": "error", "message": "bad input", "type": "BadRequestError", "code": 400},
        },
        ErrorKind.API_REQUEST_ERROR,
        400,
    ),
    (
        "ollama-error",
        {"status_code": 404, "json": {"error": "model 'qwen9' not found"}},
        ErrorKind.UNKNOWN,
        404,
    ),
    (
        "error-in-200",
        {"json": {"error": {"message": "Rate limit exceeded", "code": 429}}},
        ErrorKind.RATE_LIMIT,
        429,
    ),
    ("malformed-json", {"status_code": 200, "body": '{"choices": [ not json'}, ErrorKind.UNKNOWN, 200),
    ("json-not-object", {"json": ["a", "list"]}, ErrorKind.UNKNOWN, 200),
    ("no-choices", {"json": {"id": "x"}}, ErrorKind.UNKNOWN, 200),
]


class TestFaultMatrix:
    @pytest.mark.parametrize(
        ("response", "kind", "status"), [f[1:] for f in FAULTS], ids=[f[0] for f in FAULTS]
    )
    def test_each_fault_ends_as_spec_11_says(
        self, response: Any, kind: ErrorKind, status: int | None
    ) -> None:
        with ScriptedServer([response]) as server:
            error = failure(openai_backend(server.url))
        assert error.kind is kind
        assert error.status_code == status
        assert error.retryable is (kind in TRANSIENT_KINDS or kind is ErrorKind.CONTEXT_OVERFLOW)
        assert str(error).startswith("HTTP ")
        assert "\n" not in str(error)
        assert_no_secret(error)

    def test_the_message_carries_the_servers_own_words(self) -> None:
        with ScriptedServer([{"raise": "Rate limit reached", "status_code": 429}]) as server:
            error = failure(openai_backend(server.url))
        assert str(error) == "HTTP 429 from the endpoint: Rate limit reached"

    def test_an_error_reply_in_a_200_says_both_codes(self) -> None:
        with ScriptedServer([{"json": {"error": {"message": "Rate limit exceeded", "code": 429}}}]) as server:
            error = failure(openai_backend(server.url))
        assert str(error) == "HTTP 200 from the endpoint carrying error 429: Rate limit exceeded"

    def test_retry_after_is_parsed_from_the_429(self) -> None:
        response = {"raise": "Rate limit reached", "status_code": 429, "headers": {"Retry-After": "7"}}
        with ScriptedServer([response]) as server:
            error = failure(openai_backend(server.url))
        assert error.retry_after == 7.0

    def test_retry_after_as_an_http_date(self) -> None:
        later = datetime.now(UTC).replace(microsecond=0).timestamp() + 30
        header = httpx.Headers(
            {"Retry-After": datetime.fromtimestamp(later, UTC).strftime("%a, %d %b %Y %H:%M:%S GMT")}
        )
        backend = openai_backend(
            "https://api.example/v1", transport=mock(lambda _: httpx.Response(503, headers=header))
        )
        error = failure(backend)
        assert error.kind is ErrorKind.SERVER_UNSTABLE
        assert error.retry_after is not None and 20 <= error.retry_after <= 30

    def test_a_status_without_text_falls_back_to_the_reason_phrase(self) -> None:
        backend = openai_backend("https://api.example/v1", transport=mock(lambda _: httpx.Response(503)))
        assert str(failure(backend)) == "HTTP 503 from the endpoint (Service Unavailable)"

    def test_malformed_json_says_so(self) -> None:
        with ScriptedServer([{"status_code": 200, "body": "<html>oops</html>"}]) as server:
            error = failure(openai_backend(server.url))
        assert "not JSON" in str(error)
        assert error.kind is ErrorKind.UNKNOWN

    def test_connection_refused_is_a_transient_unknown(self) -> None:
        url = refused_url()
        error = failure(openai_backend(url))
        assert error.kind is ErrorKind.UNKNOWN
        assert error.kind in TRANSIENT_KINDS
        assert error.status_code is None
        assert str(error).startswith("could not reach the endpoint at 127.0.0.1:")
        assert_no_secret(error)

    def test_a_slow_server_is_a_timeout(self) -> None:
        with ScriptedServer([{"timeout": True}, "late but fine"]) as server:
            backend = openai_backend(server.url, timeout=0.3)
            error = failure(backend)
            # the next request is answered: the held one does not block the server
            assert run(backend.complete(REQUEST, TOOLS)).content == "late but fine"
        assert isinstance(error, BackendTimeout)
        assert error.kind is ErrorKind.TIMEOUT
        assert_no_secret(error)

    def test_a_running_out_script_answers_500_with_a_clear_message(self) -> None:
        with ScriptedServer([]) as server:
            error = failure(openai_backend(server.url))
        assert error.kind is ErrorKind.SERVER_UNSTABLE
        assert "no response left for request #1" in str(error)


class TestClassificationIgnoresTheUrl:
    def test_a_url_full_of_markers_does_not_classify_a_plain_error(self) -> None:
        backend = openai_backend(
            "https://rate-limit.timeout.example/429/context_length/v1",
            transport=mock(lambda _: httpx.Response(418, json={"error": {"message": "I'm a teapot"}})),
        )
        error = failure(backend)
        assert error.kind is ErrorKind.UNKNOWN
        assert "rate-limit" not in str(error)

    def test_a_transport_error_quoting_the_url_is_classified_without_it(self) -> None:
        def handler(request: httpx.Request) -> httpx.Response:
            raise httpx.ConnectError(f"cannot connect to {request.url}", request=request)

        backend = openai_backend("https://gw.example/timeout/v1?token=querysecret", transport=mock(handler))
        error = failure(backend)
        assert error.kind is ErrorKind.UNKNOWN
        assert "querysecret" not in str(error)
        assert "/timeout/" not in str(error)
        assert_no_secret(error)


class TestKeyNeverLeaks:
    def test_a_server_echoing_the_key_is_redacted(self) -> None:
        response = {"raise": f"Incorrect API key provided: {CANARY}.", "status_code": 401}
        with ScriptedServer([response]) as server:
            error = failure(openai_backend(server.url))
        assert error.kind is ErrorKind.AUTHENTICATION
        assert "[redacted]" in str(error)
        assert_no_secret(error)

    def test_a_malformed_body_echoing_the_key_is_redacted(self) -> None:
        with ScriptedServer([{"status_code": 200, "body": f"oops {CANARY}"}]) as server:
            error = failure(openai_backend(server.url))
        assert_no_secret(error)

    def test_a_transport_error_quoting_the_key_is_redacted(self) -> None:
        def handler(request: httpx.Request) -> httpx.Response:
            raise httpx.ReadError(f"reset while sending {request.headers['authorization']}", request=request)

        error = failure(openai_backend("https://api.example/v1", transport=mock(handler)))
        assert_no_secret(error)

    def test_the_backend_repr_and_config_dump_hold_no_key(self) -> None:
        backend = openai_backend("https://api.example/v1")
        assert CANARY not in repr(backend)
        assert CANARY not in repr(vars(backend))
        assert CANARY not in json.dumps(backend.client_config.model_dump(mode="json"))
        assert CANARY not in backend.label


class TestRetryAfterParsing:
    NOW = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)

    @pytest.mark.parametrize(
        ("headers", "seconds"),
        [
            ({}, None),
            ({"Retry-After": "7"}, 7.0),
            ({"retry-after": "1.5"}, 1.5),
            ({"Retry-After": " 0 "}, 0.0),
            ({"Retry-After": "-3"}, 0.0),
            ({"Retry-After": "soon"}, None),
            ({"Retry-After": "nan"}, None),
            ({"Retry-After": "Wed, 01 Jan 2025 12:00:30 GMT"}, 30.0),
            ({"Retry-After": "Wed, 01 Jan 2025 11:59:00 GMT"}, 0.0),
            ({"retry-after-ms": "250", "Retry-After": "9"}, 0.25),
        ],
    )
    def test_table(self, headers: dict[str, str], seconds: float | None) -> None:
        assert parse_retry_after(headers, now=self.NOW) == seconds


class TestFromEnv:
    def test_none_without_api_base(self) -> None:
        assert OpenAICompatibleBackend.from_env({"MODEL_NAME": "m", "API_KEY": CANARY}) is None

    def test_built_from_the_four_variables(self) -> None:
        env = {
            "API_BASE": "https://api.deepseek.com/v1",
            "API_KEY": CANARY,
            "MODEL_NAME": "deepseek-chat",
            "MODEL_PROVIDER": "DeepSeek",
        }
        backend = OpenAICompatibleBackend.from_env(env)
        assert backend is not None
        assert backend.label == "OpenAI-compatible: deepseek-chat at api.deepseek.com"
        assert backend.client_config.client_provider == "DeepSeek"
        assert backend.client_config.api_key.get_secret_value() == CANARY

    def test_api_base_without_model_name_is_a_config_error(self) -> None:
        with pytest.raises(ConfigError, match="MODEL_NAME"):
            OpenAICompatibleBackend.from_env({"API_BASE": "http://localhost:8000/v1"})

    def test_api_base_without_scheme_is_a_config_error(self) -> None:
        with pytest.raises(ConfigError, match="API_BASE"):
            OpenAICompatibleBackend.from_env({"API_BASE": "localhost:8000/v1", "MODEL_NAME": "m"})


# -- offline ---------------------------------------------------------------------------------------

CONVERSATION = [
    Message(role="system", content="You are a coding agent."),
    Message(role="user", content="Earlier: set up the project."),
    Message(role="assistant", content="Project set up."),
    Message(
        role="user",
        content="Make the parser accept empty lines in config/settings.toml. Do not change the public API. "
        "My token is sk-live0123456789abcdefXYZ and password=hunter2.",
    ),
    Message(
        role="assistant",
        content="I will look at the parser first.",
        tool_calls=[
            ToolCall(id="c1", name="read_file", arguments=json.dumps({"file_path": "src/parser/core.py"})),
            ToolCall(
                id="c2", name="bash", arguments=json.dumps({"command": "pytest -q tests/test_parser.py"})
            ),
        ],
    ),
    Message(
        role="tool", tool_call_id="c1", content="def parse(text):\n    for line in text.splitlines(): ..."
    ),
    Message(
        role="tool",
        tool_call_id="c2",
        content="Traceback (most recent call last):\nValueError: empty line at 3\nFAILED tests/test_parser.py::test_blank\n1 failed, 4 passed",
    ),
    Message(
        role="assistant",
        content="Found the root cause: parse() rejects blank lines. Next: skip them in src/parser/core.py.",
    ),
    Message(
        role="assistant",
        content="",
        tool_calls=[
            ToolCall(
                id="c3",
                name="edit_file",
                arguments=json.dumps({"path": "src/parser/core.py", "old": "a", "new": "b"}),
            )
        ],
    ),
    Message(role="tool", tool_call_id="c3", content="edited 1 hunk"),
    PROMPT,
]


def offline_reply(messages: Sequence[Message] = CONVERSATION, tools: Sequence[ToolDef] = TOOLS) -> str:
    return str(run(OfflineBackend().complete(messages, tools)).content)


def section(reply: str, number: int) -> str:
    title = f"### {number}. {SNAPSHOT_SECTIONS[number - 1]}\n"
    start = reply.index(title) + len(title)
    end = reply.find("\n### ", start)
    return reply[start : end if end != -1 else reply.index("</state_snapshot>")]


class TestOfflineBackend:
    def test_label_and_kind(self) -> None:
        backend = OfflineBackend()
        assert backend.label == "offline (extractive)"
        assert backend.kind == "offline"
        assert isinstance(backend, Backend)

    def test_same_input_same_output(self) -> None:
        assert offline_reply() == offline_reply()
        assert build_reply(CONVERSATION, TOOLS) == offline_reply()

    def test_both_blocks_in_order(self) -> None:
        reply = offline_reply()
        assert reply.startswith("<coverage_check>\n")
        assert reply.index("</coverage_check>") < reply.index("<state_snapshot>")
        assert reply.rstrip().endswith("</state_snapshot>")
        assert reply.count("<state_snapshot>") == reply.count("<coverage_check>") == 1

    def test_all_eleven_sections_in_order(self) -> None:
        assert len(SNAPSHOT_SECTIONS) == 11
        assert SNAPSHOT_SECTIONS[0] == "Active Task" and SNAPSHOT_SECTIONS[-1] == "Relevant Files Structure"
        reply = offline_reply()
        positions = [reply.index(f"### {n}. {title}\n") for n, title in enumerate(SNAPSHOT_SECTIONS, start=1)]
        assert positions == sorted(positions)

    def test_the_task_is_the_last_real_user_message_not_the_prompt(self) -> None:
        task = section(offline_reply(), 1)
        assert task.startswith("> Make the parser accept empty lines in config/settings.toml.")
        assert "Write the state snapshot now" not in offline_reply()
        assert "Earlier: set up the project" not in task

    def test_constraints_come_from_the_users_words(self) -> None:
        assert "Do not change the public API." in section(offline_reply(), 2)

    def test_tool_calls_are_listed_with_their_outcome(self) -> None:
        completed = section(offline_reply(), 3)
        assert "read_file(file_path=src/parser/core.py) → def parse(text):" in completed
        assert (
            "bash(command=pytest -q tests/test_parser.py) → Traceback (most recent call last):" in completed
        )
        assert "edit_file(path=src/parser/core.py, old=a, new=b) → edited 1 hunk" in completed

    def test_latest_assistant_statements(self) -> None:
        current = section(offline_reply(), 4)
        assert "Found the root cause: parse() rejects blank lines." in current

    def test_resume_point_is_the_last_step(self) -> None:
        assert "edit_file(path=src/parser/core.py" in section(offline_reply(), 5)
        assert "edited 1 hunk" in section(offline_reply(), 5)

    def test_pending_work_from_next_steps(self) -> None:
        assert "Next: skip them in src/parser/core.py." in section(offline_reply(), 6)

    def test_commands_with_their_result_and_findings(self) -> None:
        facts = section(offline_reply(), 7)
        assert "`pytest -q tests/test_parser.py` → 1 failed, 4 passed" in facts
        assert "Found the root cause: parse() rejects blank lines." in facts

    def test_files_from_arguments_and_text(self) -> None:
        files = section(offline_reply(), 8)
        for path in ("src/parser/core.py", "config/settings.toml", "tests/test_parser.py"):
            assert f"- {path}" in files
        structure = section(offline_reply(), 11)
        assert "- src/parser/ core.py" in structure
        assert "- config/ settings.toml" in structure

    def test_errors_from_tool_results(self) -> None:
        blockers = section(offline_reply(), 9)
        assert "Traceback (most recent call last)" not in blockers  # a header names no error
        assert "- ValueError: empty line at 3" in blockers
        assert "- FAILED tests/test_parser.py::test_blank" in blockers
        assert "edited 1 hunk" not in blockers

    def test_source_code_that_mentions_errors_is_not_an_error(self) -> None:
        listing = (
            "1481:        except (TypeError, ValueError) as error:\n1482:  raise self.make_error('invalid')\n"
        )
        listing += "    except KeyError as error:\nerror: could not compile `demo`\nok: 3 passed, 0 failed"
        messages = [
            Message(role="user", content="look"),
            Message(role="assistant", content="", tool_calls=[ToolCall(id="c", name="open", arguments="{}")]),
            Message(role="tool", tool_call_id="c", content=listing),
            PROMPT,
        ]
        blockers = section(offline_reply(messages), 9)
        assert blockers == "- error: could not compile `demo`\n"

    def test_critical_context_names_the_tools(self) -> None:
        assert "Tools available: read_file" in section(offline_reply(), 10)

    def test_secrets_are_redacted(self) -> None:
        reply = offline_reply()
        assert "sk-live0123456789abcdefXYZ" not in reply
        assert "hunter2" not in reply
        assert "My token is [redacted] and password=[redacted]" in reply

    def test_the_call_list_is_capped_and_the_evidence_fits_the_budget(self) -> None:
        calls = [
            Message(
                role="assistant",
                content="",
                tool_calls=[
                    ToolCall(id=f"c{i}", name="bash", arguments=json.dumps({"command": f"echo {i}"}))
                ],
            )
            for i in range(40)
        ]
        results = [
            Message(role="tool", tool_call_id=f"c{i}", content=f"RuntimeError: case {i}") for i in range(40)
        ]
        messages = [
            Message(role="user", content="go"),
            *[m for pair in zip(calls, results, strict=True) for m in pair],
            PROMPT,
        ]
        reply = offline_reply(messages)
        completed = section(reply, 3)
        assert completed.count("\n- ") + 1 == MAX_ITEMS + 1  # the items and the "earlier items" note
        assert "(28 earlier items not listed)" in completed
        assert "echo 39" in completed and "echo 27" not in completed
        # Evidence is no longer capped at MAX_ITEMS: every distinct error fits the default budget.
        assert section(reply, 9).count("- RuntimeError: case") == 40

    def test_coverage_counts_every_distinct_item(self) -> None:
        steps = [
            m
            for i in range(40)
            for m in (
                Message(
                    role="assistant",
                    content=f"Step {i} in src/m{i}/f.py.",
                    tool_calls=[
                        ToolCall(id=f"c{i}", name="bash", arguments=json.dumps({"command": f"ls {i}"}))
                    ],
                ),
                Message(
                    role="tool", tool_call_id=f"c{i}", content=f"RuntimeError: case {i}\nerror: again {i}"
                ),
            )
        ]
        reply = offline_reply([Message(role="user", content="go"), *steps, PROMPT])
        assert "- Tool calls: 40; commands: 40; files: 40; errors: 80; identifiers: 0 (distinct)." in reply
        assert "src/m15/f.py" in section(reply, 8)  # the default budget holds every path

    def test_a_request_with_only_the_prompt_still_has_every_section(self) -> None:
        reply = offline_reply([Message(role="system", content="s"), PROMPT], [])
        for number, title in enumerate(SNAPSHOT_SECTIONS, start=1):
            assert f"### {number}. {title}\n" in reply
        assert "No user request is among the compacted messages" in section(reply, 1)

    def test_an_earlier_memory_block_is_carried_forward(self) -> None:
        memory = Message(
            role="user",
            content="<memory_block_current>\n<summary>\n### 1. Active Task\nPort the CLI to click.\n</summary>\n</memory_block_current>",
        )
        reply = offline_reply([Message(role="user", content="continue"), memory, PROMPT])
        assert "Port the CLI to click." in section(reply, 10)
        assert section(reply, 1).startswith("> continue")


class TestRedaction:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("key sk-proj-AbCdEf0123456789", "key [redacted]"),
            ("Authorization: Bearer abcdef0123456789.xyz", "Authorization: Bearer [redacted]"),
            ("password=hunter2 next", "password=[redacted] next"),
            ('{"api_key": "abc123"}', '{"api_key": [redacted]}'),
            ("export API_KEY=abc123", "export API_KEY=[redacted]"),
            ("https://user:pa55@db.example/x", "https://[redacted]@db.example/x"),
            ("ghp_0123456789abcdefghijABCDEFGHIJ", "[redacted]"),
            ("AKIAABCDEFGHIJKLMNOP", "[redacted]"),
            ("max_tokens=100 and 3 tokens: fine", "max_tokens=100 and 3 tokens: fine"),
        ],
    )
    def test_table(self, text: str, expected: str) -> None:
        assert redact(text) == expected


class TestCaseInsensitiveShortcut:
    """Plain substring tests on ``text.lower()`` stand in for case-insensitive searches, except in texts
    holding one of the non-ASCII characters that case-insensitive matching equates with an ASCII letter."""

    def test_the_lookalikes_are_every_non_ascii_character_matching_an_ascii_letter(self) -> None:
        everything = "".join(map(chr, range(0x80, sys.maxunicode + 1)))
        matching = {match.group() for match in re.finditer("[a-z]", everything, re.I)}
        assert matching == set(ASCII_LOOKALIKES)

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("to\u212aen: abc", "to\u212aen: [redacted]"),  # KELVIN SIGN for "k"
            ("pa\u017fsword=hunter2", "pa\u017fsword=[redacted]"),  # LONG S for "s"
            ("Bearer abcdef0123456789 \u0131", "Bearer [redacted] \u0131"),
        ],
    )
    def test_texts_with_lookalikes_are_redacted_as_before(self, text: str, expected: str) -> None:
        assert redact(text) == expected

    def test_an_error_spelled_with_a_lookalike_is_still_an_error(self) -> None:
        messages = [
            Message(role="user", content="build it"),
            Message(role="assistant", content="", tool_calls=[ToolCall(id="c", name="make", arguments="{}")]),
            Message(role="tool", tool_call_id="c", content="compiling\nbuild fa\u0131led\nfine"),
            PROMPT,
        ]
        assert section(offline_reply(messages), 9) == "- build fa\u0131led\n"


# -- replay ----------------------------------------------------------------------------------------


def sample_dumps() -> list[Path]:
    dumps = sorted(SAMPLE_DUMPS.glob("compact*/*.json"))
    assert dumps, f"missing shared fixtures: no dump JSON under {SAMPLE_DUMPS}"
    return dumps


class TestReplayBackend:
    def test_answers_every_request_with_the_recorded_reply(self) -> None:
        backend = ReplayBackend("<state_snapshot>x</state_snapshot>", source="a.json")
        assert run(backend.complete(REQUEST, TOOLS)).content == "<state_snapshot>x</state_snapshot>"
        assert run(backend.complete([PROMPT], [])).content == "<state_snapshot>x</state_snapshot>"
        assert (backend.label, backend.kind) == ("replay of a.json", "replay")
        assert isinstance(backend, Backend)

    def test_from_an_openjiuwen_dump(self) -> None:
        for path in sample_dumps():
            recorded = json.loads(path.read_text(encoding="utf-8"))["compression_response"]["raw_content"]
            backend = ReplayBackend.from_dump(path)
            assert backend.label == f"replay of {path.name}"
            assert run(backend.complete(REQUEST, TOOLS)).content == recorded

    def test_a_dump_without_a_reply_is_a_dump_format_error(self, tmp_path: Path) -> None:
        path = tmp_path / "1_CurrentRoundCompressor_s.json"
        path.write_text(json.dumps({"compression_response": {"extracted_summary": "x"}}), encoding="utf-8")
        with pytest.raises(DumpFormatError, match=r"compression_response\.raw_content") as info:
            ReplayBackend.from_dump(path)
        assert str(path) in str(info.value) and "\n" not in str(info.value)

    @pytest.mark.parametrize("content", ["{not json", "[1, 2]", ""])
    def test_unreadable_dumps_are_dump_format_errors(self, tmp_path: Path, content: str) -> None:
        path = tmp_path / "bad.json"
        path.write_text(content, encoding="utf-8")
        with pytest.raises(DumpFormatError):
            ReplayBackend.from_dump(path)

    def test_a_missing_file_is_a_dump_format_error(self, tmp_path: Path) -> None:
        with pytest.raises(DumpFormatError, match="cannot be read"):
            ReplayBackend.from_dump(tmp_path / "absent.json")


# -- choosing a backend ----------------------------------------------------------------------------

ENV = {"API_BASE": "https://openrouter.ai/api/v1", "API_KEY": CANARY, "MODEL_NAME": "qwen/qwen3-32b"}


class TestMakeBackend:
    def test_explicit_offline_wins_over_the_environment(self) -> None:
        assert isinstance(make_backend("offline", env=ENV), OfflineBackend)

    def test_nothing_configured_is_offline(self) -> None:
        assert isinstance(make_backend(None, env={}), OfflineBackend)

    def test_api_base_in_the_environment_is_openai(self) -> None:
        backend = make_backend(None, env=ENV)
        assert isinstance(backend, OpenAICompatibleBackend)
        assert backend.label == "OpenAI-compatible: qwen/qwen3-32b at openrouter.ai"

    def test_a_given_client_config_is_openai(self) -> None:
        client = ModelClientConfig(api_base="http://localhost:11434/v1")
        backend = make_backend(None, client_config=client, request=ModelRequestConfig(model="llama3"), env={})
        assert isinstance(backend, OpenAICompatibleBackend)
        assert backend.endpoint == httpx.URL("http://localhost:11434/v1/chat/completions")

    def test_openai_fills_the_model_from_the_environment(self) -> None:
        client = ModelClientConfig(api_base="http://localhost:8000/v1")
        backend = make_backend("openai", client_config=client, env={"MODEL_NAME": "served"})
        assert isinstance(backend, OpenAICompatibleBackend) and backend.request.model_name == "served"

    def test_openai_without_a_base_is_a_config_error(self) -> None:
        with pytest.raises(ConfigError, match="API base"):
            make_backend("openai", env={"MODEL_NAME": "m"})

    def test_openai_without_a_model_is_a_config_error(self) -> None:
        with pytest.raises(ConfigError, match="model"):
            make_backend("openai", client_config=ModelClientConfig(api_base="http://h/v1"), env={})

    def test_replay_reads_the_dump(self) -> None:
        path = sample_dumps()[0]
        backend = make_backend(f"replay:{path}", env=ENV)
        assert isinstance(backend, ReplayBackend) and backend.label == f"replay of {path.name}"

    def test_choices_ignore_case_and_spaces(self) -> None:
        assert isinstance(make_backend(" Offline ", env=ENV), OfflineBackend)

    @pytest.mark.parametrize("spec", ["replay:", "anthropic", "offline-ish"])
    def test_unknown_choices_are_config_errors(self, spec: str) -> None:
        with pytest.raises(ConfigError):
            make_backend(spec, env={})


def test_the_files_section_lists_the_newest_mentions_first_when_the_budget_is_short() -> None:
    from compressor.prompt import extract_summary
    from compressor.quality import build_ledger, score

    messages = [Message(role="user", content="tidy the modules")]
    messages += [Message(role="assistant", content=f"Looked at src/m{i}.py next.") for i in range(40)]
    messages.append(Message(role="user", content="checkpoint now"))
    ledger = build_ledger(messages[:-1])
    reply = build_reply(messages, budget_tokens=300)
    # Whether a path is kept is the scorer's call: under this budget the files are listed by folder.
    kept = {item.artifact.key for item in score(ledger, extract_summary(reply)).of("paths", "kept")}
    assert "src/m39.py" in kept and "src/m0.py" not in kept
    assert kept == {f"src/m{i}.py" for i in range(40 - len(kept), 40)}
    assert "more not listed: over the size budget)" in reply.split("### 8.", 1)[1].split("### 9.", 1)[0]
    # With the default budget every path is listed, one per line.
    everything = build_reply(messages).split("### 8.", 1)[1].split("### 9.", 1)[0]
    assert all(f"src/m{i}.py" in everything.split() for i in range(40))
