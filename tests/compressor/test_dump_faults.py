"""Dump directory faults: a dump that cannot be written never fails the compaction and never leaves a partial
file; concurrent compactions lose nothing; an index of a damaged or changing folder lists what is broken."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from compressor.backends import OfflineBackend
from compressor.backends.base import ModelReply
from compressor.compactor import CompactionResult, CurrentRoundCompressor
from compressor.config import CurrentRoundCompressorConfig
from compressor.dumps import TEMP_PREFIX, DumpIndexCache, index_dumps, read_dump, write_dump
from compressor.dumps.debuglog import read_debug_log
from compressor.messages import Conversation, Message, ToolDef
from tests.support.privileges import unprivileged

REPO = Path(__file__).resolve().parents[2]
SESSION = "shared-session"


def agent_run(marker: str, steps: int = 6, body_lines: int = 40) -> Conversation:
    """A user request followed by ``steps`` shell commands with long output: always worth compacting."""
    messages: list[Message] = [Message(role="user", content=f"Fix the parser ({marker})")]
    for step in range(steps):
        call_id = f"{marker}-call-{step}"
        path = f"src/module_{step}.py"
        messages.append(
            Message.model_validate(
                {
                    "role": "assistant",
                    "content": f"Looking at {path} for {marker}.",
                    "tool_calls": [
                        {"id": call_id, "name": "bash", "arguments": json.dumps({"command": f"cat {path}"})}
                    ],
                }
            )
        )
        lines = "\n".join(
            f"def function_{step}_{n}(value):  # {marker}\n    return value * {n}" for n in range(body_lines)
        )
        messages.append(Message(role="tool", tool_call_id=call_id, content=lines))
    messages.append(Message(role="assistant", content=f"Done reading for {marker}."))
    return Conversation(
        system=[Message(role="system", content="You are a careful coding agent.")],
        messages=messages,
        tools=[ToolDef(name="bash", description="Run a shell command", parameters={"type": "object"})],
        name=f"run-{marker}",
    )


def compact(
    conversation: Conversation, dump_dir: Path, backend: Any = None, **options: Any
) -> CompactionResult:
    compressor = CurrentRoundCompressor(
        CurrentRoundCompressorConfig(keep_recent_messages=2),
        backend or OfflineBackend(),
        context_max=200_000,
        dump_dir=str(dump_dir),
        session_id=options.pop("session_id", SESSION),
        **options,
    )
    return asyncio.run(compressor.compact(conversation, force=True))


def dump_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix == ".json")


def leftovers(folder: Path) -> list[str]:
    """Anything a failed write could leave behind: our temp files and any other non-log file."""
    return sorted(
        p.name for p in folder.iterdir() if p.name.startswith(TEMP_PREFIX) or p.suffix not in (".jsonl",)
    )


class TestReadOnlyDirectory:
    def test_the_compaction_succeeds_and_reports_the_dump_error(self, shared_tmp: Path) -> None:
        conversation = agent_run("ro")
        warm = compact(conversation, shared_tmp / "warm")  # imports and encodings loaded while privileged
        assert warm.status == "compacted" and warm.dump_path is not None
        target = shared_tmp / "readonly"
        target.mkdir()
        target.chmod(0o555)
        with unprivileged():
            result = compact(conversation, target)
        assert result.status == "compacted"
        assert [m.to_openjiuwen() for m in result.messages] == [m.to_openjiuwen() for m in warm.messages]
        assert result.dump_path is None
        assert result.dump_error is not None and str(target) in result.dump_error
        assert "\n" not in result.dump_error and result.to_dict()["dump_error"] == result.dump_error
        assert list(target.iterdir()) == []  # no dump, no temp file, no debug log

    def test_a_missing_parent_that_cannot_be_created_is_reported_too(self, shared_tmp: Path) -> None:
        compact(agent_run("warm"), shared_tmp / "warm")
        locked = shared_tmp / "locked"
        locked.mkdir()
        locked.chmod(0o555)
        with unprivileged():
            result = compact(agent_run("nested"), locked / "a" / "b")
        assert result.status == "compacted" and result.dump_path is None
        assert result.dump_error is not None and "dump not written" in result.dump_error
        assert list(locked.iterdir()) == []


# Run in a child: a file-size limit makes the kernel refuse the dump's bytes partway through the write.
_SIZE_LIMITED = r"""
import asyncio, json, resource, signal, sys
sys.path.insert(0, {repo!r})
from tests.compressor.test_dump_faults import agent_run, compact
from pathlib import Path
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # report EFBIG instead of killing the process
resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
result = compact(agent_run("big", steps=8, body_lines=120), Path({folder!r}))
print(json.dumps({{"status": result.status, "dump_path": result.dump_path, "dump_error": result.dump_error}}))
"""


class TestWriteErrorPartway:
    @staticmethod
    def run_size_limited(folder: Path, limit: int) -> dict[str, Any]:
        code = _SIZE_LIMITED.format(repo=str(REPO), folder=str(folder), limit=limit)
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
        )
        assert done.returncode == 0, done.stderr[-3000:]
        outcome: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return outcome

    def test_a_dump_cut_off_by_the_file_size_limit_leaves_no_half_written_file(self, tmp_path: Path) -> None:
        limit = 64 * 1024  # the debug records fit, the dump (several hundred KB) does not
        outcome = self.run_size_limited(tmp_path, limit)
        assert outcome["status"] == "compacted" and outcome["dump_path"] is None
        assert "dump not written" in outcome["dump_error"] and "too large" in outcome["dump_error"].lower()
        assert leftovers(tmp_path) == []
        log = tmp_path / "CurrentRoundCompressor.jsonl"
        events = [json.loads(line)["event"] for line in log.read_text(encoding="utf-8").splitlines()]
        assert events == ["threshold_check", "span_built"]

    def test_the_same_run_without_the_limit_writes_a_dump_so_the_limit_is_what_failed(
        self, tmp_path: Path
    ) -> None:
        outcome = self.run_size_limited(tmp_path, 1 << 40)
        assert outcome["dump_error"] is None and outcome["dump_path"] is not None
        assert os.path.getsize(outcome["dump_path"]) > 64 * 1024
        assert read_dump(outcome["dump_path"]).compress_count > 0

    def test_a_record_that_fails_to_serialise_leaves_nothing_and_the_compaction_stands(
        self, tmp_path: Path
    ) -> None:
        conversation = agent_run("unserialisable")
        # An unknown field holding a Python object: kept by the data model, but not JSON.
        odd = Message.model_validate({"role": "assistant", "content": "odd", "handle": object()})
        conversation = conversation.with_messages(
            [*conversation.messages[:3], odd, *conversation.messages[3:]]
        )
        result = compact(conversation, tmp_path)
        assert result.status == "compacted" and result.dump_path is None
        assert result.dump_error is not None and "not JSON-serialisable" in result.dump_error
        assert leftovers(tmp_path) == []


# A debug record cut off by the size limit, then (limit lifted) another record appended after it.
_TORN_LOG = r"""
import resource, signal, sys
sys.path.insert(0, {repo!r})
from compressor.dumps.debuglog import DebugLog
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
log = DebugLog({folder!r})
resource.setrlimit(resource.RLIMIT_FSIZE, (1000, resource.RLIM_INFINITY))
first = log.record("threshold_check", total_tokens=1)
cut = log.record("span_built", padding="y" * 4000)
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
after = log.record("compression_retry", attempt=1)
print(first, cut, after, len(log.errors))
"""


class TestTornDebugRecord:
    def test_a_record_cut_off_partway_does_not_swallow_the_next_one(self, tmp_path: Path) -> None:
        code = _TORN_LOG.format(repo=str(REPO), folder=str(tmp_path))
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
        )
        assert done.stdout.split() == ["True", "False", "True", "1"], done.stderr[-2000:]
        events = [r["event"] for r in read_debug_log(tmp_path / "CurrentRoundCompressor.jsonl")]
        assert events == ["threshold_check", "compression_retry"]


class _Rendezvous:
    """A backend that holds every request until ``parties`` requests are waiting, then answers them all.

    Released together, the compactions build and write their dumps in the same few milliseconds.
    """

    label = "offline (extractive), synchronised"
    kind = "offline"

    def __init__(self, parties: int) -> None:
        self.barrier = threading.Barrier(parties, timeout=60)
        self.offline = OfflineBackend()

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolDef]) -> ModelReply:
        self.barrier.wait()  # blocks this thread's event loop only: each compaction runs in its own thread
        return await self.offline.complete(messages, tools)


class TestConcurrentCompactions:
    WRITERS = 8

    def test_eight_compactions_into_one_directory_leave_eight_whole_dumps(self, tmp_path: Path) -> None:
        backend = _Rendezvous(self.WRITERS)
        results: dict[int, CompactionResult] = {}
        errors: list[BaseException] = []

        def worker(n: int) -> None:
            try:
                results[n] = compact(agent_run(f"writer-{n}"), tmp_path, backend)
            except BaseException as exc:  # collected and asserted below
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(self.WRITERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert errors == [] and len(results) == self.WRITERS
        assert all(r.status == "compacted" and r.dump_error is None for r in results.values())
        paths = [Path(str(r.dump_path)) for r in results.values()]
        assert len(set(paths)) == self.WRITERS
        assert dump_files(tmp_path) == sorted(paths)  # eight files, no more, and no temp file left
        assert not any(p.name.startswith(TEMP_PREFIX) for p in tmp_path.iterdir())
        for n, result in results.items():
            dump = read_dump(str(result.dump_path))  # whole and readable, and it is this writer's own run
            assert dump.session_id == SESSION
            assert dump.before[0].text == f"Fix the parser (writer-{n})"
            assert [m.to_openjiuwen() for m in dump.after] == [m.to_openjiuwen() for m in result.messages]
        # the debug log took every writer's records, each line whole
        records = [
            json.loads(line) for line in (tmp_path / "CurrentRoundCompressor.jsonl").read_text().splitlines()
        ]
        assert len(records) == 2 * self.WRITERS
        index = index_dumps(tmp_path, cache=DumpIndexCache())
        assert len(index.dumps) == self.WRITERS and index.broken == []

    def test_names_taken_in_the_same_millisecond_get_a_suffix_and_nothing_is_replaced(
        self, tmp_path: Path
    ) -> None:
        # The writers wait for this thread too: while they wait, every name they could pick in the next
        # ten seconds is taken, so each of them must step past an existing file without replacing it.
        backend = _Rendezvous(self.WRITERS + 1)
        results: list[CompactionResult] = []
        lock = threading.Lock()

        def worker(n: int) -> None:
            result = compact(agent_run(f"late-{n}"), tmp_path, backend)
            with lock:
                results.append(result)

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(self.WRITERS)]
        for thread in threads:
            thread.start()
        start_ms = int(time.time() * 1000)
        window = range(start_ms, start_ms + 10_000)
        for ms in window:
            (tmp_path / f"{ms}_CurrentRoundCompressor_{SESSION}.json").write_bytes(b"occupied")
        backend.barrier.wait()
        for thread in threads:
            thread.join(timeout=120)
        assert len(results) == self.WRITERS and all(r.dump_error is None for r in results)
        paths = {Path(str(r.dump_path)) for r in results}
        assert len(paths) == self.WRITERS
        for path in paths:
            stamp, _, rest = path.stem.partition("_")
            assert int(stamp) in window and rest.rsplit("_", 1)[1].isdigit()  # ``…_{session}_{n}.json``
            assert read_dump(path).session_id == SESSION
        occupied = [p for p in dump_files(tmp_path) if p not in paths]
        assert len(occupied) == len(window)
        assert all(p.read_bytes() == b"occupied" for p in occupied)


class TestIndexingADamagedFolder:
    @pytest.fixture
    def folder(self, tmp_path: Path) -> tuple[Path, list[Path], list[str]]:
        """Three good dumps, and beside them every kind of broken file a crash or a disk can leave."""
        good = [Path(str(compact(agent_run(f"good-{n}", steps=3), tmp_path).dump_path)) for n in range(3)]
        text = good[0].read_text(encoding="utf-8")
        raw = text.encode("utf-8")
        bad: dict[str, bytes] = {
            "empty.json": b"",
            "only-brace.json": b"{",
            "cut-at-10pc.json": raw[: len(raw) // 10],
            "cut-at-50pc.json": raw[: len(raw) // 2],
            "cut-one-byte-short.json": raw[:-1].rstrip(b"}"),
            "nul-filled.json": b"\x00" * 4096,  # a crash after the size was set, before the data landed
            "binary.json": bytes(range(256)),
            "not-utf8.json": text.replace("Fix the parser", "Fix\udcff").encode("utf-8", "surrogateescape"),
            "a-list.json": b"[]",
            "another-programs-json.json": b'{"name": "package", "version": "1.0"}',
            "wrong-type.json": text.replace(
                '"protected_tail_count": ', '"protected_tail_count": "x", "_": '
            ).encode(),
        }
        for name, data in bad.items():
            (tmp_path / name).write_bytes(data)
        return tmp_path, good, sorted(bad)

    def test_broken_files_are_listed_with_one_line_each_and_the_good_ones_shown(
        self, folder: tuple[Path, list[Path], list[str]]
    ) -> None:
        path, good, bad = folder
        index = index_dumps(path, cache=DumpIndexCache())
        assert sorted(row["path"] for row in index.dumps) == sorted(str(p) for p in good)
        errors = {Path(item["path"]).name: item["error"] for item in index.broken}
        assert sorted(errors) == bad
        assert all(error and "\n" not in error for error in errors.values())
        assert "empty" in errors["empty.json"]
        assert all(
            "half-written" in errors[name]
            for name in ("only-brace.json", "cut-at-10pc.json", "cut-at-50pc.json")
        )
        assert "protected_tail_count" in errors["wrong-type.json"]
        assert "not a compression dump" in errors["another-programs-json.json"]

    def test_a_dump_cut_short_after_it_was_indexed_turns_broken_on_the_next_index(
        self, tmp_path: Path
    ) -> None:
        paths = [Path(str(compact(agent_run(f"cut-{n}", steps=2), tmp_path).dump_path)) for n in range(2)]
        cache = DumpIndexCache()
        assert len(index_dumps(tmp_path, cache=cache).dumps) == 2
        victim = paths[1]
        victim.write_bytes(victim.read_bytes()[:200])
        again = index_dumps(tmp_path, cache=cache)
        assert [row["path"] for row in again.dumps] == [str(paths[0])]
        assert [item["path"] for item in again.broken] == [str(victim)]

    def test_a_file_being_written_by_a_plain_writer_is_broken_until_it_is_complete(
        self, tmp_path: Path
    ) -> None:
        source = Path(str(compact(agent_run("plain", steps=2), tmp_path / "src").dump_path))
        data = source.read_bytes()
        target = tmp_path / "dumps" / source.name
        target.parent.mkdir()
        cache = DumpIndexCache()
        with target.open("wb") as handle:  # openJiuwen writes its dumps in place, not atomically
            handle.write(data[: len(data) // 3])
            handle.flush()
            partial = index_dumps(target.parent, cache=cache)
            handle.write(data[len(data) // 3 :])
        complete = index_dumps(target.parent, cache=cache)
        assert partial.dumps == [] and [i["path"] for i in partial.broken] == [str(target)]
        assert [row["path"] for row in complete.dumps] == [str(target)] and complete.broken == []

    def test_indexing_while_compactions_write_never_shows_a_partial_dump(self, tmp_path: Path) -> None:
        # Our writes are atomic (temp file + link), so a concurrent index sees whole dumps or nothing.
        stop = threading.Event()
        snapshots: list[tuple[int, int]] = []
        failures: list[BaseException] = []

        def indexer() -> None:
            cache = DumpIndexCache()
            try:
                while not stop.is_set():
                    index = index_dumps(tmp_path, cache=cache)
                    snapshots.append((len(index.dumps), len(index.broken)))
            except BaseException as exc:  # collected and asserted below
                failures.append(exc)

        watcher = threading.Thread(target=indexer)
        watcher.start()
        try:
            record = json.loads(
                Path(str(compact(agent_run("stream", steps=4), tmp_path / "seed").dump_path)).read_text()
            )
            for n in range(40):
                record["context_id"] = f"context-{n}"
                write_dump(tmp_path, record)
        finally:
            stop.set()
            watcher.join(timeout=60)
        assert failures == []
        assert snapshots and all(broken == 0 for _, broken in snapshots)
        counts = [count for count, _ in snapshots]
        assert counts == sorted(counts)  # dumps only ever appear, one whole file at a time
        final = index_dumps(tmp_path, recursive=False, cache=DumpIndexCache())
        assert len(final.dumps) == 40 and final.broken == []

    def test_an_unreadable_file_and_directory_are_broken_not_fatal(self, shared_tmp: Path) -> None:
        good = Path(str(compact(agent_run("readable", steps=2), shared_tmp).dump_path))
        good.chmod(0o644)
        secret = shared_tmp / "private.json"
        shutil.copy(good, secret)
        secret.chmod(0o000)
        closed = shared_tmp / "closed"
        closed.mkdir()
        shutil.copy(good, closed / good.name)
        closed.chmod(0o000)
        with unprivileged():
            index = index_dumps(shared_tmp, cache=DumpIndexCache())
        assert [row["path"] for row in index.dumps] == [str(good)]
        problems = {Path(item["path"]).name: item["error"] for item in index.broken}
        assert set(problems) == {"private.json", "closed"}
        assert "cannot read" in problems["private.json"] and "cannot list" in problems["closed"]
