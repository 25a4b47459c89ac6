"""Dumps and the debug log (SPEC §13): openJiuwen's names and keys, atomic unique writes, reading and indexing."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from compressor.dumps import (
    DUMP_DIR_ENV,
    EXTENSION_KEY,
    OPENJIUWEN_KEYS,
    DumpIndexCache,
    DumpWriteError,
    LabExtension,
    benefit_of,
    build_dump_record,
    dump_file_name,
    index_dumps,
    read_dump,
    resolve_dump_dir,
    write_dump,
)
from compressor.dumps.debuglog import (
    DEBUG_DIR_ENV,
    DebugLog,
    read_debug_log,
    resolve_debug_dir,
    span_built_fields,
    span_entries,
)
from compressor.errors import DumpFormatError
from compressor.messages import Message, ToolDef
from compressor.reinjection import build_reinjection
from compressor.spans import Span
from compressor.trigger import Decision
from tests.conftest import OPENJIUWEN_DUMPS as SAMPLES
from tests.support.privileges import unprivileged

SAMPLE_DIRS = ("compact000", "compact001", "compact015")
CANARY = "sk-canary-0123456789abcdef"


def sample_dump(name: str) -> Path:
    found = sorted((SAMPLES / name).glob("*.json"))
    assert len(found) == 1, f"expected one dump in {SAMPLES / name}"
    return found[0]


def sample_log(name: str) -> list[dict[str, Any]]:
    return read_debug_log(SAMPLES / name / "CurrentRoundCompressor.jsonl")


def tiny_conversation() -> tuple[list[Message], list[Message], Message]:
    """(system, context, prompt) of a small run: the user asks, the agent reads a file, then answers."""
    system = [Message(role="system", content="You are a careful agent.")]
    context = [
        Message(role="user", content="Fix the failing test in tests/test_main.py"),
        Message.model_validate(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "c1", "name": "read_file", "arguments": '{"file_path": "tests/test_main.py"}'}
                ],
            }
        ),
        Message(role="tool", tool_call_id="c1", content="def test_x():\n    assert 1 == 2\n"),
        Message(role="assistant", content="The assertion is wrong; I will fix it."),
        Message(role="assistant", content="Running the tests now."),
    ]
    prompt = Message(role="user", content="Summarise the work so far.")
    return system, context, prompt


def our_record(
    *, timestamp: float = 1_800_000_000.123, marker: str = "", with_extension: bool = True
) -> dict[str, Any]:
    """A record the way the compactor builds one: prefix 1, compress 3, tail 1."""
    system, context, prompt = tiny_conversation()
    memory = Message(
        role="user",
        content="<memory_block_current>\n<summary>\nread the test\n</summary>\n</memory_block_current>",
    )
    after = [context[0], memory, context[4]]
    extension = LabExtension(
        backend="offline (extractive)",
        counter="cl100k_base",
        original_messages=context,
        attempts=2,
        calls=({"messages": 6, "outcome": "rate_limit"}, {"messages": 6, "outcome": "ok"}),
        timings={"model_seconds": 0.01, "total_seconds": 0.02},
        reinjection=None,
    )
    return build_dump_record(
        session_id="session one",
        context_id="ctx/1",
        context_max=2000,
        tokens_before=120,
        target_tokens=80,
        span_counts=(1, 3, 1),
        prompt=prompt.text + marker,
        system_messages_count=len(system),
        tools=[ToolDef(name="read_file", description="Read a file", parameters={"type": "object"})],
        messages_sent_to_model=[*system, *context[:4], prompt],
        raw_content="<state_snapshot>read the test</state_snapshot>",
        extracted_summary="read the test",
        usage=None,
        context_after=after,
        tokens_after=70,
        timestamp=timestamp,
        extension=extension if with_extension else None,
    )


class TestFileNames:
    def test_the_samples_are_named_this_way(self) -> None:
        name = dump_file_name(1796020259789, "CurrentRoundCompressor", "default_session_id")
        assert name == sample_dump("compact000").name

    def test_unsafe_characters_become_dashes_and_edges_are_trimmed(self) -> None:
        assert dump_file_name(5, "Current Round", "/my session:é/") == "5_Current-Round_my-session.json"

    def test_each_part_is_at_most_80_characters(self) -> None:
        name = dump_file_name(7, "P" * 200, "s" * 200)
        assert name == f"7_{'P' * 80}_{'s' * 80}.json"

    def test_an_empty_part_is_unknown(self) -> None:
        assert dump_file_name(1, "", "///") == "1_unknown_unknown.json"


class TestDumpDirectory:
    def test_the_config_value_wins_over_the_environment(self) -> None:
        env = {DUMP_DIR_ENV: "/from/env"}
        assert resolve_dump_dir("/from/config", session_id="s", context_id="c", env=env) == Path(
            "/from/config"
        )

    def test_the_environment_is_used_when_the_config_is_empty(self) -> None:
        env = {DUMP_DIR_ENV: "/dumps/{session_id}/{context_id}"}
        got = resolve_dump_dir(None, session_id="my session", context_id="c:1", env=env)
        assert got == Path("/dumps/my-session/c-1")

    def test_no_directory_when_neither_is_set(self) -> None:
        assert resolve_dump_dir(None, session_id="s", context_id="c", env={}) is None
        assert resolve_dump_dir("", session_id="s", context_id="c", env={}) is None

    def test_other_braces_are_left_alone(self) -> None:
        got = resolve_dump_dir("/d/{other}/{session_id}", session_id="s", context_id="c", env={})
        assert got == Path("/d/{other}/s")


class TestBuildingARecord:
    def test_openjiuwens_keys_in_its_order_plus_one_extension_key(self) -> None:
        assert list(our_record()) == [*OPENJIUWEN_KEYS, EXTENSION_KEY]
        assert list(our_record(with_extension=False)) == list(OPENJIUWEN_KEYS)

    @pytest.mark.parametrize("name", SAMPLE_DIRS)
    def test_nested_keys_match_openjiuwens_own_dumps(self, name: str) -> None:
        theirs = json.loads(sample_dump(name).read_text(encoding="utf-8"))
        ours = our_record()
        for key in OPENJIUWEN_KEYS:
            if isinstance(theirs[key], dict):
                assert list(ours[key]) == list(theirs[key]), key

    def test_messages_are_serialised_the_openjiuwen_way(self) -> None:
        sent = our_record()["compression_request"]["messages_sent_to_model"]
        call = sent[2]["tool_calls"][0]
        assert call == {
            "id": "c1",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"file_path": "tests/test_main.py"}'},
        }

    def test_counts_come_from_what_was_sent(self) -> None:
        request = our_record()["compression_request"]
        assert request["system_messages_count"] == 1 and request["tools_count"] == 1
        assert request["exclude_recent_messages"] == 1  # the tail, as openJiuwen records it
        assert request["tools"] == [
            {"name": "read_file", "description": "Read a file", "parameters": {"type": "object"}}
        ]

    def test_benefit_rounds_to_four_decimals_and_never_goes_negative(self) -> None:
        assert benefit_of(3, 1) == {
            "tokens_before": 3,
            "tokens_after": 1,
            "reduction": 2,
            "reduction_ratio": 0.6667,
        }
        assert benefit_of(10, 12)["reduction"] == 0
        assert benefit_of(0, 0)["reduction_ratio"] == 0.0

    def test_the_extension_holds_the_run(self) -> None:
        extension = our_record()[EXTENSION_KEY]
        assert list(extension) == [
            "version",
            "backend",
            "original_messages",
            "attempts",
            "calls",
            "timings",
            "reinjection",
            "counter",
        ]
        assert extension["attempts"] == 2 and len(extension["original_messages"]) == 5

    def test_a_reinjection_is_recorded_without_repeating_its_message(self) -> None:
        _, context, _ = tiny_conversation()
        reinjection = build_reinjection(context, [context[0]])
        assert reinjection is not None
        extension = LabExtension(
            backend="offline (extractive)",
            counter="cl100k_base",
            original_messages=context,
            attempts=1,
            reinjection=reinjection,
        ).to_dict()
        assert extension["reinjection"]["files"][0]["path"] == "tests/test_main.py"
        assert "message" not in extension["reinjection"]


class TestWriting:
    def test_writes_the_record_under_its_timestamps_name(self, tmp_path: Path) -> None:
        path = write_dump(tmp_path / "new" / "dir", our_record(timestamp=1_800_000_000.1239))
        assert path.name == "1800000000123_CurrentRoundCompressor_session-one.json"
        assert json.loads(path.read_text(encoding="utf-8")) == our_record(timestamp=1_800_000_000.1239)

    def test_non_ascii_is_written_as_is(self, tmp_path: Path) -> None:
        record = our_record(marker=" 上下文 ✓")
        text = write_dump(tmp_path, record).read_text(encoding="utf-8")
        assert "上下文 ✓" in text and '\n  "processor_type"' in text  # indented like openJiuwen's

    def test_two_dumps_in_the_same_millisecond_both_survive(self, tmp_path: Path) -> None:
        first = write_dump(tmp_path, our_record(marker=" first"))
        second = write_dump(tmp_path, our_record(marker=" second"))
        assert first != second and second.name == first.name.replace(".json", "_1.json")
        assert "first" in first.read_text(encoding="utf-8")
        assert "second" in second.read_text(encoding="utf-8")

    def test_an_existing_file_is_never_replaced(self, tmp_path: Path) -> None:
        taken = tmp_path / dump_file_name(1_800_000_000_123, "CurrentRoundCompressor", "session one")
        taken.write_text("someone else's file", encoding="utf-8")
        path = write_dump(tmp_path, our_record())
        assert taken.read_text(encoding="utf-8") == "someone else's file"
        assert path.name.endswith("_1.json")

    def test_eight_concurrent_writers_leave_eight_complete_files(self, tmp_path: Path) -> None:
        barrier = threading.Barrier(8)
        paths: list[Path] = []
        errors: list[BaseException] = []

        def writer(n: int) -> None:
            try:
                record = our_record(marker=f" writer-{n}")
                barrier.wait()
                paths.append(write_dump(tmp_path, record))
            except BaseException as exc:  # collected and asserted below
                errors.append(exc)

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert len(set(paths)) == 8
        files = sorted(p for p in tmp_path.iterdir())
        assert files == sorted(paths)  # no temp file left behind
        prompts = {json.loads(p.read_text(encoding="utf-8"))["compression_request"]["prompt"] for p in files}
        assert {prompt.rsplit(" ", 1)[1] for prompt in prompts} == {f"writer-{n}" for n in range(8)}

    def test_a_read_only_directory_raises_an_oserror_and_leaves_nothing(self, shared_tmp: Path) -> None:
        target = shared_tmp / "readonly"
        target.mkdir()
        target.chmod(0o555)
        with unprivileged(), pytest.raises(OSError) as caught:
            write_dump(target, our_record())
        assert isinstance(caught.value, DumpWriteError) and str(target) in str(caught.value)
        assert list(target.iterdir()) == []

    def test_a_file_where_the_directory_should_be_raises(self, tmp_path: Path) -> None:
        blocker = tmp_path / "dumps"
        blocker.write_text("not a directory", encoding="utf-8")
        with pytest.raises(OSError):
            write_dump(blocker / "inner", our_record())
        assert sorted(tmp_path.iterdir()) == [blocker]

    def test_a_record_holding_a_secret_is_refused_without_repeating_it(self, tmp_path: Path) -> None:
        record = our_record(marker=f" key={CANARY}")
        with pytest.raises(DumpWriteError) as caught:
            write_dump(tmp_path, record, secrets=("", CANARY))
        assert CANARY not in str(caught.value)
        assert list(tmp_path.iterdir()) == []

    def test_a_json_escaped_secret_is_found_too(self, tmp_path: Path) -> None:
        secret = 'pa"ss\\word'
        with pytest.raises(DumpWriteError):
            write_dump(tmp_path, our_record(marker=secret), secrets=(secret,))

    def test_a_record_that_is_not_json_raises(self, tmp_path: Path) -> None:
        with pytest.raises(DumpWriteError):
            write_dump(tmp_path, {"timestamp": 1.0, "bad": object()})
        assert list(tmp_path.iterdir()) == []


class TestReadingOpenJiuwensDumps:
    @pytest.mark.parametrize("name", SAMPLE_DIRS)
    def test_before_and_after_are_rebuilt(self, name: str) -> None:
        raw = json.loads(sample_dump(name).read_text(encoding="utf-8"))
        dump = read_dump(sample_dump(name))
        span = raw["span"]
        assert len(dump.before) == (
            span["preserved_prefix_count"] + span["messages_to_compress_count"] + span["protected_tail_count"]
        )
        assert len(dump.after) == len(raw["context_after"]["messages"])
        # the prefix and the tail are the same messages before and after
        assert dump.before[: dump.prefix_count] == dump.after[: dump.prefix_count]
        if dump.tail_count:
            assert dump.before[-dump.tail_count :] == dump.after[-dump.tail_count :]

    @pytest.mark.parametrize(
        ("name", "has_reinjection", "retries"),
        [("compact000", False, 0), ("compact001", True, 0), ("compact015", True, 1)],
    )
    def test_memory_reinjection_and_retries(self, name: str, has_reinjection: bool, retries: int) -> None:
        dump = read_dump(sample_dump(name))
        assert dump.memory_message is not None and dump.memory_message.text.startswith(
            "<memory_block_current>"
        )
        assert (dump.reinjection_message is not None) == has_reinjection
        assert dump.retries == retries
        assert dump.backend is None and dump.summary.source == "openjiuwen"

    @pytest.mark.parametrize("name", SAMPLE_DIRS)
    def test_the_debug_records_of_the_run_are_attached(self, name: str) -> None:
        dump = read_dump(sample_dump(name))
        log = sample_log(name)
        assert [r["event"] for r in dump.debug_records] == [r["event"] for r in log]
        assert all(r["timestamp"] <= dump.timestamp for r in dump.debug_records)

    def test_the_fields_and_the_row(self) -> None:
        dump = read_dump(sample_dump("compact000"))
        assert (dump.session_id, dump.context_id, dump.processor_type) == (
            "default_session_id",
            "compact000",
            "CurrentRoundCompressor",
        )
        assert (dump.tokens_before, dump.tokens_after, dump.reduction, dump.reduction_ratio) == (
            4687,
            3921,
            766,
            0.1634,
        )
        row = dump.summary_row()
        assert set(row) >= {
            "path", "timestamp", "session_id", "context_id", "processor_type", "tokens_before", "tokens_after",
            "reduction", "reduction_ratio", "target_tokens", "context_max", "prefix_count", "compress_count",
            "tail_count", "retries", "backend",
        }  # fmt: skip
        assert (row["prefix_count"], row["compress_count"], row["tail_count"]) == (2, 2, 7)
        json.dumps(dump.to_dict())

    def test_a_broken_file_raises_one_line_naming_it(self, tmp_path: Path) -> None:
        path = tmp_path / "half.json"
        path.write_text(sample_dump("compact000").read_text(encoding="utf-8")[:500], encoding="utf-8")
        with pytest.raises(DumpFormatError) as caught:
            read_dump(path)
        assert str(path) in str(caught.value) and "\n" not in str(caught.value)

    def test_a_wrong_shape_names_the_field(self, tmp_path: Path) -> None:
        data = json.loads(sample_dump("compact000").read_text(encoding="utf-8"))
        data["span"]["protected_tail_count"] = "many"
        path = tmp_path / "shape.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        with pytest.raises(DumpFormatError, match=r"span\.protected_tail_count"):
            read_dump(path)


class TestRoundTrip:
    def test_our_dump_reads_back_with_the_original_messages(self, tmp_path: Path) -> None:
        _, context, _ = tiny_conversation()
        dump = read_dump(write_dump(tmp_path, our_record()))
        assert list(dump.before) == context
        assert dump.after[1].text.startswith("<memory_block_current>")
        assert dump.memory_message == dump.after[1] and dump.reinjection_message is None
        assert dump.backend == "offline (extractive)" and dump.summary.source == "compaction-lab"
        assert dump.retries == 1  # two attempts
        assert (dump.session_id, dump.context_id) == ("session one", "ctx/1")
        assert dump.tools == (
            ToolDef(name="read_file", description="Read a file", parameters={"type": "object"}),
        )

    def test_without_our_extension_before_is_rebuilt_like_openjiuwens(self, tmp_path: Path) -> None:
        _, context, _ = tiny_conversation()
        dump = read_dump(write_dump(tmp_path, our_record(with_extension=False)))
        assert list(dump.before) == context
        assert dump.retries is None  # no extension and no debug log

    def test_our_dumps_load_alongside_openjiuwens(self, tmp_path: Path) -> None:
        for name in SAMPLE_DIRS:
            shutil.copy(sample_dump(name), tmp_path)
        write_dump(tmp_path, our_record())
        index = index_dumps(tmp_path, cache=DumpIndexCache())
        assert index.broken == [] and len(index.dumps) == 4
        assert {row["source"] for row in index.dumps} == {"openjiuwen", "compaction-lab"}


class TestIndex:
    @pytest.fixture
    def mixed_dir(self, tmp_path: Path) -> Path:
        for name in SAMPLE_DIRS:
            shutil.copytree(SAMPLES / name, tmp_path / name)
            for copied in [tmp_path / name, *(tmp_path / name).iterdir()]:
                copied.chmod(0o755 if copied.is_dir() else 0o644)
        text = sample_dump("compact000").read_text(encoding="utf-8")
        (tmp_path / "empty.json").write_text("", encoding="utf-8")
        (tmp_path / "half-written.json").write_text(text[: len(text) // 2], encoding="utf-8")
        (tmp_path / "corrupt.json").write_bytes(b"\x00\xff{not json")
        (tmp_path / "a-list.json").write_text("[1, 2, 3]", encoding="utf-8")
        missing = json.loads(text)
        del missing["context_after"]
        (tmp_path / "missing-key.json").write_text(json.dumps(missing), encoding="utf-8")
        # skipped, not broken: a debug log, our temp file, a non-JSON file
        (tmp_path / "CurrentRoundCompressor.jsonl").write_text("{}\n", encoding="utf-8")
        (tmp_path / ".dump-abc123.tmp").write_text("{", encoding="utf-8")
        (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
        return tmp_path

    def test_each_row_says_how_long_its_compaction_took_from_its_log(self, mixed_dir: Path) -> None:
        index = index_dumps(mixed_dir, cache=DumpIndexCache())
        for row in index.dumps:
            name = Path(row["path"]).parent.name
            opened = sample_log(name)[0]["timestamp"]  # the window's threshold_check
            assert row["seconds"] == pytest.approx(row["timestamp"] - opened, abs=1e-9)
            assert read_dump(row["path"]).summary.seconds == row["seconds"]  # the same figure in detail
        took = {Path(row["path"]).parent.name: row["seconds"] for row in index.dumps}
        assert 0.05 < took["compact015"] < 0.1  # 0.05 s of it the backoff its log records

    def test_a_dump_without_a_log_beside_it_has_no_time(self, tmp_path: Path) -> None:
        shutil.copy(sample_dump("compact000"), tmp_path / "alone.json")
        (row,) = index_dumps(tmp_path, cache=DumpIndexCache()).dumps
        assert row["seconds"] is None and row["retries"] is None
        assert read_dump(tmp_path / "alone.json").summary.seconds is None

    def test_readable_dumps_are_rows_and_the_rest_is_broken(self, mixed_dir: Path) -> None:
        index = index_dumps(mixed_dir, cache=DumpIndexCache())
        assert [Path(row["path"]).parent.name for row in index.dumps] == list(SAMPLE_DIRS)  # by timestamp
        assert sorted(Path(item["path"]).name for item in index.broken) == [
            "a-list.json",
            "corrupt.json",
            "empty.json",
            "half-written.json",
            "missing-key.json",
        ]
        errors = {Path(item["path"]).name: item["error"] for item in index.broken}
        assert "empty" in errors["empty.json"] and "context_after" in errors["missing-key.json"]
        assert all("\n" not in error for error in errors.values())

    def test_rows_equal_what_read_dump_reports(self, mixed_dir: Path) -> None:
        index = index_dumps(mixed_dir, cache=DumpIndexCache())
        for row in index.dumps:
            assert row == read_dump(row["path"]).summary_row()
        assert [row["retries"] for row in index.dumps] == [0, 0, 1]

    def test_not_recursive_sees_only_the_top_level(self, mixed_dir: Path) -> None:
        index = index_dumps(mixed_dir, recursive=False, cache=DumpIndexCache())
        assert index.dumps == [] and len(index.broken) == 5

    def test_a_missing_directory_is_reported_not_raised(self, tmp_path: Path) -> None:
        index = index_dumps(tmp_path / "nope", cache=DumpIndexCache())
        assert index.dumps == [] and index.broken[0]["path"] == str(tmp_path / "nope")

    def test_to_dict_shape(self, mixed_dir: Path) -> None:
        data = json.loads(json.dumps(index_dumps(mixed_dir, cache=DumpIndexCache()).to_dict()))
        assert set(data) == {"dumps", "broken"}
        assert set(data["broken"][0]) == {"path", "error"}

    def test_a_warm_reindex_of_two_thousand_dumps_reads_nothing_again(self, tmp_path: Path) -> None:
        text = json.dumps(our_record(with_extension=False))
        for n in range(2000):
            (tmp_path / f"{1_800_000_000_000 + n}_CurrentRoundCompressor_s.json").write_text(
                text, encoding="utf-8"
            )
        cache = DumpIndexCache()
        cold = index_dumps(tmp_path, cache=cache)
        assert len(cold.dumps) == 2000 and cache.files_read == 2000
        warm = index_dumps(tmp_path, cache=cache)
        assert warm == cold and cache.files_read == 2000
        changed = tmp_path / f"{1_800_000_000_000}_CurrentRoundCompressor_s.json"
        changed.write_text(text.replace('"session one"', '"session two"'), encoding="utf-8")
        again = index_dumps(tmp_path, cache=cache)
        assert cache.files_read == 2001
        assert sum(row["session_id"] == "session two" for row in again.dumps) == 1


class TestDebugLog:
    def test_a_record_is_one_json_line_with_the_common_fields_first(self, tmp_path: Path) -> None:
        log = DebugLog(tmp_path / "debug", session_id="s1", context_id="c1")
        assert log.record("compression_retry", attempt=1, retried=True)
        lines = (tmp_path / "debug" / "CurrentRoundCompressor.jsonl").read_text(encoding="utf-8").splitlines()
        record = json.loads(lines[0])
        assert list(record) == [
            "timestamp",
            "event",
            "processor",
            "session_id",
            "context_id",
            "attempt",
            "retried",
        ]
        assert record["processor"] == "CurrentRoundCompressor" and record["session_id"] == "s1"

    @staticmethod
    def _without_envelope(record: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in record.items() if k not in ("timestamp", "session_id", "context_id")}

    @pytest.mark.parametrize("name", SAMPLE_DIRS)
    def test_span_built_matches_openjiuwens_record(self, name: str, tmp_path: Path) -> None:
        dump = read_dump(sample_dump(name))
        theirs = next(r for r in sample_log(name) if r["event"] == "span_built")
        p, c = dump.prefix_count, dump.compress_count
        n = len(dump.before)
        span = Span(prefix=(0, p), compress=(p, p + c), tail=(p + c, n), unanchored=(0, 0))
        assert span_built_fields(dump.before, span) == {
            key: theirs[key] for key in ("preserved_prefix", "messages_to_compress", "protected_tail")
        }
        log = DebugLog(tmp_path, session_id=dump.session_id, context_id=dump.context_id)
        assert log.span_built(dump.before, span)
        (ours,) = read_debug_log(tmp_path / "CurrentRoundCompressor.jsonl")
        assert list(ours) == list(theirs)
        assert self._without_envelope(ours) == self._without_envelope(theirs)

    @pytest.mark.parametrize("name", SAMPLE_DIRS)
    def test_threshold_check_matches_openjiuwens_record(self, name: str, tmp_path: Path) -> None:
        theirs = next(r for r in sample_log(name) if r["event"] == "threshold_check")
        decision = Decision(
            theirs["total_tokens"],
            theirs["context_max"],
            theirs["threshold"],
            theirs["hit"],
            theirs["reason"],
            theirs.get("target_tokens"),
            theirs.get("min_target_tokens"),
        )
        log = DebugLog(tmp_path, session_id=theirs["session_id"], context_id=theirs["context_id"])
        assert log.threshold_check(decision.record())
        (ours,) = read_debug_log(tmp_path / "CurrentRoundCompressor.jsonl")
        assert list(ours) == list(theirs)
        assert self._without_envelope(ours) == self._without_envelope(theirs)

    def test_compression_retry_has_openjiuwens_fields(self, tmp_path: Path) -> None:
        theirs = next(r for r in sample_log("compact015") if r["event"] == "compression_retry")
        log = DebugLog(tmp_path, session_id=theirs["session_id"], context_id=theirs["context_id"])
        assert log.compression_retry(
            attempt=1,
            error_type="transient:rate_limit",
            error_message="Rate limit reached 429",
            retried=True,
            reason="transient_backoff",
            delay_seconds=0.05,
        )
        (ours,) = read_debug_log(tmp_path / "CurrentRoundCompressor.jsonl")
        assert list(ours) == list(theirs)
        assert self._without_envelope(ours) == self._without_envelope(theirs)

    def test_span_entries_count_from_zero_with_at_least_one_token(self) -> None:
        entries = span_entries(
            [Message(role="assistant", content=""), Message(role="user", content="x" * 700)]
        )
        assert entries == [
            {"idx": 0, "role": "assistant", "tokens": 1, "preview": ""},
            {"idx": 1, "role": "user", "tokens": 233, "preview": "x" * 200},
        ]

    def test_concurrent_writers_never_interleave_lines(self, tmp_path: Path) -> None:
        payload = "y" * 5000

        def writer(n: int) -> None:
            log = DebugLog(tmp_path, session_id=f"s{n}", context_id="c")
            for i in range(50):
                log.record("span_built", n=n, i=i, payload=payload)

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        lines = (tmp_path / "CurrentRoundCompressor.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(lines) == 400
        assert {(r["n"], r["i"]) for r in map(json.loads, lines)} == {
            (n, i) for n in range(8) for i in range(50)
        }

    def test_a_failure_is_collected_never_raised(self, tmp_path: Path) -> None:
        blocker = tmp_path / "file"
        blocker.write_text("x", encoding="utf-8")
        log = DebugLog(blocker / "debug")
        assert log.record("threshold_check", total_tokens=1) is False
        assert len(log.errors) == 1 and str(blocker) in log.errors[0]

    def test_a_disabled_log_writes_nothing(self) -> None:
        log = DebugLog(None)
        assert not log.enabled and log.record("threshold_check") is False and log.errors == []

    def test_a_record_holding_a_secret_is_refused(self, tmp_path: Path) -> None:
        log = DebugLog(tmp_path, secrets=(CANARY,))
        assert log.record("compression_retry", error_message=f"bad key {CANARY}") is False
        assert CANARY not in log.errors[0]
        assert not (tmp_path / "CurrentRoundCompressor.jsonl").exists()

    def test_the_directory_comes_from_the_argument_else_the_environment(self) -> None:
        env = {DEBUG_DIR_ENV: "/logs/{session_id}"}
        assert resolve_debug_dir("/explicit", env=env) == Path("/explicit")
        assert resolve_debug_dir(None, session_id="a b", env=env) == Path("/logs/a-b")
        assert resolve_debug_dir(None, env={}) is None

    def test_reading_skips_a_torn_last_line(self, tmp_path: Path) -> None:
        path = tmp_path / "x.jsonl"
        path.write_text('{"event": "a"}\n\n{"event": "b"}\n{"event": "c', encoding="utf-8")
        assert [r["event"] for r in read_debug_log(path)] == ["a", "b"]
