"""Following a running agent: a session file still being written and a dump folder still being filled show what
lands, and what was already read is neither read again into new objects nor tokenised again."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from compressor.messages import Conversation
from compressor.tokens import TokenCounter, get_counter
from dashboard.state import follow, keys
from tests.dashboard.conftest import APP, APP_TIMEOUT, OPENJIUWEN_DUMPS, no_exception, texts

KEY = "root:session.jsonl#0"


def line(role: str, content: str) -> str:
    return json.dumps({"role": role, "content": content}) + "\n"


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "root"
    root.mkdir()
    path = root / "session.jsonl"
    path.write_text(line("user", "fix the failing test") + line("assistant", "Looking at it."))
    monkeypatch.setenv("COMPACTION_LAB_ROOTS", str(root))
    return path


def open_followed(page: str) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()
    at.switch_page("views/load.py").run()
    at.button(key=keys.page_widget("load", "open_file")).click().run()
    at.switch_page(page).run()
    at.toggle(key=keys.page_widget(page.split("/")[-1].removesuffix(".py"), "follow")).set_value(True).run()
    no_exception(at)
    return at


def grow(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # a new version, even within one tick


def held(at: AppTest) -> Conversation:
    conversation: Conversation = at.session_state[keys.K_ITEMS][KEY].conversation
    return conversation


class TestSessionFile:
    def test_appended_messages_show_and_the_read_ones_are_kept(
        self, session: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        at = open_followed("views/span.py")
        before = held(at)
        assert len(before.messages) == 2
        old_messages = list(before.messages)
        assert all(message._tokens for message in old_messages)  # counted once when the page showed them
        grow(session, line("user", "and the lint too") + line("assistant", "Running ruff."))
        counter = type(get_counter("cl100k_base"))
        tokenised: list[str] = []
        original = counter.tok_many

        def recording(self: TokenCounter, texts: Sequence[str]) -> list[int]:
            tokenised.extend(texts)
            return original(self, texts)

        monkeypatch.setattr(counter, "tok_many", recording)
        at.run()
        no_exception(at)
        after = held(at)
        assert len(after.messages) == 4
        assert list(after.messages[:2]) == old_messages
        assert [m._tokens for m in after.messages[:2]] == [m._tokens for m in old_messages]
        # only what was appended is tokenised again
        assert any("and the lint too" in text for text in tokenised)
        assert not any(m.text in text for m in old_messages for text in tokenised)
        assert "Following: 4 messages read" in texts(at)

    def test_a_torn_last_line_waits_for_the_next_poll(self, session: Path) -> None:
        at = open_followed("views/span.py")
        grow(session, '{"role": "user", "content": "half a li')
        at.run()
        no_exception(at)
        assert len(held(at).messages) == 2
        grow(session, 'ne"}\n')
        at.run()
        assert len(held(at).messages) == 3

    def test_tune_follows_the_file_too(self, session: Path) -> None:
        at = open_followed("views/tune.py")
        calls = next(
            c.value for c in at.caption if " calls · summaries" in c.value or " call · summaries" in c.value
        )
        assert calls.startswith("1 call")
        grow(session, line("user", "go on") + line("assistant", "Done."))
        at.run()
        no_exception(at)
        assert any(c.value.startswith("2 calls · summaries") for c in at.caption)

    @pytest.mark.parametrize("swap", ["link-outside", "link-climbing-out", "fifo"])
    def test_a_file_swapped_for_a_link_out_or_a_fifo_is_not_read(self, session: Path, swap: str) -> None:
        outside = session.parent.parent / "outside.jsonl"
        outside.write_text(
            line("user", "fix the failing test")
            + line("assistant", "Looking at it.")
            + line("user", "SECRET-OUTSIDE")
        )
        at = open_followed("views/span.py")
        session.unlink()
        if swap == "fifo":
            os.mkfifo(session)
        else:
            session.symlink_to(outside if swap == "link-outside" else Path("..") / outside.name)
        at.run()  # the poll sees a new signature: it must neither follow the link nor wait on the FIFO
        no_exception(at)
        assert [m.content for m in held(at).messages] == ["fix the failing test", "Looking at it."]

    def test_an_upload_offers_no_follow(self, session: Path) -> None:
        at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()
        assert not [t for t in at.toggle if t.key == keys.page_widget("span", "follow")]


class TestDumpFolder:
    def test_new_dumps_show_as_they_land(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        root = tmp_path / "root"
        shutil.copytree(OPENJIUWEN_DUMPS / "compact000", root / "compact000")
        monkeypatch.setenv("COMPACTION_LAB_ROOTS", str(root))
        at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()
        at.switch_page("views/dumps.py").run()
        at.toggle(key=keys.page_widget("dumps", "follow")).set_value(True).run()
        assert "1 of 1 dump shown, in 1 folder" in [c.value for c in at.caption]
        shutil.copytree(OPENJIUWEN_DUMPS / "compact015", root / "compact015")
        at.run()
        no_exception(at)
        assert "2 of 2 dumps shown, in 2 folders" in [c.value for c in at.caption]
        assert "Following: 2 dumps here" in texts(at)


class TestFingerprint:
    def test_it_changes_when_a_dump_or_a_log_lands_and_not_for_our_temp_files(self, tmp_path: Path) -> None:
        first = follow.folder_fingerprint(tmp_path)
        (tmp_path / ".x.json.tmp").write_text("partial")
        assert follow.folder_fingerprint(tmp_path) == first
        (tmp_path / "s1").mkdir()
        (tmp_path / "s1" / "CurrentRoundCompressor.jsonl").write_text("{}\n")
        second = follow.folder_fingerprint(tmp_path)
        assert second != first and [name for name, _, _ in second] == ["s1/CurrentRoundCompressor.jsonl"]

    def test_a_fifo_named_like_a_dump_is_never_opened(self, tmp_path: Path) -> None:
        os.mkfifo(tmp_path / "stuck.json")
        assert follow.folder_fingerprint(tmp_path) == ()  # stat only: no read, so no hang
