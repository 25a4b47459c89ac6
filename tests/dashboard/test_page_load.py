"""The Load page: uploads, zips, bundled samples and files under the roots, each with its result."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import layout
from dashboard.state import keys
from tests.compressor.formats.test_opencode import STORAGE
from tests.conftest import TRANSCRIPTS
from tests.dashboard.conftest import APP, SAMPLES, demo_conversation, no_exception, texts, unescaped
from tests.dashboard.test_run_marker import MARKER

GOOD = {"messages": [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}]}
SCRIPT = "<script>alert('x')</script> **not bold** 中文"


@pytest.fixture
def load(app: AppTest) -> AppTest:
    return app.switch_page("views/load.py").run()


def upload(at: AppTest, *files: tuple[str, bytes]) -> AppTest:
    at.file_uploader(key=keys.W_UPLOAD).set_value(
        [(name, data, "application/octet-stream") for name, data in files]
    )
    return at.run()


def conversation_labels(at: AppTest) -> list[str]:
    """The sidebar picker's entries, as shown."""
    return list(at.selectbox(key=keys.W_CONVERSATION).options)


class TestOpening:
    def test_shows_the_demo_as_the_current_conversation(self, load: AppTest) -> None:
        no_exception(load)
        assert load.title[0].value == "Load conversations"
        assert "Current conversation: demo-conversation.json (format: openjiuwen)" in texts(load)
        table = load.dataframe[0].value
        assert table["conversation"].tolist() == ["demo-conversation.json"]
        assert table["messages"].tolist() == [len(demo_conversation().messages)]
        assert table["origin"].tolist() == ["bundled sample"]  # where it came from in words, never "sample"


class TestUpload:
    def test_an_uploaded_transcript_becomes_the_current_conversation(self, load: AppTest) -> None:
        sample = SAMPLES / "claude-code-session.jsonl"
        upload(load, (sample.name, sample.read_bytes()))
        no_exception(load)
        assert any(
            "claude-code-session.jsonl: 1 conversation, format claude-code" in unescaped(s.value)
            for s in load.success
        )
        assert load.selectbox(key=keys.W_CONVERSATION).value == "upload:claude-code-session.jsonl#0"
        load.switch_page("views/span.py").run()
        no_exception(load)
        assert "claude-code-session.jsonl" in texts(load)

    def test_a_bad_file_gets_its_error_and_the_good_one_still_loads(self, load: AppTest) -> None:
        upload(load, ("good.json", json.dumps(GOOD).encode()), ("bad.json", b'{"messages": 3}'))
        no_exception(load)
        errors = [unescaped(e.value) for e in load.error]
        assert len(errors) == 1 and errors[0].startswith("bad.json: ")
        assert conversation_labels(load) == ["demo-conversation.json", "good.json"]
        assert load.selectbox(key=keys.W_CONVERSATION).value == "upload:good.json#0"

    def test_a_file_with_several_conversations_offers_each(self, load: AppTest) -> None:
        sample = SAMPLES / "openai-chat-tau-bench-airline-5.json"
        upload(load, (sample.name, sample.read_bytes()))
        no_exception(load)
        labels = conversation_labels(load)[1:]
        assert labels == [f"openai-chat-tau-bench-airline-5 #{n} (task {n}, trial 0)" for n in range(5)]
        assert (
            load.selectbox(key=keys.W_CONVERSATION).value == "upload:openai-chat-tau-bench-airline-5.json#0"
        )
        load.selectbox(key=keys.W_CONVERSATION).set_value(
            "upload:openai-chat-tau-bench-airline-5.json#3"
        ).run()
        load.switch_page("views/span.py").run()
        no_exception(load)
        assert "format traj-records" in texts(load)

    def test_a_zip_loads_every_member(self, load: AppTest) -> None:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("a.json", json.dumps(GOOD))
            archive.writestr("nested/b.traj", (SAMPLES / "swe-agent-function-calling.traj").read_bytes())
        upload(load, ("runs.zip", buffer.getvalue()))
        no_exception(load)
        assert conversation_labels(load)[1:] == ["a.json", "b.traj"]

    def test_content_is_shown_as_written_never_as_html(self, load: AppTest) -> None:
        doc = {"messages": [{"role": "user", "content": SCRIPT}, {"role": "assistant", "content": "ok"}]}
        upload(load, ("<b>x</b>.json", json.dumps(doc, ensure_ascii=False).encode()))
        no_exception(load)
        load.switch_page("views/span.py").run()
        no_exception(load)
        load.number_input(key=keys.page_widget("span", "message")).set_value(0).run()
        assert SCRIPT in [c.value for c in load.code]
        # the HTML elements are the page's own layout rule and its run numbers, never content
        bodies = [element.proto.body.strip() for element in load.get("html")]
        assert bodies[0] == (layout.STYLE + layout.SCRIPT).strip()
        assert bodies[1:] and all(MARKER.fullmatch(body) for body in bodies[1:])
        assert all("<script>" not in m.value for m in load.markdown)


class TestSamplesAndServerFiles:
    def test_a_bundled_sample_opens(self, load: AppTest) -> None:
        load.selectbox(key=keys.W_SAMPLE).set_value("swe-agent-function-calling.traj").run()
        load.button(key=keys.page_widget("load", "open_sample")).click().run()
        no_exception(load)
        assert load.selectbox(key=keys.W_CONVERSATION).value == "sample:swe-agent-function-calling.traj#0"

    def test_files_under_a_root_load_and_escaping_links_are_not_offered(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        root, outside = tmp_path / "root", tmp_path / "outside"
        root.mkdir()
        outside.mkdir()
        (root / "run.json").write_text(json.dumps(GOOD))
        (outside / "secret.json").write_text(json.dumps(GOOD))
        (root / "link.json").symlink_to(outside / "secret.json")
        monkeypatch.setenv("COMPACTION_LAB_ROOTS", str(root))
        at = AppTest.from_file(str(APP), default_timeout=30).run()
        at.switch_page("views/load.py").run()
        entries = at.selectbox(key=keys.browse_widget("load", "entry:0:"))
        assert list(entries.options) == [f"📄 run.json · {(root / 'run.json').stat().st_size} B"]
        at.button(key=keys.page_widget("load", "open_file")).click().run()
        no_exception(at)
        assert at.selectbox(key=keys.W_CONVERSATION).value == "root:run.json#0"

    def test_a_folder_can_be_opened_for_dump_review(self, load: AppTest) -> None:
        load.button(key=keys.page_widget("load", "review")).click().run()
        no_exception(load)
        assert load.title[0].value == "Dump review"


class TestSessionPicker:
    def test_a_session_file_and_a_store_folder_are_offered(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        home = tmp_path / "home"
        project = home / ".claude" / "projects" / "p"
        project.mkdir(parents=True)
        shutil.copy(TRANSCRIPTS / "claude-code-session.jsonl", project / "s.jsonl")
        shutil.copytree(STORAGE, home / ".local" / "share" / "opencode" / "storage")
        for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("COMPACTION_LAB_ROOTS", str(home))
        at = AppTest.from_file(str(APP), default_timeout=30).run()
        at.switch_page("views/load.py").run()
        no_exception(at)
        offered = list(at.selectbox(key=keys.page_widget("load", "session")).options)
        assert len(offered) == 2 and {o.split(" · ")[0] for o in offered} == {"claude-code", "opencode"}
        at.selectbox(key=keys.page_widget("load", "session")).set_value(
            next(n for n, o in enumerate(offered) if "s.jsonl" in o)
        ).run()
        at.button(key=keys.page_widget("load", "open_session")).click().run()
        no_exception(at)
        assert "s.jsonl" in at.selectbox(key=keys.W_CONVERSATION).value
