"""Security: an API key never leaves through any artefact the compressor writes or prints, and secrets in a
summary or in messages are found (kind and masked preview) so the dashboard can flag them."""

from __future__ import annotations

import io
import json
import logging
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from compressor.backends import OpenAICompatibleBackend
from compressor.cli import EXIT_FAILED, EXIT_OK, main
from compressor.config import ModelClientConfig, ModelRequestConfig
from compressor.errors import BackendError
from compressor.messages import Message
from compressor.secrets import ELLIPSIS, Finding, find_secrets, find_secrets_in_messages, mask
from tests.support.openai_server import Response, ScriptedServer

CANARY = "sk-canary-7f3a9c2e5b1d4068a2c4e6f8"
SNAPSHOT = (
    "<coverage_check>all covered</coverage_check>\n<state_snapshot>\n1. Active Task: fix the parser\n"
    "5. Immediate Resume Point: run the tests again\n</state_snapshot>"
)
SUCCESS: list[Response] = [SNAPSHOT]
UNAUTHORIZED: list[Response] = [
    {"raise": f"Incorrect API key provided: {CANARY}. Check your key.", "status_code": 401}
]
SERVER_ERROR: list[Response] = [
    {"raise": f"internal error while serving key {CANARY}", "status_code": 500}
] * 3


def conversation_file(folder: Path) -> Path:
    """A run worth compacting: a request, then shell commands with long output."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a careful coding agent."},
        {"role": "user", "content": "Fix the parser and make the tests pass."},
    ]
    for step in range(5):
        call_id = f"call_{step}"
        messages.append({
            "role": "assistant",
            "content": f"Running step {step}.",
            "tool_calls": [{"id": call_id, "type": "function",
                            "function": {"name": "bash", "arguments": json.dumps({"command": f"pytest -k t{step}"})}}],
        })  # fmt: skip
        output = "\n".join(f"tests/test_parser.py::test_{step}_{n} PASSED" for n in range(60))
        messages.append({"role": "tool", "tool_call_id": call_id, "content": output})
    messages.append({"role": "assistant", "content": "All steps ran."})
    path = folder / "input" / "run.json"
    path.parent.mkdir()
    path.write_text(json.dumps(messages), encoding="utf-8")
    return path


def forms(secret: str) -> list[bytes]:
    """The ways a secret could be written down: as is, JSON-escaped, and in UTF-16 (some logs)."""
    escaped = json.dumps(secret)[1:-1]
    return sorted({secret.encode(), escaped.encode(), secret.encode("utf-16-le")})


def files_under(root: Path) -> Iterator[Path]:
    return (path for path in sorted(root.rglob("*")) if path.is_file())


class Artefacts:
    """Everything one CLI run produced: files, captured streams, log records, warnings."""

    def __init__(self, root: Path, stdout: str, stderr: str, logs: str, code: int) -> None:
        self.root, self.stdout, self.stderr, self.logs, self.code = root, stdout, stderr, logs, code

    @property
    def files(self) -> list[Path]:
        return list(files_under(self.root))

    def leaks(self, secret: str) -> list[str]:
        places = []
        for path in self.files:
            data = path.read_bytes()
            if any(form in data for form in forms(secret)):
                places.append(str(path.relative_to(self.root)))
        for name, text in (("stdout", self.stdout), ("stderr", self.stderr), ("logs", self.logs)):
            if any(form in text.encode() for form in forms(secret)):
                places.append(name)
        return places

    @property
    def result(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(self.stdout.strip().splitlines()[-1])
        return loaded


@pytest.fixture
def run_cli(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> Iterator[Any]:
    """``run_cli(server, *extra_args)`` runs ``compaction-lab compact --json`` with dumps and --out in tmp."""
    caplog.set_level(logging.DEBUG)  # every logger, httpx and httpcore included

    runs = iter(range(1_000))

    def run(server: ScriptedServer | None, *extra: str) -> Artefacts:
        root = tmp_path / f"run-{next(runs)}"
        root.mkdir()
        source = conversation_file(root)
        out, err = io.StringIO(), io.StringIO()
        argv = ["compact", str(source), "--force", "--keep-recent", "2", "--context-max", "200000",
                "--dump-dir", str(root / "dumps"), "--out", str(root / "out" / "result.json"), "--json",
                "--timeout", "10", *extra]  # fmt: skip
        if server is not None:
            argv += ["--api-base", server.url, "--model", "canary-model"]
        code = main(argv, out=out, err=err)
        printed = capsys.readouterr()
        logs = caplog.text + "\n".join(
            f"{r.getMessage()} {r.exc_text or ''} {r.args!r}" for r in caplog.records
        )
        caplog.clear()
        return Artefacts(root, out.getvalue() + printed.out, err.getvalue() + printed.err, logs, code)

    yield run


class TestCanaryKeyNeverLeaks:
    @pytest.mark.parametrize(
        ("script", "status", "code"),
        [
            (SUCCESS, "compacted", EXIT_OK),
            (UNAUTHORIZED, "failed", EXIT_FAILED),
            (SERVER_ERROR, "failed", EXIT_FAILED),
        ],
        ids=["success", "401", "500"],
    )
    def test_key_given_on_the_command_line(
        self, run_cli: Any, script: list[Any], status: str, code: int
    ) -> None:
        with ScriptedServer(script) as server:
            artefacts = run_cli(server, "--api-key", CANARY)
        assert artefacts.code == code and artefacts.result["status"] == status
        # the key was really in play: every request carried it
        assert server.calls == len(script)
        assert all(r.headers["authorization"] == f"Bearer {CANARY}" for r in server.requests)
        names = {p.name for p in artefacts.files}
        assert {"run.json", "result.json", "CurrentRoundCompressor.jsonl"} <= names
        assert any(name.endswith("_default_session_id.json") for name in names) == (status == "compacted")
        assert artefacts.logs.strip(), "nothing was logged, so the log check proves nothing"
        assert artefacts.leaks(CANARY) == []

    @pytest.mark.parametrize("script", [SUCCESS, UNAUTHORIZED, SERVER_ERROR], ids=["success", "401", "500"])
    def test_key_from_the_environment(
        self, run_cli: Any, script: list[Any], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("API_KEY", CANARY)
        with ScriptedServer(script) as server:
            artefacts = run_cli(server)
        assert server.requests[0].headers["authorization"] == f"Bearer {CANARY}"
        assert artefacts.leaks(CANARY) == []

    def test_endpoint_key_and_model_all_from_the_environment(
        self, run_cli: Any, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        with ScriptedServer(UNAUTHORIZED + SUCCESS) as server:
            monkeypatch.setenv("API_BASE", server.url)
            monkeypatch.setenv("API_KEY", CANARY)
            monkeypatch.setenv("MODEL_NAME", "canary-model")
            failed = run_cli(None)
            succeeded = run_cli(None)
        assert [failed.result["status"], succeeded.result["status"]] == ["failed", "compacted"]
        assert all(r.headers["authorization"] == f"Bearer {CANARY}" for r in server.requests)
        assert failed.leaks(CANARY) == [] and succeeded.leaks(CANARY) == []

    def test_a_reply_that_echoes_the_key_does_not_carry_it_anywhere(self, run_cli: Any) -> None:
        echo = SNAPSHOT.replace("run the tests again", f"the proxy saw Authorization: Bearer {CANARY}")
        with ScriptedServer([echo]) as server:
            artefacts = run_cli(server, "--api-key", CANARY)
        assert artefacts.result["status"] == "compacted"
        assert artefacts.leaks(CANARY) == []

    @pytest.mark.parametrize("script", [UNAUTHORIZED, SERVER_ERROR[:1]], ids=["401", "500"])
    def test_the_backends_exception_and_its_whole_chain_hold_no_key(self, script: list[Any]) -> None:
        with ScriptedServer(script) as server:
            backend = OpenAICompatibleBackend(
                ModelClientConfig(api_base=server.url, api_key=SecretStr(CANARY), timeout=5),
                ModelRequestConfig(model="canary-model"),
            )
            with pytest.raises(BackendError) as caught:
                import asyncio

                asyncio.run(backend.complete([Message(role="user", content="hi")], []))
        assert server.requests[0].headers["authorization"] == f"Bearer {CANARY}"
        error = caught.value
        text = "".join(traceback.format_exception(error)) + repr(error) + repr(error.args) + repr(vars(error))
        assert "[redacted]" in str(error)  # the server's echo was there, and was scrubbed
        assert CANARY not in text
        assert error.__cause__ is None and error.__context__ is None  # nothing holding the request survives

    @pytest.mark.parametrize(
        ("where", "tail"),
        [
            ("flag", "\r"),
            ("flag", "\t"),
            ("flag", "\n"),
            ("flag", "\x00"),
            ("environment", "\r"),
            ("environment", "\t"),
        ],
        ids=["flag-CR", "flag-tab", "flag-LF", "flag-NUL", "environment-CR", "environment-tab"],
    )  # an environment cannot hold a NUL
    def test_a_key_with_a_control_character_is_refused_and_never_sent(
        self, run_cli: Any, where: str, tail: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # A Windows .env leaves "\r" at the end of API_KEY; the HTTP library would reject the header with
        # an error quoting the key, control character escaped. It must not get that far.
        with ScriptedServer(SUCCESS) as server:
            if where == "environment":
                monkeypatch.setenv("API_KEY", CANARY + tail)
                artefacts = run_cli(server)
            else:
                artefacts = run_cli(server, "--api-key", CANARY + tail)
        assert artefacts.code == 2 and server.calls == 0
        (line,) = artefacts.stderr.strip().splitlines()
        assert "API" in line and "not sent" in line
        assert artefacts.leaks(CANARY) == [] and artefacts.leaks(CANARY + tail) == []
        assert not (artefacts.root / "dumps").exists() and not (artefacts.root / "out").exists()


# -- finding secrets in text ---------------------------------------------------------------------------

SECRETS = [
    ("openai_key", "export OPENAI_API_KEY=sk-proj-Abc123def456ghi789jkl012mno345", "sk-proj-Abc123def456ghi789jkl012mno345"),
    ("anthropic_key", "key: sk-ant-api03-ZyXwVuTsRqPoNmLkJiHgFeDcBa98765", "sk-ant-api03-ZyXwVuTsRqPoNmLkJiHgFeDcBa98765"),
    ("aws_access_key", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("github_token", "git clone https://ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/x/y",
     "ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
    ("slack_token", "SLACK=xoxb-2048-4096-AbCdEfGhIjKlMnOp", "xoxb-2048-4096-AbCdEfGhIjKlMnOp"),
    ("google_api_key", "maps key AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    ("bearer_token", "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig' url",
     "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"),
    ("url_credentials", "DATABASE_URL=postgres://app:Tr0ub4dor3@db.internal:5432/app", "Tr0ub4dor3"),
    ("assignment", "DB_PASSWORD=correct-horse-battery", "correct-horse-battery"),
    ("assignment", '{"api_key": "c0ffee-1234-abcd-5678"}', "c0ffee-1234-abcd-5678"),
    ("assignment", "password: 'hunter22'", "hunter22"),
    ("assignment", "client_secret = 9f8e7d6c5b4a", "9f8e7d6c5b4a"),
    ("private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
     "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"),
    ("private_key", "cut off: -----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAx", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAx"),
]  # fmt: skip

NOT_SECRETS = [
    "skip the task-list; sk-short is not a key",
    "max_tokens=4000, total_tokens: 1234, prompt_tokens=12",
    "password: ******",
    "api_key = os.environ['API_KEY']",
    "api_key = settings.OPENAI_API_KEY",
    "token: <your-token-here>",
    "password=${DB_PASSWORD}",
    "The secret: [redacted]",
    "cat /etc/passwd: No such file or directory",
    "Bearer token authentication is described in RFC 6750",
    "AKIA is the prefix of AWS access keys",
    "The summary mentions the API key was set in .env and omitted.",
]


class TestFindSecrets:
    @pytest.mark.parametrize(
        ("kind", "text", "secret"), SECRETS, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(SECRETS)]
    )
    def test_each_kind_is_found_where_it_is_with_a_masked_preview(
        self, kind: str, text: str, secret: str
    ) -> None:
        (finding,) = find_secrets(text)
        assert finding.kind == kind and finding.label
        assert text[finding.start : finding.end] == secret
        assert secret not in finding.preview and ELLIPSIS in finding.preview
        if kind == "private_key":
            assert finding.preview == secret.split("\n", 1)[0] + ELLIPSIS
        elif kind == "assignment":
            assert finding.preview.endswith("=" + mask(secret))
        else:
            assert finding.preview == mask(secret)
        assert json.loads(json.dumps(finding.to_dict()))["kind"] == kind

    @pytest.mark.parametrize("text", NOT_SECRETS)
    def test_ordinary_text_placeholders_and_references_are_not_flagged(self, text: str) -> None:
        assert find_secrets(text) == []

    def test_a_key_inside_a_bearer_header_is_reported_once_as_the_more_specific_kind(self) -> None:
        findings = find_secrets(f"Authorization: Bearer {CANARY}")
        assert [f.kind for f in findings] == ["openai_key"]

    def test_a_key_assigned_to_a_name_is_reported_once(self) -> None:
        findings = find_secrets(f'"api_key": "{CANARY}"')
        assert [f.kind for f in findings] == ["openai_key"]

    def test_several_secrets_come_back_in_text_order(self) -> None:
        text = f"first AKIAIOSFODNN7EXAMPLE then {CANARY} then password=opensesame"
        assert [f.kind for f in find_secrets(text)] == ["aws_access_key", "openai_key", "assignment"]

    def test_a_private_key_preview_shows_only_its_begin_line(self) -> None:
        (finding,) = find_secrets(
            "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg\n-----END EC PRIVATE KEY-----"
        )
        assert finding.preview == "-----BEGIN EC PRIVATE KEY-----" + ELLIPSIS

    @pytest.mark.parametrize("secret", ["abcd", "abcdefghi", "abcdefghij", "a" * 19, "sk-" + "x" * 40])
    def test_mask_never_returns_the_secret_and_hides_short_ones_entirely(self, secret: str) -> None:
        masked = mask(secret)
        assert secret not in masked
        revealed = len(masked) - len(ELLIPSIS)
        assert revealed <= 6 and (revealed == 0 if len(secret) < 10 else revealed < len(secret) // 3 + 1)

    def test_messages_are_scanned_in_text_and_tool_call_arguments(self) -> None:
        messages = [
            Message(role="user", content="deploy it"),
            Message.model_validate({
                "role": "assistant", "content": "",
                "tool_calls": [{"id": "c1", "name": "bash", "arguments": json.dumps({"command": f"curl -u x:{CANARY}"})}],
            }),
            Message(role="tool", tool_call_id="c1", content=[{"type": "text", "text": "token: 7d1f0c2a9b8e"}]),
        ]  # fmt: skip
        found = find_secrets_in_messages(messages)
        assert [(index, finding.kind) for index, finding in found] == [(1, "openai_key"), (2, "assignment")]
        assert all(isinstance(finding, Finding) for _, finding in found)

    def test_the_offline_summary_of_a_run_with_secrets_is_clean(self) -> None:
        # The offline backend redacts; find_secrets is the check the dashboard runs on any summary.
        from compressor.backends.offline import build_reply

        messages = [Message(role="user", content=f"use key {CANARY} and DB_PASSWORD=correct-horse-battery")]
        assert find_secrets(build_reply(messages, [])) == []
