"""Tables copy compressor numbers into DataFrames: right columns, right values, nothing recomputed."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from compressor.compactor import Attempt
from compressor.dumps import index_dumps, read_dump
from compressor.messages import Message
from compressor.prompt import SNAPSHOT_SECTIONS, section_checklist
from compressor.tokens import get_counter, profile
from dashboard import tables
from dashboard.sources import dump_conversation
from tests.dashboard.conftest import OPENJIUWEN_DUMPS, demo_analysis


def read_dump_log(path: Path) -> list[dict[str, object]]:
    import json

    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


class TestSpanFrame:
    def test_one_row_per_system_and_context_message(self) -> None:
        analysis = demo_analysis()
        frame = tables.span_frame(analysis)
        assert list(frame.columns) == tables.SPAN_COLUMNS
        assert len(frame) == len(analysis.conversation.system) + len(analysis.conversation.messages)
        assert frame["position"].tolist() == list(range(len(frame)))

    def test_tokens_and_segments_are_the_analysis_values(self) -> None:
        analysis = demo_analysis(keep_recent_messages=2)
        frame = tables.span_frame(analysis)
        context = frame[frame["segment"] != "system"]
        assert context["tokens"].tolist() == list(analysis.profile.tokens)
        assert context["segment"].tolist() == [row.segment for row in analysis.per_message]
        assert context["index"].tolist() == list(range(len(analysis.conversation.messages)))
        system = frame[frame["segment"] == "system"]
        assert system["tokens"].tolist() == list(analysis.profile.system_tokens)
        assert system["index"].isna().all()

    def test_the_last_real_user_message_is_flagged_once(self) -> None:
        analysis = demo_analysis()
        frame = tables.span_frame(analysis)
        assert frame.loc[frame["last_user"], "index"].tolist() == [analysis.last_user_index]

    def test_message_table_translates_segments_and_notes(self) -> None:
        frame = tables.span_frame(demo_analysis())
        shown = tables.message_table(frame, {"prefix": "P", "compress": "C"}, {"last_user": "LU"})
        assert list(shown.columns) == ["message", "role", "tokens", "segment", "notes", "preview"]
        assert set(shown["segment"]) == {"system", "P", "C"}
        assert shown.loc[shown["notes"] == "LU", "message"].tolist() == ["#0"]
        assert shown["message"].tolist()[0] == "system 1"  # a system row is named, never "None"

    def test_previews_are_one_short_line(self) -> None:
        frame = tables.span_frame(demo_analysis())
        assert all("\n" not in text and len(text) <= tables.PREVIEW_CHARS for text in frame["preview"])
        assert frame.loc[frame["index"] == 1, "preview"].item().startswith("I'll start with the layout")


class TestPreview:
    def test_collapses_whitespace_and_cuts_with_an_ellipsis(self) -> None:
        assert tables.preview("a \n\n b") == "a b"
        assert tables.preview("x" * 10, 5) == "xxxx…"

    def test_a_call_without_text_previews_its_tool_calls(self) -> None:
        message = Message.model_validate(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "c1", "name": "bash", "arguments": '{"command":"ls"}'}],
            }
        )
        assert tables.message_preview(message) == 'bash({"command":"ls"})'


class TestResultTables:
    def test_attempts_table_has_one_row_per_call(self) -> None:
        attempts = (
            Attempt(1, 12, 9000, "context_overflow", "too long", budget_ratio=0.85, seconds=0.5),
            Attempt(2, 9, 7000, "ok", seconds=1.25),
        )
        frame = tables.attempts_table(attempts)
        assert frame["attempt"].tolist() == [1, 2]
        assert frame["request_tokens"].tolist() == [9000, 7000]
        assert frame["outcome"].tolist() == ["context_overflow", "ok"]
        assert frame["budget_ratio"].tolist()[0] == 0.85

    def test_checklist_table_numbers_the_eleven_sections(self) -> None:
        summary = "### 1. Active Task\nfix\n### 8. Files, Code Areas, Artifacts\nx"
        frame = tables.checklist_table(section_checklist(summary))
        assert frame["number"].tolist() == list(range(1, 12))
        assert frame["section"].tolist() == list(SNAPSHOT_SECTIONS)
        assert frame.loc[frame["present"], "number"].tolist() == [1, 8]

    def test_debug_table_flattens_nested_values(self) -> None:
        records = [
            {"timestamp": 1.5, "event": "threshold_check", "processor": "P", "hit": True, "total_tokens": 10},
            {"timestamp": 2.0, "event": "span_built", "preserved_prefix": [{"idx": 0}, {"idx": 1}]},
        ]
        frame = tables.debug_table(records)
        assert list(frame.columns) == ["timestamp", "event", "hit", "total_tokens", "preserved_prefix"]
        assert frame["preserved_prefix"].tolist()[1] == "2 items"
        assert frame["timestamp"].tolist()[0] == "1970-01-01 00:00:01.500"

    def test_every_field_of_the_debug_logs_has_a_header_in_words(self) -> None:
        from dashboard.i18n import column_labels

        logs = [
            *OPENJIUWEN_DUMPS.rglob("*.jsonl"),
            *Path(tables.__file__).parents[2].glob("dumps/demo/*.jsonl"),
        ]
        records = [record for log in logs for record in read_dump_log(log)]
        assert len(logs) >= 4 and records
        columns = set(tables.debug_table(records).columns)
        for language in ("en", "zh"):
            headers = column_labels(language)
            assert columns <= set(headers), columns - set(headers)
            assert not [
                column for column in columns if "_" in headers[column]
            ]  # words, never the field's name
        assert (
            column_labels("en")["total_tokens"] == "Window total"
        )  # the trigger's own number, named as everywhere

    def test_debug_flags_and_sizes_are_worded_in_the_language_given(self) -> None:
        records = [
            {"event": "span_built", "hit": True, "preserved_prefix": [{"idx": 0}], "extra": {"a": 1, "b": 2}}
        ]
        english = tables.debug_table(records).iloc[0].to_dict()
        assert english == {
            "event": "span_built",
            "hit": "yes",
            "preserved_prefix": "1 item",
            "extra": "2 fields",
        }
        chinese = tables.CellWords(
            yes="是", no="否", size=lambda n, noun: f"{n} {'项' if noun == 'item' else '个字段'}"
        )
        assert tables.debug_table(records, chinese).iloc[0].tolist() == [
            "span_built",
            "是",
            "1 项",
            "2 个字段",
        ]

    def test_debug_cells_never_show_none(self) -> None:
        records = [
            {"timestamp": 1.0, "event": "threshold_check", "target_tokens": 5},
            {"timestamp": "soon", "event": "span_built", "target_tokens": None, "error": None},
        ]
        frame = tables.debug_table(records)
        cells = [str(value) for value in frame.to_numpy().ravel()]
        assert "None" not in cells and "nan" not in cells
        assert frame["target_tokens"].tolist() == ["5", tables.MISSING]
        assert frame["timestamp"].tolist()[1] == tables.MISSING

    def test_messages_table_prices_each_message_with_the_counter(self) -> None:
        messages = [Message(role="user", content="a"), Message(role="assistant", content="b c")]
        frame = tables.messages_table(messages, "cl100k_base")
        counter = get_counter("cl100k_base")
        assert frame.to_dict("list") == {
            "index": [0, 1],
            "role": ["user", "assistant"],
            "tokens": [counter.message_tokens(m) for m in messages],
            "preview": ["a", "b c"],
        }
        assert list(tables.messages_table(messages).columns) == ["index", "role", "preview"]

    def test_loaded_table_lists_each_conversation(self) -> None:
        from dashboard.sources import loaded_items, parse_upload
        from tests.dashboard.conftest import DEMO

        items = loaded_items("sample", parse_upload(DEMO.name, DEMO.read_bytes()))
        worded = tables.loaded_table(items, {"sample": "内置示例"})  # where each came from, in words
        assert worded["origin"].tolist() == ["内置示例"]
        frame = tables.loaded_table(items)
        assert frame.to_dict("records") == [
            {
                "conversation": items[0].label,
                "format": "openjiuwen",
                "messages": len(items[0].conversation.messages),
                "system": len(items[0].conversation.system),
                "tools": len(items[0].conversation.tools),
                "origin": "sample",
                "file": DEMO.name,
            }
        ]


@pytest.fixture(scope="module")
def dump_rows() -> list[dict[str, object]]:
    index = index_dumps(OPENJIUWEN_DUMPS)
    assert len(index.dumps) == 3, index.broken
    return index.dumps


class TestDumpFrame:
    def test_columns_and_values_come_from_the_index_rows(self, dump_rows: list[dict[str, object]]) -> None:
        frame = tables.dump_frame(dump_rows)
        assert list(frame.columns) == tables.DUMP_COLUMNS
        by_path = {row["path"]: row for row in dump_rows}
        for _, row in frame.iterrows():
            source = by_path[row["path"]]
            assert row["tokens_before"] == source["tokens_before"]
            assert row["tokens_after"] == source["tokens_after"]
            assert row["reduction_ratio"] == source["reduction_ratio"]
            assert (row["prefix"], row["compress"], row["tail"]) == (
                source["prefix_count"],
                source["compress_count"],
                source["tail_count"],
            )
            assert row["file"] == Path(str(source["path"])).name

    def test_grouped_by_folder_newest_first_in_each(self, dump_rows: list[dict[str, object]]) -> None:
        frame = tables.dump_frame(dump_rows, base=str(OPENJIUWEN_DUMPS))
        assert frame["folder"].tolist() == ["compact000", "compact001", "compact015"]
        assert sorted(frame["sequence"]) == [1, 2, 3]  # numbered in the order they were written
        in_time = frame.sort_values("time")
        assert in_time["sequence"].tolist() == [1, 2, 3]

    def test_numbers_no_column_can_hold_are_missing_not_errors(self) -> None:
        row = {
            "path": "/x/a.json",
            "timestamp": 1e308,
            "tokens_before": 10**40,
            "reduction_ratio": float("nan"),
        }
        frame = tables.dump_frame([row])
        assert frame["tokens_before"].isna().all() and frame["time"].isna().all()
        assert tables.dump_table(frame)["time"].tolist() == [tables.MISSING]

    def test_the_folder_is_never_a_server_path(self) -> None:
        assert tables.folder_of("/srv/data/dumps/s1/a.json", "/srv/data/dumps") == "s1"
        assert tables.folder_of("/srv/data/dumps/a.json", "/srv/data/dumps") == "."
        assert tables.folder_of("/srv/data/dumps/s1/a.json", None) == "s1"

    @pytest.mark.parametrize("name", ["a\\udcff.json", "back\\slash.json", "dir\\a.json"])
    def test_a_backslash_in_a_file_name_stays_in_the_name(self, name: str) -> None:
        # Server paths are POSIX: a backslash is a character of the name (an escaped byte that is not UTF-8, or
        # a literal one), never a separator.
        path = f"/srv/data/dumps/s1/{name}"
        assert tables.folder_of(path, "/srv/data/dumps") == "s1"
        assert tables.folder_of(path, None) == "s1"
        frame = tables.dump_frame([{"path": path}], base="/srv/data/dumps")
        assert frame["folder"].tolist() == ["s1"] and frame["file"].tolist() == [name]

    def test_the_listing_names_the_reviewed_folder_in_words_and_every_column_has_a_header(self) -> None:
        from dashboard.i18n import COLUMN_KEYS

        rows = [
            {
                "path": "/d/a.json",
                "file": "a.json",
                "tokens_before": 10,
                "tokens_after": 5,
                "reduction_ratio": 0.5,
            },
            {
                "path": "/d/s1/b.json",
                "file": "b.json",
                "tokens_before": 10,
                "tokens_after": 5,
                "reduction_ratio": 0.5,
            },
        ]
        shown = tables.dump_table(tables.dump_frame(rows, base="/d"), here="(this folder)")
        assert sorted(shown["folder"]) == ["(this folder)", "s1"]
        assert shown["reduction_ratio"].tolist() == [50.0, 50.0]  # in percent, written "50.0%" (SHARE_FORMAT)
        assert tables.SHARE_FORMAT % 46.94 == "46.9%"
        assert set(shown.columns) - {"file"} <= set(COLUMN_KEYS)  # the file name is shown as itself

    def test_dumps_written_together_are_ordered_by_sequence(self, dump_rows: list[dict[str, object]]) -> None:
        frame = tables.dump_frame(dump_rows)
        assert tables.time_axis(frame) == "sequence"  # openJiuwen's three samples: 0.2 s apart
        spread = [{**row, "timestamp": 1_700_000_000 + 3600 * i} for i, row in enumerate(dump_rows)]
        assert tables.time_axis(tables.dump_frame(spread)) == "time"

    def test_an_empty_listing_has_the_columns(self) -> None:
        assert list(tables.dump_frame([]).columns) == tables.DUMP_COLUMNS

    def test_filters(self, dump_rows: list[dict[str, object]]) -> None:
        frame = tables.dump_frame(dump_rows)
        assert len(tables.filter_dumps(frame)) == 3
        best = frame["reduction_ratio"].max()
        assert tables.filter_dumps(frame, min_ratio=best)["reduction_ratio"].tolist() == [best]
        assert len(tables.filter_dumps(frame, text="COMPACT001")) == 1
        assert len(tables.filter_dumps(frame, sessions=["nobody"])) == 0
        assert tables.filter_dumps(frame, retried_only=True)["context"].tolist() == ["compact015"]

    def test_pages(self) -> None:
        frame = pd.DataFrame({"n": range(120)})
        assert tables.page_count(120, 50) == 3
        assert tables.page_count(0, 50) == 1
        assert tables.page_of(frame, 3, 50)["n"].tolist() == list(range(100, 120))
        assert tables.page_of(frame, 9, 50)["n"].tolist() == list(range(100, 120))


class TestDumpSpanFrame:
    def test_segments_follow_the_dumps_span_counts(self) -> None:
        path = next((OPENJIUWEN_DUMPS / "compact015").glob("*.json"))
        record = read_dump(path)
        frame = tables.dump_span_frame(record, record.span())
        context = frame[frame["segment"] != "system"]
        counts = context["segment"].value_counts().to_dict()
        assert counts.get("prefix", 0) == record.prefix_count
        assert counts.get("compress", 0) == record.compress_count
        assert counts.get("tail", 0) == record.tail_count
        assert (frame["segment"] == "system").sum() == record.system_messages_count

    def test_the_tokens_are_the_spans_own(self) -> None:
        """The table renders the library's value: the same counts the token profile of the dump's context gives."""
        path = next((OPENJIUWEN_DUMPS / "compact015").glob("*.json"))
        record = read_dump(path)
        span = record.span("string_length")
        frame = tables.dump_span_frame(record, span)
        assert frame["tokens"].tolist() == [*span.system_tokens, *span.tokens]
        tokens = profile(dump_conversation(record), "string_length")
        assert (span.system_tokens, span.tokens) == (tokens.system_tokens, tokens.tokens)


class TestCompactionsFrame:
    def test_one_row_per_event_with_the_library_numbers(self) -> None:
        from compressor import simulate
        from tests.dashboard.conftest import demo_conversation

        run = simulate(demo_conversation(), context_max=16_000, summary="ratio:0.1")
        frame = tables.compactions_frame(run.events)
        assert len(frame) == len(run.events) >= 1
        first = run.events[0]
        assert frame.loc[0, "message"] == f"#{first.index}"
        assert frame.loc[0, "window"] == first.context_tokens  # the window total the trigger read there
        assert frame.loc[0, "after"] == first.tokens_after
        assert frame.loc[0, "outcome"] == first.status
        worded = tables.compactions_frame(run.events, lambda status, reason: f"{status}/{reason or '-'}")
        assert worded.loc[0, "outcome"] == "compacted/-"


class TestSweepFrame:
    def test_one_row_per_setting_with_its_outcome(self) -> None:
        from compressor import sweep
        from tests.dashboard.conftest import demo_conversation

        swept = sweep(
            demo_conversation(), ratios=(0.6, 0.8), keeps=(0, 2), context_max=16_000, summary="ratio:0.1"
        )
        frame = tables.sweep_frame(swept)
        assert len(frame) == 4
        assert frame.to_dict("records") == [outcome.to_dict() for outcome in swept.outcomes]

    def test_the_csv_writes_the_first_trigger_as_a_message_index_or_nothing(self) -> None:
        from compressor import sweep
        from tests.dashboard.conftest import demo_conversation

        swept = sweep(
            demo_conversation(), ratios=(0.6, 0.99), keeps=(0,), context_max=16_000, summary="ratio:0.1"
        )
        rows = tables.sweep_frame(swept).to_csv(index=False).splitlines()
        column = rows[0].split(",").index("first_trigger_index")
        fires, never = (row.split(",")[column] for row in rows[1:])
        assert fires == str(swept.outcomes[0].first_trigger_index) and never == ""


class TestRoles:
    def test_roles_and_system_rows_are_worded_in_the_language_given(self) -> None:
        from dashboard.i18n import role_names

        frame = tables.span_frame(demo_analysis())
        shown = tables.message_table(frame, role_names=role_names("zh"))
        assert shown["message"].tolist()[0] == "系统 1" and shown["role"].tolist()[:2] == ["系统", "用户"]
        plain = tables.messages_table([Message(role="assistant", content="a")], role_names=role_names("zh"))
        assert plain["role"].tolist() == ["助手"]
        assert tables.message_table(frame)["role"].tolist()[1] == "user"  # without words, the role itself
