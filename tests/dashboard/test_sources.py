"""Uploads and zips become conversations or one-line errors, one per file, and a bad file never stops the rest."""

from __future__ import annotations

import io
import json
import warnings
import zipfile
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from compressor.messages import Message
from dashboard import sources
from dashboard.i18n.catalog import translate
from dashboard.sources import (
    MAX_MESSAGE_CHARS,
    conversation_chars,
    expand_zip,
    loaded_items,
    message_chars,
    parse_upload,
    parse_uploads,
    safe_file_name,
    within_session_budget,
)
from dashboard.state import keys
from tests.conftest import FIXTURES
from tests.dashboard.conftest import DEMO, OPENJIUWEN_DUMPS, SAMPLES, demo_conversation, unescaped

GOOD = json.dumps(
    {"messages": [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}]}
).encode()


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


class TestOneFile:
    def test_a_good_file_gives_its_conversations_and_format(self) -> None:
        (outcome,) = parse_upload("demo-conversation.json", DEMO.read_bytes())
        assert outcome.ok
        (conversation,) = outcome.conversations
        assert conversation.source_format == "openjiuwen"
        raw = json.loads(DEMO.read_bytes())["messages"]
        assert [m.role for m in conversation.system] == ["system"] == [raw[0]["role"]]
        assert len(conversation.messages) == len(raw) - 1
        assert conversation.messages == demo_conversation().messages

    def test_a_bad_file_gives_one_line_naming_it(self) -> None:
        (outcome,) = parse_upload("broken.json", b'{"messages": [{"role": "wizard"}]')
        assert not outcome.ok and outcome.conversations == ()
        assert outcome.error is not None
        assert outcome.error.startswith("broken.json: ")
        assert "\n" not in outcome.error

    def test_an_oversized_file_is_refused_before_parsing(self) -> None:
        (outcome,) = parse_upload("big.json", GOOD, max_total_bytes=10)
        assert outcome.error == "big.json: is over the 0.0 MB limit"


class TestManyFiles:
    def test_each_file_gets_its_own_outcome(self) -> None:
        outcomes = parse_uploads([("a.json", GOOD), ("b.json", b"not json"), ("c.json", GOOD)])
        assert [(o.file, o.ok) for o in outcomes] == [("a.json", True), ("b.json", False), ("c.json", True)]

    def test_two_uploads_of_one_name_are_kept_apart(self) -> None:
        first, second = (json.dumps([{"role": "user", "content": text}]).encode() for text in ("one", "two"))
        items = loaded_items("upload", parse_uploads([("run.json", first), ("run.json", second)]))
        assert [(item.label, item.conversation.messages[0].content) for item in items] == [
            ("run.json", "one"),
            ("run.json (2)", "two"),
        ]
        assert len({item.key for item in items}) == 2

    def test_files_past_the_total_limit_are_refused(self) -> None:
        outcomes = parse_uploads([("a.json", GOOD), ("b.json", GOOD)], max_total_bytes=len(GOOD) + 1)
        assert outcomes[0].ok
        assert outcomes[1].error is not None and "over the" in outcomes[1].error


class TestZip:
    def test_members_load_and_fail_independently(self) -> None:
        archive = zipped(
            {"runs/a.json": GOOD, "runs/bad.json": b"[1, 2]", "notes.txt": b"x", "__MACOSX/._a.json": b""}
        )
        outcomes = parse_upload("runs.zip", archive)
        by_file = {o.file: o for o in outcomes}
        assert set(by_file) == {"runs.zip/runs/a.json", "runs.zip/runs/bad.json", "runs.zip/notes.txt"}
        assert by_file["runs.zip/runs/a.json"].ok
        assert by_file["runs.zip/runs/bad.json"].error is not None
        assert by_file["runs.zip/runs/bad.json"].error.startswith("runs.zip/runs/bad.json: ")
        assert (
            by_file["runs.zip/notes.txt"].error
            == "runs.zip/notes.txt: skipped, not a .json, .jsonl, .ndjson, .traj, .parquet, .db, .sqlite, .sqlite3,"
            " .vscdb file (.json, .jsonl, .ndjson, .traj compressed too: .zst, .gz)"
        )

    def test_a_parquet_member_and_upload_load(self) -> None:
        """Rows of runs kept as Parquet (a Hub dataset's file) load from a zip and as an upload alike."""
        data = (FIXTURES / "formats" / "parquet" / "swe-smith-trajectories.parquet").read_bytes()
        assert "parquet" in sources.UPLOAD_TYPES
        (member,) = parse_upload("runs.zip", zipped({"train-00000-of-00001.parquet": data}))
        (upload,) = parse_upload("train.parquet", data)
        assert member.ok and upload.ok
        assert [len(c.messages) for c in member.conversations] == [
            len(c.messages) for c in upload.conversations
        ]
        assert [len(c.messages) for c in upload.conversations] == [4, 2]

    @pytest.mark.parametrize("language", ["en", "zh"])
    def test_the_uploader_help_names_parquet(self, language: str) -> None:
        assert ".parquet" in translate(language, "load.upload_help")

    def test_a_path_held_twice_is_reported_and_the_first_kept(self) -> None:
        archive = io.BytesIO()
        with warnings.catch_warnings(), zipfile.ZipFile(archive, "w") as handle:
            warnings.simplefilter("ignore")  # zipfile warns of the duplicate it is told to write
            for content in ("first", "second"):
                handle.writestr("runs/a.json", json.dumps([{"role": "user", "content": content}]))
        outcomes = parse_upload("x.zip", archive.getvalue())
        assert [(o.file, o.error) for o in outcomes] == [
            ("x.zip/runs/a.json", "x.zip/runs/a.json: a second member with this path; the first one is kept"),
            ("x.zip/runs/a.json", None),
        ]
        (item,) = loaded_items("upload", outcomes)
        assert item.conversation.messages[0].content == "first"

    def test_declared_sizes_over_the_limit_refuse_the_whole_archive(self) -> None:
        archive = zipped({"a.json": GOOD, "b.json": GOOD})
        members, errors = expand_zip("runs.zip", archive, max_total_bytes=len(GOOD) + 5)
        assert members == []
        assert len(errors) == 1 and errors[0].startswith("runs.zip: unpacks to")

    def test_a_broken_archive_is_one_error(self) -> None:
        (outcome,) = parse_upload("runs.zip", b"PK\x03\x04 not really a zip")
        assert outcome.error is not None and outcome.error.startswith(
            "runs.zip: is not a readable zip archive"
        )

    def test_an_empty_archive_says_so(self) -> None:
        (outcome,) = parse_upload("empty.zip", zipped({}))
        assert outcome.error == "empty.zip: the archive holds no conversation files"


class TestLoadedItems:
    def test_a_single_conversation_is_labelled_by_its_file(self) -> None:
        items = loaded_items("upload", parse_upload("demo-conversation.json", DEMO.read_bytes()))
        assert [(i.key, i.label, i.origin, i.source_format) for i in items] == [
            ("upload:demo-conversation.json#0", "demo-conversation.json", "upload", "openjiuwen")
        ]

    def test_several_conversations_in_one_file_each_get_an_item(self) -> None:
        path = SAMPLES / "openai-chat-tau-bench-airline-5.json"
        items = loaded_items("sample", parse_upload(path.name, path.read_bytes()))
        assert len(items) == 5
        assert len({i.key for i in items}) == 5
        assert all(i.label.startswith("openai-chat-tau-bench-airline-5 #") for i in items)

    def test_failed_files_give_no_items(self) -> None:
        assert loaded_items("upload", parse_upload("x.json", b"{}")) == []


class TestBoundedWork:
    def test_a_message_over_the_cap_refuses_its_file_before_any_token_is_counted(self) -> None:
        huge = json.dumps(
            {
                "messages": [
                    {"role": "user", "content": "x" * (MAX_MESSAGE_CHARS + 1)},
                    {"role": "assistant", "content": "ok"},
                ]
            }
        ).encode()
        (outcome,) = parse_upload("big.json", huge)
        assert not outcome.ok and outcome.conversations == ()
        assert outcome.error is not None and outcome.error.startswith("big.json: message #0 holds ")
        assert f"{MAX_MESSAGE_CHARS:,}" in outcome.error

    def test_images_do_not_count_against_the_cap(self) -> None:
        image = {
            "type": "image_url",
            "image_url": {"url": "data:image/png;base64," + "A" * (MAX_MESSAGE_CHARS + 10)},
        }
        message = Message(role="user", content=[{"type": "text", "text": "see"}, image])
        assert message_chars(message) == 3

    def test_a_zip_that_inflates_past_the_limit_is_refused_whole(self) -> None:
        archive = zipped({"a.json": b" " * 4096})
        (outcome,) = parse_upload("many.zip", archive, max_total_bytes=1024)
        assert outcome.error is not None
        assert outcome.error.startswith("many.zip: unpacks to ") and outcome.error.endswith(" limit")


class TestSessionBudget:
    def test_files_past_the_sessions_budget_are_refused_in_order(self) -> None:
        outcomes = parse_uploads([(f"{n}.json", json.dumps([{"role": "user", "content": "x" * 100}]).encode())
                                  for n in range(4)])  # fmt: skip
        kept = within_session_budget(outcomes, held_chars=50, limit=300)
        assert [outcome.ok for outcome in kept] == [True, True, False, False]
        assert kept[2].error == (
            "2.json: refused, this session would hold 350 characters of conversations, over the 300 one session "
            "may hold; clear the loaded conversations first"
        )

    def test_the_load_page_refuses_past_the_budget_and_takes_files_again_once_cleared(
        self, app: AppTest, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(sources, "MAX_SESSION_CHARS", conversation_chars(demo_conversation()) + 150)
        app.switch_page("views/load.py").run()
        big = json.dumps([{"role": "user", "content": "y" * 200}]).encode()
        app.file_uploader(key=keys.W_UPLOAD).set_value(("big.json", big, "application/json")).run()
        assert [unescaped(e.value) for e in app.error] == [
            next(o.error for o in within_session_budget(parse_uploads([("big.json", big)]),
                                                        conversation_chars(demo_conversation())) if o.error)
        ]  # fmt: skip
        assert all(item.file != "big.json" for item in app.session_state[keys.K_ITEMS].values())
        app.button(key=keys.page_widget("load", "clear")).click().run()
        app.file_uploader(key=keys.W_UPLOAD).set_value(("again.json", big, "application/json")).run()
        assert not app.error and [item.file for item in app.session_state[keys.K_ITEMS].values()] == [
            "again.json"
        ]


class TestFileNames:
    def test_safe_file_name_keeps_only_the_last_plain_part(self) -> None:
        assert safe_file_name("..\\..\\evil name?.json") == "evil-name-.json"
        assert safe_file_name("a/b/.hidden.json") == "hidden.json"
        assert safe_file_name("///") == "upload.json"


class TestDumps:
    def test_a_dumps_conversation_is_its_context_before(self) -> None:
        from compressor.dumps import read_dump
        from dashboard.sources import dump_conversation

        record = read_dump(next((OPENJIUWEN_DUMPS / "compact015").glob("*.json")))
        conversation = dump_conversation(record)
        assert conversation.messages == list(record.before)
        assert conversation.system == list(record.system_messages)
        assert (conversation.name, conversation.source_format) == (record.context_id, "dump")

    def test_a_dumps_bytes_or_nothing_to_offer(self, tmp_path: Path) -> None:
        from dashboard.sources import dump_bytes

        (tmp_path / "d.json").write_bytes(b"{}")
        assert dump_bytes(str(tmp_path / "d.json")) == b"{}"
        assert dump_bytes(str(tmp_path / "missing.json")) is None
        assert dump_bytes(None) is None
