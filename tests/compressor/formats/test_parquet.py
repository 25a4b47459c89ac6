"""Parquet files of agent runs are read through DuckDB, a row a run, by the readers that take the same rows as JSONL.
Before, a ``.parquet`` file was refused as not UTF-8 text, and no folder walk or picker offered one.

Fixtures (the folder's README): Harbor's golden trace written as Parquet, what ``harbor traces export --push``
uploads; two rows with the columns and types of the SWE-bench/SWE-smith-trajectories dataset card's
``dataset_info``. Damaged and odd files are made here with DuckDB.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import duckdb
import pytest

from compressor.errors import ConversationFormatError
from compressor.fleet import discover
from compressor.formats import load_conversation, load_conversations, parquet
from compressor.formats.source import RUN_FILE_SUFFIXES
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

HERE = FIXTURES / "formats" / "parquet"
HARBOR = HERE / "hello-world-invalid-json.traces.parquet"
HARBOR_JSON = FIXTURES / "formats" / "harbor_traces" / "hello-world-invalid-json.traces.json"
SMITH = HERE / "swe-smith-trajectories.parquet"
SWE_AGENT = HERE / "swe-agent-trajectories.parquet"
#: Random text DuckDB makes per row (md5 hex of random numbers): Parquet cannot compress it away, as real logs.
NOISE = "array_to_string(list_transform(range({n}), lambda x: md5(random()::VARCHAR)), '')"


def dumped(conversations: list[Conversation]) -> list[dict[str, Any]]:
    return [conversation.model_dump(exclude={"name"}) for conversation in conversations]


def written(path: Path, query: str) -> Path:
    """The rows of a DuckDB query written as a Parquet file at ``path``."""
    with duckdb.connect() as connection:
        connection.execute(f"COPY ({query}) TO '{path}' (FORMAT parquet)")
    return path


def refusal(source: Any, name: str | None = None) -> str:
    with pytest.raises(ConversationFormatError) as caught:
        load_conversations(source, name=name)
    text = str(caught.value)
    assert "\n" not in text and "Traceback" not in text
    return text


class TestRowsReadAsTheirJsonl:
    def test_harbor_rows_from_parquet_read_as_the_exported_json(self) -> None:
        from_parquet = load_conversations(fixture(HARBOR))
        assert dumped(from_parquet) == dumped(load_conversations(fixture(HARBOR_JSON)))
        assert from_parquet[0].source_format == "harbor-traces"
        assert from_parquet[0].name == "hello-world-invalid-json.traces"

    def test_rows_of_messages_are_one_run_each(self) -> None:
        runs = load_conversations(fixture(SMITH))
        assert [run.name for run in runs] == [
            "swe-smith-trajectories #0 (dates__parse-1a2b3c4d)",
            "swe-smith-trajectories #1 (slug__unicode-5e6f7a8b)",
        ]
        assert {run.source_format for run in runs} == {"trajectory-rows"}
        # the observation of the fenced command is its result (test_trajectory_rows: actions written as text)
        assert [m.role for m in runs[0].messages] == ["user", "assistant", "tool", "assistant"]
        assert runs[0].system[0].content.startswith("You are a helpful assistant")
        assert (runs[0].metadata["model"], runs[0].metadata["resolved"]) == (
            "claude-3-7-sonnet-20250219",
            True,
        )
        assert len(runs[1].messages) == 2

    def test_the_same_rows_as_jsonl_read_the_same(self) -> None:
        with duckdb.connect() as connection:
            rows = connection.execute(f"SELECT * FROM read_parquet('{fixture(SMITH)}')")
            columns = [column[0] for column in rows.description]
            text = "".join(json.dumps(dict(zip(columns, row, strict=True))) + "\n" for row in rows.fetchall())
        assert dumped(load_conversations(text, name="rows.jsonl")) == dumped(
            load_conversations(fixture(SMITH))
        )

    def test_an_upload_reads_as_the_file(self) -> None:
        data = fixture(HARBOR).read_bytes()
        uploaded = load_conversations(data, name="traces.parquet")
        assert dumped(uploaded) == dumped(load_conversations(fixture(HARBOR)))
        assert uploaded[0].name == "traces"

    def test_the_content_decides_not_the_name(self, tmp_path: Path) -> None:
        renamed = tmp_path / "rows.data"
        renamed.write_bytes(fixture(HARBOR).read_bytes())
        assert dumped(load_conversations(renamed)) == dumped(load_conversations(fixture(HARBOR)))

    def test_a_name_duckdb_would_read_as_a_glob_is_read_as_itself(self, tmp_path: Path) -> None:
        odd = tmp_path / "runs[1]*.parquet"
        odd.write_bytes(fixture(SMITH).read_bytes())
        (tmp_path / "runs1x.parquet").write_bytes(fixture(HARBOR).read_bytes())  # what the glob would match
        assert dumped(load_conversations(odd)) == dumped(load_conversations(fixture(SMITH)))

    def test_the_file_is_only_read(self, tmp_path: Path) -> None:
        copy = tmp_path / "runs.parquet"
        copy.write_bytes(fixture(SMITH).read_bytes())
        before = copy.stat()
        load_conversations(copy)
        assert copy.read_bytes() == fixture(SMITH).read_bytes()
        assert (copy.stat().st_mtime_ns, sorted(p.name for p in tmp_path.iterdir())) == (
            before.st_mtime_ns,
            ["runs.parquet"],
        )

    def test_more_rows_than_a_batch_keep_their_order(self, tmp_path: Path) -> None:
        count = parquet.BATCH_ROWS * 2 + 5
        path = written(
            tmp_path / "many.parquet",
            f"SELECT [{{'role': 'user', 'content': 'task ' || i::VARCHAR}}] AS messages FROM range({count}) t(i)",
        )
        runs = load_conversations(path)
        assert [run.messages[0].content for run in runs] == [f"task {i}" for i in range(count)]


class TestColumnValues:
    def test_nested_values_are_plain_json_values(self, tmp_path: Path) -> None:
        path = written(
            tmp_path / "typed.parquet",
            "SELECT TIMESTAMP '2025-03-01 10:00:00' AS at, 1.50::DECIMAL(4, 2) AS cost, 3::DECIMAL(4, 0) AS n,"
            " '{\"a\": 1}'::JSON AS meta, 'ab'::BLOB AS raw, {'x': [1, 2]} AS nested",
        )
        document = parquet.read_parquet(path)
        assert document is not None and document.lines is not None
        assert list(document.lines) == [
            (
                1,
                {
                    "at": "2025-03-01T10:00:00",
                    "cost": 1.5,
                    "n": 3,
                    "meta": '{"a": 1}',  # a JSON column stays the string it holds
                    "raw": "ab",
                    "nested": {"x": [1, 2]},
                },
            )
        ]

    def test_a_json_file_is_not_parquet(self) -> None:
        assert parquet.read_parquet(fixture(HARBOR_JSON)) is None
        assert parquet.read_parquet(b"[]", name="x.json") is None
        assert parquet.read_parquet('[{"role": "user", "content": "hi"}]') is None


class TestBadParquet:
    def test_garbage_after_the_magic_is_one_line(self, tmp_path: Path) -> None:
        bad = tmp_path / "bad.parquet"
        bad.write_bytes(b"PAR1" + b"\x00garbage" * 20)
        text = refusal(bad)
        assert text.startswith(f"{bad}: is not a readable Parquet file (")

    @pytest.mark.parametrize("keep", [0.5, 0.9])
    def test_a_file_cut_short_is_one_line(self, tmp_path: Path, keep: float) -> None:
        data = fixture(HARBOR).read_bytes()
        cut = tmp_path / "cut.parquet"
        cut.write_bytes(data[: int(len(data) * keep)])
        assert refusal(cut).startswith(f"{cut}: is not a readable Parquet file (")
        assert refusal(cut.read_bytes(), name="cut.parquet").startswith(
            "cut.parquet: is not a readable Parquet"
        )

    def test_a_temporary_path_never_shows_in_the_line(self) -> None:
        text = refusal(b"PAR1 not parquet at all", name="upload.parquet")
        assert text.startswith("upload.parquet: is not a readable Parquet file")
        assert "compaction-lab-parquet-" not in text

    def test_a_file_named_parquet_that_is_not_is_one_line(self, tmp_path: Path) -> None:
        fake = tmp_path / "runs.parquet"
        fake.write_text('{"messages": []}')
        assert refusal(fake).startswith(f"{fake}: is not a readable Parquet file (")

    def test_a_git_lfs_pointer_says_so(self, tmp_path: Path) -> None:
        """A Hub dataset cloned without Git LFS leaves pointers (git-lfs docs/spec.md) in place of its Parquet files."""
        pointer = tmp_path / "train-00000-of-00001.parquet"
        text = (
            "version https://git-lfs.github.com/spec/v1\n"
            "oid sha256:11360057569d90ad779d7328e4a8297fb671e1c8798a961fe6d77e4608c5865f\nsize 115570445\n"
        )
        pointer.write_text(text)
        line = "is a Git LFS pointer, not the Parquet file: fetch it (git lfs pull)"
        assert refusal(pointer) == f"{pointer}: {line}"
        assert refusal(text.encode(), name="train.parquet") == f"train.parquet: {line}"

    def test_no_conversation_column_is_one_line(self, tmp_path: Path) -> None:
        path = written(tmp_path / "scores.parquet", "SELECT 'django-1' AS instance_id, 0.5 AS score")
        text = refusal(path)
        assert text.startswith(
            f"{path}: no column holds a conversation in a format I know (columns: instance_id, score); formats tried:"
        )

    def test_no_rows_is_one_line(self, tmp_path: Path) -> None:
        path = written(tmp_path / "empty.parquet", "SELECT 'x' AS messages WHERE false")
        assert refusal(path) == f"{path}: is a Parquet file with no rows"

    def test_a_bad_row_is_named_by_its_number(self, tmp_path: Path) -> None:
        rows = json.loads(fixture(HARBOR_JSON).read_text())
        rows[2]["conversations"][0]["role"] = "robot"
        source = tmp_path / "rows.json"
        source.write_text(json.dumps(rows))
        path = written(tmp_path / "rows.parquet", f"SELECT * FROM read_json('{source}', format='array')")
        assert refusal(path) == (
            f"{path}: row 3: conversations[0].role: unknown role 'robot' (expected user, assistant or system)"
        )

    def test_over_the_size_limit_is_refused_unread(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(parquet, "MAX_PARQUET_BYTES", 1000)
        line = "is 0.0 MB, over the 0 MB limit for a Parquet file; refusing to read it"
        assert refusal(fixture(HARBOR)) == f"{fixture(HARBOR)}: {line}"
        assert refusal(fixture(HARBOR).read_bytes(), name="up.parquet") == f"up.parquet: {line}"

    def test_rows_holding_more_text_than_the_limit_are_refused(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        path = written(
            tmp_path / "long.parquet",
            "SELECT [{'role': 'user', 'content': repeat('x', 5000)}] AS messages FROM range(20)",
        )
        assert path.stat().st_size < 50_000  # compressed inside: the file is small, its text is not
        monkeypatch.setattr(parquet, "MAX_FILE_BYTES", 50_000)
        assert (
            refusal(path)
            == f"{path}: holds over 0 MB of text in its rows, over the limit; refusing to read it"
        )


class TestLargeShards:
    """A Hub shard of runs is mostly what no reader reads (nebius/SWE-agent-trajectories' card: ``generated_patch``,
    ``eval_logs`` beside the ``trajectory``). The shards here are the SWE-agent fixture's row (the card's columns
    and types, README) repeated, with ``eval_logs`` made large random text; the limits are lowered to the test's
    scale."""

    def shard(self, tmp_path: Path, rows: int = 40, noise: int = 1000) -> Path:
        log = NOISE.format(n=noise)
        return written(
            tmp_path / "train-00000-of-00002.parquet",
            f"SELECT * REPLACE ({log} AS eval_logs) FROM read_parquet('{fixture(SWE_AGENT)}'), range({rows})",
        )

    def test_a_shard_past_the_text_limit_in_unread_columns_loads(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        path = self.shard(tmp_path)
        assert path.stat().st_size > 1_000_000  # 40 logs of 32 kB of random text
        monkeypatch.setattr(parquet, "MAX_FILE_BYTES", 200_000)  # the file is five times the limit
        runs = load_conversations(path)
        one = load_conversations(fixture(SWE_AGENT))[0]
        assert len(runs) == 40
        assert {run.source_format for run in runs} == {"trajectory-rows"}
        assert all(run.messages == one.messages and run.metadata == one.metadata for run in runs)

    def test_only_the_columns_the_reader_reads_are_fetched(self, tmp_path: Path) -> None:
        document = parquet.read_parquet(self.shard(tmp_path, rows=2, noise=10))
        assert document is not None and document.lines is not None
        row = document.lines[0][1]
        assert set(row) == {"instance_id", "model_name", "target", "trajectory", "exit_status"}

    def test_the_columns_read_still_count_against_the_limit(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        path = self.shard(tmp_path, noise=10)
        monkeypatch.setattr(parquet, "MAX_FILE_BYTES", 2000)
        assert (
            refusal(path)
            == f"{path}: holds over 0 MB of text in its rows, over the limit; refusing to read it"
        )

    def test_rows_no_row_reader_takes_by_its_columns_are_read_whole(self, tmp_path: Path) -> None:
        path = written(
            tmp_path / "chats.parquet",
            "SELECT [{'role': 'user', 'content': 'hi'}] AS messages, 'log' AS eval_logs FROM range(2)",
        )
        document = parquet.read_parquet(path)
        assert document is not None and document.lines is not None
        assert set(document.lines[0][1]) == {"messages", "eval_logs"}  # a plain conversation: every column
        assert [run.source_format for run in load_conversations(path)] == ["jsonl", "jsonl"]

    def test_a_column_name_holding_a_quote_is_read(self, tmp_path: Path) -> None:
        path = written(
            tmp_path / "odd.parquet",
            'SELECT *, \'x\' AS "say ""hi""" FROM read_parquet(\'' + str(fixture(SWE_AGENT)) + "')",
        )
        assert load_conversations(path)[0].messages == load_conversations(fixture(SWE_AGENT))[0].messages


class TestOffered:
    def test_a_folder_walk_and_the_pickers_take_parquet(self, tmp_path: Path) -> None:
        assert ".parquet" in RUN_FILE_SUFFIXES
        (tmp_path / "runs.parquet").write_bytes(fixture(SMITH).read_bytes())
        inputs, broken = discover([tmp_path])
        assert [Path(entry.path).name for entry in inputs] == ["runs.parquet"] and broken == []

    def test_one_run_of_a_file_loads_alone(self, tmp_path: Path) -> None:
        path = written(tmp_path / "one.parquet", f"SELECT * FROM read_parquet('{fixture(SMITH)}') LIMIT 1")
        assert load_conversation(path).name == "one #0 (dates__parse-1a2b3c4d)"

    @pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
    def test_a_pipe_is_never_opened_to_look_for_parquet(self, tmp_path: Path) -> None:
        pipe = tmp_path / "runs.json"
        os.mkfifo(pipe)
        found: list[object] = []
        looking = threading.Thread(target=lambda: found.append(parquet.read_parquet(pipe)), daemon=True)
        looking.start()
        looking.join(timeout=10)
        blocked = looking.is_alive()
        if blocked:  # waiting in open() for a writer: a writer's end lets it go before the test fails
            os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
            looking.join(timeout=10)
        assert not blocked and found == [None]

    def test_a_missing_parquet_file_says_so_as_any_file_does(self, tmp_path: Path) -> None:
        missing = tmp_path / "gone.parquet"
        assert refusal(missing) == f"{missing}: no such file"
