"""Compressed run files are read as the file inside: Codex's week-old rollouts (``rollout-….jsonl.zst``, zstd,
appended to as further frames: ``codex-rs/rollout/src/compression.rs``) and gzip; a damaged one is one line.

The compressed files are made here from real rollouts with the zstd format's own library (frames of a few lines
each, as Codex appends); the frame walk is checked against RFC 8878's layout for every option the encoder has.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import ClassVar

import pytest
import zstandard

from compressor.errors import ConversationFormatError
from compressor.fleet import discover
from compressor.formats import compressed, load_conversations, source
from compressor.formats.compressed import ZSTD_MAGIC, CutShort, check_zstd_frames
from compressor.formats.places import find_sessions
from compressor.formats.source import RUN_FILE_SUFFIXES
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

ROLLOUTS = sorted((FIXTURES / "formats" / "codex").glob("rollout-*.jsonl"))


def framed(data: bytes, lines_per_frame: int = 3, **options: object) -> bytes:
    """``data`` as zstd frames of a few lines each: what appending to a compressed rollout leaves."""
    compressor = zstandard.ZstdCompressor(**options)  # type: ignore[arg-type]
    lines = data.splitlines(keepends=True)
    return b"".join(
        compressor.compress(b"".join(lines[at : at + lines_per_frame]))
        for at in range(0, len(lines), lines_per_frame)
    )


def dumped(conversations: list[Conversation]) -> list[dict[str, object]]:
    return [conversation.model_dump(exclude={"name"}) for conversation in conversations]


class TestCompressedRunsReadAsTheirPlainFile:
    @pytest.mark.parametrize("plain", ROLLOUTS, ids=lambda path: path.name)
    @pytest.mark.parametrize("kind", ["zstd", "gzip"])
    def test_a_compressed_rollout_reads_as_the_plain_one(
        self, tmp_path: Path, plain: Path, kind: str
    ) -> None:
        data = fixture(plain).read_bytes()
        packed = framed(data) if kind == "zstd" else gzip.compress(data)
        path = tmp_path / (plain.name + (".zst" if kind == "zstd" else ".gz"))
        path.write_bytes(packed)
        expected = dumped(load_conversations(plain))
        from_file = load_conversations(path)
        assert dumped(from_file) == expected
        assert from_file[0].name == plain.stem  # named without either suffix
        assert dumped(load_conversations(packed, name=path.name)) == expected  # an upload
        assert path.read_bytes() == packed  # read only

    def test_a_compressed_json_array_reads_as_its_plain_file(self, tmp_path: Path) -> None:
        messages = [{"role": "user", "content": "fix it"}, {"role": "assistant", "content": "done"}]
        path = tmp_path / "chat.json.zst"
        path.write_bytes(zstandard.ZstdCompressor().compress(json.dumps(messages).encode()))
        assert [m.text for m in load_conversations(path)[0].messages] == ["fix it", "done"]

    def test_a_large_compressed_file_is_read_in_chunks(self, tmp_path: Path) -> None:
        # past the whole-text size, JSONL is read line by line from the decompressing stream
        line = json.dumps({"role": "user", "content": "x " * 400}) + "\n"
        reply = json.dumps({"role": "assistant", "content": "ok"}) + "\n"
        data = ((line + reply) * (2 * source.WHOLE_TEXT_BYTES // len(line + reply))).encode()
        path = tmp_path / "big.jsonl.zst"
        path.write_bytes(framed(data, lines_per_frame=500))
        assert path.stat().st_size < source.WHOLE_TEXT_BYTES < len(data)
        read = source.read_lines(path)
        assert read is not None and len(read[0]) == data.count(b"\n")

    def test_the_suffixes_name_the_compressed_forms(self) -> None:
        assert {".jsonl.zst", ".json.zst", ".jsonl.gz", ".traj.gz"} <= set(RUN_FILE_SUFFIXES)


class TestDamagedFiles:
    def rollout(self) -> bytes:
        return fixture(ROLLOUTS[0]).read_bytes()

    @pytest.mark.parametrize("cut", [1, 9, 0.5])
    def test_a_zstd_file_cut_short_says_so(self, tmp_path: Path, cut: float) -> None:
        packed = framed(self.rollout())
        keep = int(len(packed) * cut) if cut < 1 else len(packed) - int(cut)
        path = tmp_path / "rollout-x.jsonl.zst"
        path.write_bytes(packed[:keep])
        with pytest.raises(ConversationFormatError) as error:
            load_conversations(path)
        assert str(error.value) == (
            f"{path}: is zstd-compressed but does not decompress (the file ends inside a compressed frame)"
        )
        with pytest.raises(ConversationFormatError):
            load_conversations(packed[:keep], name="rollout-x.jsonl.zst")

    def test_zstd_magic_then_garbage_is_one_line(self, tmp_path: Path) -> None:
        path = tmp_path / "rollout-x.jsonl.zst"
        path.write_bytes(b"\x28\xb5\x2f\xfd\x00\x58\xb5\x01compressed bytes")
        with pytest.raises(ConversationFormatError) as error:
            load_conversations(path)
        message = str(error.value)
        assert (
            message.startswith(f"{path}: is zstd-compressed but does not decompress (")
            and "\n" not in message
        )

    def test_a_gzip_file_cut_short_is_one_line(self, tmp_path: Path) -> None:
        path = tmp_path / "rollout-x.jsonl.gz"
        path.write_bytes(gzip.compress(self.rollout())[:-30])
        with pytest.raises(ConversationFormatError) as error:
            load_conversations(path)
        assert str(error.value).startswith(f"{path}: is gzip-compressed but does not decompress (")

    def test_past_the_size_limit_once_decompressed_is_refused(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(source, "MAX_FILE_BYTES", 1 << 20)
        data = (json.dumps({"role": "user", "content": "a" * 1000}) + "\n").encode() * 3000  # 3 MB
        path = tmp_path / "bomb.jsonl.zst"
        path.write_bytes(zstandard.ZstdCompressor().compress(data))
        assert path.stat().st_size < 1 << 16
        expected = "holds over 1 MB once decompressed, over the limit; refusing to read it"
        with pytest.raises(ConversationFormatError) as error:
            load_conversations(path)
        assert str(error.value) == f"{path}: {expected}"
        with pytest.raises(ConversationFormatError) as error:
            load_conversations(path.read_bytes(), name="bomb.jsonl.zst")
        assert str(error.value) == f"bomb.jsonl.zst: {expected}"

    def test_compressed_twice_is_named(self, tmp_path: Path) -> None:
        path = tmp_path / "rollout-x.jsonl.gz"
        path.write_bytes(gzip.compress(gzip.compress(self.rollout())))
        with pytest.raises(ConversationFormatError) as error:
            load_conversations(path)
        assert "gzip-compressed data inside its compression" in str(error.value)


class TestFrameWalk:
    """Every frame must end within the file (RFC 8878: frame header, blocks, optional checksum)."""

    DATA = b"".join(b'{"n": %d, "t": "%s"}\n' % (n, str(n * 7919 % 104729).encode()) for n in range(20000))
    OPTIONS: ClassVar[list[dict[str, object]]] = [
        {},
        {"write_checksum": True},
        {"write_content_size": False},
        {"level": 19},
        {"write_checksum": True, "level": 1},
    ]
    SKIPPABLE = (0x184D2A53).to_bytes(4, "little") + (5).to_bytes(4, "little") + b"hello"

    @pytest.mark.parametrize("options", OPTIONS, ids=str)
    def test_whole_streams_pass_and_any_cut_inside_a_frame_fails(self, options: dict[str, object]) -> None:
        one = zstandard.ZstdCompressor(**options).compress(self.DATA)  # type: ignore[arg-type]
        for stream in (one, framed(self.DATA, 997, **options), self.SKIPPABLE + one):
            check_zstd_frames(io.BytesIO(stream), len(stream))
            for keep in (len(stream) - 1, len(stream) - 4, len(stream) // 2, 7):
                with pytest.raises(CutShort):
                    check_zstd_frames(io.BytesIO(stream[:keep]), keep)

    def test_a_streamed_stream_of_unknown_size_passes(self) -> None:
        out = io.BytesIO()
        with zstandard.ZstdCompressor().stream_writer(out, closefd=False) as writer:
            writer.write(self.DATA)
            writer.flush(zstandard.FLUSH_FRAME)
            writer.write(self.DATA[:100])
        stream = out.getvalue()
        check_zstd_frames(io.BytesIO(stream), len(stream))

    def test_a_file_of_endless_empty_blocks_is_walked_only_so_far(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(compressed, "MAX_WALKED_BLOCKS", 1000)
        empty_raw_block = (0).to_bytes(3, "little")  # not the last block, raw, no bytes
        stream = ZSTD_MAGIC + bytes([0x00, 0x58]) + empty_raw_block * 5000  # a frame that never ends
        check_zstd_frames(io.BytesIO(stream), len(stream))  # left to the decoder, quickly
        monkeypatch.setattr(compressed, "MAX_WALKED_BLOCKS", 10_000)
        with pytest.raises(CutShort):
            check_zstd_frames(io.BytesIO(stream), len(stream))

    def test_an_empty_frame_passes(self) -> None:
        stream = zstandard.ZstdCompressor(write_checksum=True).compress(b"")
        check_zstd_frames(io.BytesIO(stream), len(stream))


class TestFleetFindsCompressedRuns:
    def test_a_folder_walk_takes_compressed_rollouts(self, tmp_path: Path) -> None:
        data = fixture(ROLLOUTS[0]).read_bytes()
        (tmp_path / "a").mkdir()
        (tmp_path / "a" / "rollout-old.jsonl.zst").write_bytes(framed(data))
        (tmp_path / "a" / "notes.txt.zst").write_bytes(framed(b"not a run\n"))
        inputs, broken = discover([tmp_path])
        assert [Path(entry.path).name for entry in inputs] == ["rollout-old.jsonl.zst"] and not broken

    def test_a_compressed_copy_beside_its_plain_file_is_one_run(self, tmp_path: Path) -> None:
        # Codex keeps both only while it rewrites one as the other, and reads the plain one
        data = fixture(ROLLOUTS[0]).read_bytes()
        (tmp_path / "rollout-x.jsonl").write_bytes(data)
        (tmp_path / "rollout-x.jsonl.zst").write_bytes(framed(data))
        inputs, _ = discover([tmp_path])
        assert [Path(entry.path).name for entry in inputs] == ["rollout-x.jsonl"]


class TestCodexPlace:
    def test_runs_lists_compressed_rollouts_once(self, tmp_path: Path) -> None:
        data = fixture(ROLLOUTS[0]).read_bytes()
        day = tmp_path / ".codex" / "sessions" / "2026" / "11" / "20"
        day.mkdir(parents=True)
        (day / "rollout-2026-11-20T10-00-00-a.jsonl.zst").write_bytes(framed(data))
        (day / "rollout-2026-11-20T11-00-00-b.jsonl").write_bytes(data)
        (day / "rollout-2026-11-20T11-00-00-b.jsonl.zst").write_bytes(framed(data))  # mid-rewrite
        found = find_sessions(tmp_path, {})
        assert sorted(session.path.name for session in found if session.agent == "codex") == [
            "rollout-2026-11-20T10-00-00-a.jsonl.zst",
            "rollout-2026-11-20T11-00-00-b.jsonl",
        ]
        assert all(load_conversations(session.path) for session in found)

    def test_runs_lists_archived_rollouts(self, tmp_path: Path) -> None:
        archived = tmp_path / ".codex" / "archived_sessions"
        archived.mkdir(parents=True)
        (archived / "rollout-2026-10-01T09-00-00-c.jsonl.zst").write_bytes(
            framed(fixture(ROLLOUTS[0]).read_bytes())
        )
        found = [session for session in find_sessions(tmp_path, {}) if session.agent == "codex"]
        assert [session.path.parent.name for session in found] == ["archived_sessions"]
        moved = [s for s in find_sessions(tmp_path / "elsewhere", {"CODEX_HOME": str(tmp_path / ".codex")})]
        assert [session.path.name for session in moved] == ["rollout-2026-10-01T09-00-00-c.jsonl.zst"]
