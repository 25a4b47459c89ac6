"""The dashboard's security promises, checked through the running app (AppTest) where they show on a page.

Secrets in messages and summaries are flagged by kind and masked preview, never shown in full by the flag; an
API key typed on the Live compaction page stays in the session; the server is local-only; uploads are bounded;
a 2,000-dump folder is paged and read once. Path confinement itself is specified in test_roots.py.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.runtime.media_file_storage import MediaFileKind
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from compressor.dumps import build_dump_record, write_dump
from compressor.messages import Message
from compressor.prompt import SNAPSHOT_SECTIONS
from compressor.secrets import find_secrets
from dashboard import roots
from dashboard.i18n import EN, ZH
from dashboard.settings import QUERY_KEYS
from dashboard.sources import MAX_TOTAL_BYTES, MAX_ZIP_MEMBERS, parse_upload
from dashboard.state import dumps as dump_state
from dashboard.state import keys, scratch
from tests.dashboard.conftest import APP, APP_TIMEOUT, no_exception, texts, unescaped
from tests.support.openai_server import ScriptedServer

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / ".streamlit" / "config.toml"

AWS_KEY = "AKIAQWERTYUIOPASDFGH"
OPENAI_KEY = "sk-live-0123456789abcdefghijXYZ"
BEARER = "abcdefghijklmnop123456"
GITHUB_TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0" * 2
TYPED_KEY = "sk-typed-canary-9f8e7d6c5b4a3210"

SECRET_CONVERSATION = {
    "messages": [
        {"role": "system", "content": f"Deploy with the access key {AWS_KEY} when asked."},
        {"role": "user", "content": f"My key is {OPENAI_KEY}; the client still fails, please fix it."},
        {
            "role": "assistant",
            "content": "Let me call the endpoint.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "name": "bash",
                    "arguments": json.dumps({"command": f"curl -H 'Authorization: Bearer {BEARER}' api"}),
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "401 unauthorized"},
        {"role": "user", "content": "Thanks, go on."},
    ]
}
SECRETS = (AWS_KEY, OPENAI_KEY, BEARER)

SECTIONS = SNAPSHOT_SECTIONS


def snapshot(extra_fact: str = "nothing else") -> str:
    """A model reply in the shape the compaction prompt asks for; section 7 carries ``extra_fact``."""
    body = "\n".join(
        f"### {number}. {title}\n{extra_fact if number == 7 else 'noted'}"
        for number, title in enumerate(SECTIONS, start=1)
    )
    return f"<coverage_check>all covered</coverage_check>\n<state_snapshot>\n{body}\n</state_snapshot>"


def upload(at: AppTest, name: str, document: dict[str, Any]) -> AppTest:
    at.switch_page("views/load.py").run()
    data = json.dumps(document).encode()
    at.file_uploader(key=keys.W_UPLOAD).set_value([(name, data, "application/json")])
    return at.run()


FLAG_LINE = re.compile(r"^(system message \d+|message #\d+|summary|系统消息 \d+|消息 #\d+|摘要)( · |：)")


def flag_lines(at: AppTest) -> list[str]:
    """The lines listed under secret warnings: where, kind and masked preview."""
    return [line for element in at.text for line in str(element.value).splitlines() if FLAG_LINE.match(line)]


def warnings(at: AppTest) -> list[str]:
    return [unescaped(str(element.value)) for element in at.warning]


def choose_openai(at: AppTest, url: str, key: str = TYPED_KEY) -> AppTest:
    at.radio(key=keys.W_BACKEND).set_value("openai").run()
    at.text_input(key=keys.W_BASE_URL).input(url)
    at.text_input(key=keys.W_MODEL_NAME).input("scripted-model")
    at.text_input(key=keys.W_API_KEY).input(key)
    return at.run()


def run_compaction(at: AppTest) -> AppTest:
    return at.button(key=keys.page_widget("compact", "run")).click().run()


class TestSecretsInMessages:
    def test_each_secret_is_flagged_by_kind_and_masked_preview(self, app: AppTest) -> None:
        upload(app, "leaky.json", SECRET_CONVERSATION).switch_page("views/span.py").run()
        no_exception(app)
        assert any(
            text.startswith("3 possible secrets in this conversation's messages") for text in warnings(app)
        )
        assert flag_lines(app) == [
            "system message 1 · AWS access key id · AKIA…GH",
            "message #0 · OpenAI-style API key · sk-l…YZ",
            "message #1 · bearer token · abcd…56",
        ]

    def test_the_flag_never_shows_a_secret_in_full(self, app: AppTest) -> None:
        upload(app, "leaky.json", SECRET_CONVERSATION).switch_page("views/span.py").run()
        flagged = "\n".join([*warnings(app), *flag_lines(app)])
        assert "AWS access key id" in flagged  # the flag is there ...
        assert [secret for secret in SECRETS if secret in flagged] == []  # ... and holds no secret

    def test_the_flag_reads_in_chinese(self, app: AppTest) -> None:
        upload(app, "leaky.json", SECRET_CONVERSATION).switch_page("views/span.py").run()
        app.radio(key=keys.W_LANG).set_value("zh").run()
        no_exception(app)
        assert any(text.startswith("此会话的消息中有 3 处疑似密钥") for text in warnings(app))
        assert "系统消息 1：AWS 访问密钥 ID（AKIA…GH）" in flag_lines(app)

    def test_a_conversation_without_secrets_raises_no_flag(self, app: AppTest) -> None:
        no_exception(app)
        assert not any("secret" in text for text in warnings(app))
        assert flag_lines(app) == []

    def test_the_messages_are_searched_once_not_on_every_settings_change(self, app: AppTest) -> None:
        upload(app, "leaky.json", SECRET_CONVERSATION).switch_page("views/span.py").run()
        key = app.session_state[keys.W_CONVERSATION]
        searched = app.session_state[keys.K_SECRETS][key]
        for ratio in (0.5, 0.9):
            app.slider(key=keys.W_TRIGGER).set_value(ratio).run()
        assert app.session_state[keys.K_SECRETS][key] is searched
        assert len(flag_lines(app)) == 3


KIND_EXAMPLES: dict[str, str] = {
    "private_key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----",
    "anthropic_key": "sk-ant-" + "a1" * 15,
    "openai_key": OPENAI_KEY,
    "aws_access_key": AWS_KEY,
    "github_token": GITHUB_TOKEN,
    "slack_token": "xoxb-" + "12345" * 4,
    "google_api_key": "AIza" + "b2" * 18,
    "url_credentials": "https://deploy:hunter2pass@example.com/x",
    "bearer_token": f"Authorization: Bearer {BEARER}",
    "assignment": 'password = "correct-horse-battery"',
}


class TestSecretKinds:
    @pytest.mark.parametrize("kind", sorted(KIND_EXAMPLES))
    def test_every_kind_has_words_in_both_languages(self, kind: str) -> None:
        assert [finding.kind for finding in find_secrets(KIND_EXAMPLES[kind])] == [kind]
        assert EN[f"secrets.kind.{kind}"] and ZH[f"secrets.kind.{kind}"]
        assert EN[f"secrets.kind.{kind}"] != ZH[f"secrets.kind.{kind}"]


class TestSecretsInSummaries:
    def test_a_summary_carrying_a_secret_is_flagged(self, app: AppTest) -> None:
        app.switch_page("views/compact.py").run()
        reply = snapshot(f"The deploy token is {GITHUB_TOKEN}.")
        with ScriptedServer([reply]) as server:
            choose_openai(app, server.url)
            run_compaction(app)
        no_exception(app)
        assert any(text.startswith("The summary holds 1 possible secret,") for text in warnings(app))
        assert flag_lines(app) == ["summary · GitHub token · ghp_…q0"]
        assert GITHUB_TOKEN not in "\n".join([*warnings(app), *flag_lines(app)])

    def test_a_clean_summary_is_not_flagged(self, app: AppTest) -> None:
        app.switch_page("views/compact.py").run()
        run_compaction(app)  # the offline backend
        no_exception(app)
        assert any(element.value.startswith("Compacted") for element in app.success)
        assert not any("possible secret" in text for text in warnings(app))


def session_files() -> list[Path]:
    """Every file in this process's session folders (``dashboard.state.scratch``)."""
    servers = Path(tempfile.gettempdir()).glob(f"{scratch.SERVER_PREFIX}{os.getpid()}-*")
    return [path for server in servers for path in server.rglob("*") if path.is_file()]


def elements(block: Any) -> Iterator[Any]:
    """Every node of a rendered tree (blocks and elements), depth first."""
    yield block
    for child in getattr(block, "children", {}).values():
        yield from elements(child)


def rendered_except_the_key_field(at: AppTest) -> str:
    """Everything the app sent to the browser (every element's message), except the password field itself."""
    nodes = [*elements(at.main), *elements(at.sidebar)]
    field = at.text_input(key=keys.W_API_KEY)
    return "\n".join(str(node.proto) for node in nodes if node is not field and node.proto is not None)


def download_ids(at: AppTest) -> list[str]:
    """The media-file ids behind the download buttons (an id is a hash of the bytes, mimetype and file name)."""
    return [Path(str(button.proto.url)).stem for button in at.get("download_button")]


def media_id(data: bytes, file_name: str) -> str:
    return MemoryMediaFileStorage("/media").load_and_get_id(
        data, "application/json", MediaFileKind.DOWNLOADABLE, file_name
    )


class TestTypedApiKey:
    """The key typed in the password field reaches the endpoint and nothing else."""

    def live(self, app: AppTest, responses: list[Any]) -> tuple[AppTest, ScriptedServer]:
        app.switch_page("views/compact.py").run()
        with ScriptedServer(responses) as server:
            choose_openai(app, server.url)
            run_compaction(app)
        no_exception(app)
        return app, server

    def offered_downloads(self, at: AppTest) -> dict[str, bytes]:
        """Media id → bytes for what the page can offer: the compacted conversation and this session's dumps."""
        signature, result = at.session_state[keys.K_LIVE_RESULT]
        del signature
        name = result.conversation.name or "conversation"
        conversation = json.dumps(result.conversation.to_openjiuwen(), ensure_ascii=False, indent=2).encode()
        offered = {
            media_id(conversation, f"{name}-compacted.json"): conversation,
            media_id(b"", "dump.json"): b"",
        }
        for path in session_files():  # the session's own folders: its live dumps, its uploads
            if path.is_file():
                offered[media_id(path.read_bytes(), path.name)] = path.read_bytes()
        return offered

    def assert_key_stays_in_the_session(self, at: AppTest) -> None:
        assert at.session_state[keys.W_API_KEY] == TYPED_KEY  # it was typed ...
        assert set(at.query_params) <= set(QUERY_KEYS)  # ... and never reaches the URL,
        assert TYPED_KEY not in json.dumps(at.query_params)
        assert TYPED_KEY not in texts(at)  # the page's text,
        assert TYPED_KEY not in rendered_except_the_key_field(at)  # any element sent to the browser,
        offered = self.offered_downloads(at)
        ids = download_ids(at)
        assert len(ids) == 2 and set(ids) <= set(offered)  # (we know the bytes behind both downloads)
        assert [data for data in offered.values() if TYPED_KEY.encode() in data] == []  # or a download/dump

    def test_a_successful_run(self, app: AppTest) -> None:
        at, server = self.live(app, [snapshot()])
        assert any(element.value.startswith("Compacted") for element in at.success)
        assert server.requests[0].headers["authorization"] == f"Bearer {TYPED_KEY}"
        self.assert_key_stays_in_the_session(at)

    def test_an_endpoint_that_echoes_the_key_in_its_error(self, app: AppTest) -> None:
        echo = {"raise": f"Incorrect API key provided: {TYPED_KEY}.", "status_code": 401}
        at, server = self.live(app, [echo])
        assert server.requests, "the endpoint was called"
        assert any("refused the credentials" in unescaped(element.value) for element in at.error)
        self.assert_key_stays_in_the_session(at)


class TestLocalOnly:
    def test_the_project_config_binds_to_loopback(self) -> None:
        config = tomllib.loads(CONFIG.read_text())
        assert config["server"]["address"] == "127.0.0.1"
        assert config["browser"]["gatherUsageStats"] is False

    def test_streamlit_resolves_the_project_config_to_loopback(self, tmp_path: Path) -> None:
        """What `make dashboard` (plain `streamlit run` in the project) ends up with, user config aside."""
        env = {**os.environ, "HOME": str(tmp_path)}
        shown = subprocess.run(
            [sys.executable, "-m", "streamlit", "config", "show"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
        assert 'address = "127.0.0.1"' in shown.splitlines()
        assert "maxUploadSize = 200" in shown.splitlines()

    def test_make_dashboard_runs_from_the_project_without_overriding_the_address(self) -> None:
        makefile = (REPO / "Makefile").read_text()
        recipe = makefile.split("\ndashboard:", 1)[1].split("\n\n", 1)[0]
        assert "compaction-lab dashboard --port $(PORT)" in recipe  # launch.py: the project's config.toml
        assert "server.address" not in recipe


class TestUploadLimits:
    def test_the_server_limit_and_the_zip_limit_agree(self) -> None:
        config = tomllib.loads(CONFIG.read_text())
        assert config["server"]["maxUploadSize"] * 1024 * 1024 == MAX_TOTAL_BYTES

    def test_the_uploaders_carry_the_configured_limit(self, app: AppTest) -> None:
        app.switch_page("views/load.py").run()
        (uploader,) = app.get("file_uploader")
        assert uploader.proto.max_upload_size_mb == 200

    def test_a_zip_with_too_many_members_is_refused_whole(self) -> None:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for number in range(MAX_ZIP_MEMBERS + 1):
                archive.writestr(f"m{number}.json", "{}")
        (outcome,) = parse_upload("many.zip", buffer.getvalue())
        assert (
            outcome.error
            == f"many.zip: holds {MAX_ZIP_MEMBERS + 1} files, more than the {MAX_ZIP_MEMBERS} allowed"
        )

    def test_a_member_lying_about_its_size_is_refused_and_the_rest_load(self) -> None:
        good = json.dumps(
            {
                "messages": [
                    {"role": "user", "content": "hello " * 2000},
                    {"role": "assistant", "content": "hi"},
                ]
            }
        ).encode()
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("liar.json", good)
            archive.writestr("honest.json", good)
        data = bytearray(buffer.getvalue())
        declared = (100).to_bytes(4, "little")
        local, central = data.find(b"PK\x03\x04"), data.find(b"PK\x01\x02")  # both headers of liar.json
        data[local + 22 : local + 26] = declared
        data[central + 24 : central + 28] = declared
        outcomes = {outcome.file: outcome for outcome in parse_upload("runs.zip", bytes(data))}
        assert outcomes["runs.zip/honest.json"].ok
        error = outcomes["runs.zip/liar.json"].error
        assert error is not None and error.startswith("runs.zip/liar.json: ")


DUMPS = 2000


@pytest.fixture(scope="module")
def dump_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2,000 small dumps written by our own writer, one second apart."""
    folder = tmp_path_factory.mktemp("many-dumps")
    for number in range(DUMPS):
        write_dump(folder, generated_dump(number))
    return folder


def generated_dump(number: int) -> dict[str, Any]:
    messages = [
        Message(role="user", content="fix the failing test"),
        Message(role="assistant", content="done"),
    ]
    return build_dump_record(
        session_id="bulk",
        context_id=f"run{number:04d}",
        context_max=16_000,
        tokens_before=12_000 + number,
        target_tokens=9_000,
        span_counts=(1, 10, 2),
        prompt="compact",
        system_messages_count=0,
        tools=[],
        messages_sent_to_model=messages,
        raw_content="<state_snapshot>noted</state_snapshot>",
        extracted_summary="noted",
        usage=None,
        context_after=messages,
        tokens_after=3_000,
        timestamp=1_796_020_000.0 + number,
    )


def open_dump_review(root: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv(roots.ROOTS_ENV, str(root))
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()
    return at.switch_page("views/dumps.py").run()


def count_caption(at: AppTest) -> str:
    return next(str(c.value) for c in at.caption if " shown, in " in str(c.value))


class TestTwoThousandDumps:
    def test_the_table_is_paged_newest_first(
        self, dump_folder: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        at = open_dump_review(dump_folder, monkeypatch)
        no_exception(at)
        assert count_caption(at) == "2,000 of 2,000 dumps shown, in 1 folder"
        assert at.number_input(key=keys.page_widget("dumps", "page")).max == 40
        first_page = at.dataframe[0].value["context"].tolist()
        assert first_page == [f"run{number:04d}" for number in range(1999, 1949, -1)]

    def test_the_index_is_cached_and_follows_new_files(
        self, dump_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        root = tmp_path / "root"
        shutil.copytree(dump_folder, root)  # files at new paths: the index of them starts cold
        cache = dump_state.dump_index_cache()
        before = cache.files_read
        at = open_dump_review(root, monkeypatch)
        assert cache.files_read - before == DUMPS  # the first run reads every file once
        read = cache.files_read
        at.run()
        at.number_input(key=keys.page_widget("dumps", "page")).set_value(2).run()
        assert cache.files_read == read  # reruns and paging read nothing again
        write_dump(root, generated_dump(DUMPS))
        at.run()
        assert count_caption(at) == f"{DUMPS + 1:,} of {DUMPS + 1:,} dumps shown, in 1 folder"
        assert cache.files_read == read + 1  # only the new file is read
