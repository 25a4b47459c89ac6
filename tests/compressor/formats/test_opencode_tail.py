"""OpenCode compactions that keep the newest turns (``tail_start_id``): from the summary on, the window OpenCode sends.

The fixture ``opencode_tail/storage`` (README beside ``opencode/``) is one session built from anomalyco/opencode:
``packages/opencode/src/session/message-v2.ts`` at 007a9409bafea06d6b9084ff1f6d1fe9f5e3a803 (``CompactionPart``
with ``tail_start_id``; ``filterCompacted`` walking back past a finished summary's request to ``tail_start_id``),
the reorder of PR #25851 (request, summary, kept tail, what follows; read in forks' message-v2.ts carrying it) and
``compaction.ts``'s ``select`` (the id of the first kept message, a turn's user message). A request, a reply; a
second request and its reply (the kept tail); the compaction request naming the second request, its summary,
OpenCode's synthetic "Continue…", a reply.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from compressor.census import count_messages, describe_reading
from compressor.formats import load_conversations
from compressor.messages import Conversation, Message
from compressor.quality import recorded_sites
from tests.compressor.formats.test_opencode import STORAGE, migrate
from tests.conftest import FIXTURES, fixture

TAIL = FIXTURES / "formats" / "opencode_tail" / "storage"
SESSION = "ses_3b9d20c4e1ffT7kLm2Qw8xVn4R"
REQUEST = "msg_c2e005e2f7001Tk4wPz8RmQs6Yv"  # the compaction request
KEPT_FROM = "msg_c2e003e2f7001Tk4wPz8RmQs6Yv"  # its tail_start_id


def _read(storage: Path) -> Conversation:
    (conversation,) = load_conversations(storage)
    return conversation


def _kept_by(message: Message) -> Any:
    return (message.metadata or {}).get("kept_by_compaction")


def _ids(messages: list[Message]) -> list[Any]:
    return [(message.model_extra or {}).get("id") for message in messages]


def _edited(tmp_path: Path, message: str, change: dict[str, Any], *, part: str | None = None) -> Path:
    """A copy of the fixture with one message's info (or one of its parts) changed."""
    storage = shutil.copytree(fixture(TAIL), tmp_path / "storage")
    path = (
        storage / "part" / message / f"{part}.json"
        if part
        else storage / "message" / SESSION / f"{message}.json"
    )
    path.write_text(json.dumps({**json.loads(path.read_text()), **change}))
    return storage


class TestAKeptTail:
    run = _read(fixture(TAIL))

    def test_after_the_summary_the_kept_tail_is_sent_again_then_what_follows(self) -> None:
        (compaction,) = self.run.recorded_compactions
        after = list(self.run.messages[compaction.index :])
        assert [m.role for m in after] == [
            "assistant",
            "user",
            "assistant",
            "tool",
            "assistant",
            "user",
            "assistant",
        ]
        assert after[0].text.startswith("## Goal")
        assert after[1].text == "Now print the dates in the report as ISO 8601."
        assert [_kept_by(m) for m in after] == [None, *[REQUEST] * 4, None, None]
        assert after[5].internal and after[5].text.startswith("Continue if you have next steps")

    def test_the_copies_are_the_messages_from_tail_start_id_to_the_request(self) -> None:
        (compaction,) = self.run.recorded_compactions
        start = _ids(list(self.run.messages)).index(KEPT_FROM)
        request = compaction.index - 1
        assert self.run.messages[request].text == "What did we do so far?"
        originals = list(self.run.messages[start:request])
        copies = [m for m in self.run.messages if _kept_by(m)]
        assert [(m.role, m.text) for m in copies] == [(m.role, m.text) for m in originals]

    def test_the_history_before_the_summary_is_read_as_it_was(self) -> None:
        (compaction,) = self.run.recorded_compactions
        before = list(self.run.messages[: compaction.index])
        assert not any(_kept_by(m) for m in before)
        assert [m.reported_total_tokens for m in before if m.role == "assistant"] == [
            18860,
            19290,
            19360,
            20750,
            20865,
        ]
        assert compaction.tokens_before == 20865

    def test_the_kept_replies_are_no_calls_again(self) -> None:
        copies = [m for m in self.run.messages if _kept_by(m) and m.role == "assistant"]
        assert [m.usage_metadata for m in copies] == [None, None]
        assert copies[0].call_ids == ("toolu_01Gp5nVt9Hs",)
        counts = count_messages(self.run)
        assert (counts.unmatched_tool_calls, counts.unmatched_tool_results) == (0, 0)

    def test_the_kept_request_stays_the_persons(self) -> None:
        copy = next(m for m in self.run.messages if _kept_by(m) and m.role == "user")
        assert copy.is_real_user

    def test_the_reading_says_how_many_were_read_again(self) -> None:
        (reading,) = [r for r in self.run.readings if r.code == "kept_messages_read_again"]
        assert reading.count == 4
        assert describe_reading(reading).startswith("4 messages compactions kept are read again")

    def test_what_it_kept_counts_as_kept_when_its_summary_is_scored(self) -> None:
        (site,) = recorded_sites(self.run)
        assert [m.role for m in site.kept] == ["user", "assistant", "tool", "assistant"]
        assert all(_kept_by(m) == REQUEST for m in site.kept)

    def test_opencode_db_reads_the_same(self, tmp_path: Path) -> None:
        database = _read(migrate(fixture(TAIL), tmp_path / "opencode.db"))
        assert [(m.role, m.text, _kept_by(m)) for m in database.messages] == [
            (m.role, m.text, _kept_by(m)) for m in self.run.messages
        ]


class TestNothingKept:
    def test_a_compaction_without_tail_start_id_keeps_nothing(self) -> None:
        (session, _) = load_conversations(fixture(STORAGE))
        assert session.recorded_compactions
        assert not any(_kept_by(m) for m in session.messages)
        assert not any(r.code == "kept_messages_read_again" for r in session.readings)

    def test_a_summary_that_did_not_finish_keeps_nothing(self, tmp_path: Path) -> None:
        run = _read(_edited(tmp_path, "msg_c2e006e2f7001Tk4wPz8RmQs6Yv", {"finish": None}))
        assert run.recorded_compactions and not any(_kept_by(m) for m in run.messages)

    def test_a_tail_start_id_not_in_the_session_keeps_nothing(self, tmp_path: Path) -> None:
        storage = _edited(
            tmp_path,
            REQUEST,
            {"tail_start_id": "msg_c2e099e2f7001Tk4wPz8RmQs6Yv"},
            part="prt_c2e005e2f7000Tk4wPz8RmQs6Y",
        )
        run = _read(storage)
        assert run.recorded_compactions and not any(_kept_by(m) for m in run.messages)
