"""Uploaded dumps and debug logs laid out in a session's folder so that each dump finds its own debug log.

A zip keeps its folders (``review/<zip>/<its folders>/…``), so same-named logs in different folders stay apart.
Loose files are kept as uploaded (``staging/``) and laid out again after every upload: each debug log goes into
the folder of the dumps it describes (the dumps whose session and context its records name, up to their time),
and logs that describe the same dumps are joined; a log that describes none is reported, never dropped silently.

Invariant: pure file work below the folder it is given (no streamlit); nothing is written outside it, a name is
always one safe part, and every file refused or set aside gives one line saying so.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from compressor.dumps import debug_window
from compressor.dumps.debuglog import read_debug_log
from compressor.dumps.reader import DumpFile, load_dump_file
from compressor.errors import DumpFormatError

from .sources import MAX_TOTAL_BYTES, expand_zip, safe_file_name

#: What an uploaded dump file may be called once saved: a dump JSON or a debug log.
DUMP_SUFFIXES: tuple[str, ...] = (".json", ".jsonl")
REVIEW = "review"
STAGING = "staging"
LOOSE = "loose"


@dataclass
class Saved:
    """What one upload gave: lines about refused files, and notes about how same-named files were kept apart."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def review_folder(base: Path) -> Path:
    """The folder Dump review indexes for a session's uploads."""
    return base / REVIEW


def _free(path: Path) -> Path:
    """``path``, or ``name-2``, ``name-3`` … beside it when it is taken."""
    if not path.exists():
        return path
    number = 2
    while True:
        candidate = path.with_name(f"{path.stem}-{number}{path.suffix}")
        if not candidate.exists():
            return candidate
        number += 1


def _member_path(member: str) -> PurePosixPath:
    """A zip member's path below its archive's folder, each part made safe ("a/../b" cannot climb)."""
    parts = [
        safe_file_name(part)
        for part in PurePosixPath(member.replace("\\", "/")).parts
        if part not in ("", ".", "..")
    ]
    return PurePosixPath(*parts) if parts else PurePosixPath("upload.json")


def save_uploads(base: Path, files: Sequence[tuple[str, bytes]]) -> Saved:
    """Save uploaded dumps, logs and zips of them below ``base`` and lay the loose ones out again."""
    saved = Saved()
    review = review_folder(base)
    staging = base / STAGING
    review.mkdir(parents=True, exist_ok=True)
    staging.mkdir(parents=True, exist_ok=True)
    for name, data in files:
        if name.lower().endswith(".zip") or data[:4] == b"PK\x03\x04":
            _save_zip(review, name, data, saved)
        elif not name.lower().endswith(DUMP_SUFFIXES):
            saved.problems.append(f"{name}: skipped, not a .json dump or a .jsonl debug log")
        elif len(data) > MAX_TOTAL_BYTES:
            saved.problems.append(f"{name}: is over the {MAX_TOTAL_BYTES // 2**20} MB limit")
        else:
            count = sum(1 for _ in staging.iterdir())
            (staging / f"{count:05d}-{safe_file_name(name)}").write_bytes(data)
    lay_out_loose(staging, review / LOOSE, saved)
    return saved


def _save_zip(review: Path, name: str, data: bytes, saved: Saved) -> None:
    members, errors = expand_zip(name, data, suffixes=DUMP_SUFFIXES)
    saved.problems.extend(errors)
    folder = _free(review / safe_file_name(PurePosixPath(name).stem or "upload"))
    written: set[PurePosixPath] = set()
    for label, body in members:
        member = label[len(name) + 1 :] if label.startswith(f"{name}/") else label
        relative = _member_path(member)
        if relative in written:
            saved.problems.append(f"{label}: a second member with this path; the first one is kept")
            continue
        written.add(relative)
        target = folder.joinpath(*relative.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)


@dataclass(frozen=True)
class _Dump:
    path: Path
    name: str  # as uploaded
    model: DumpFile


def _original(path: Path) -> str:
    return path.name.split("-", 1)[1] if "-" in path.name else path.name


def lay_out_loose(staging: Path, target: Path, saved: Saved) -> None:
    """Lay the staged loose files out in ``target``: each group of dumps with the logs that describe them in a
    folder of its own (named by the first dump's context), dumps without a log at the top."""
    if target.exists():
        shutil.rmtree(target)
    staged = sorted(path for path in staging.iterdir() if path.is_file())
    if not staged:
        return
    target.mkdir(parents=True)
    dumps: list[_Dump] = []
    logs: list[tuple[Path, list[dict[str, object]]]] = []
    for path in staged:
        if path.name.lower().endswith(".jsonl"):
            logs.append((path, read_debug_log(path)))
            continue
        try:
            dumps.append(_Dump(path, _original(path), load_dump_file(path)))
        except DumpFormatError:
            shutil.copyfile(path, _free(target / _original(path)))  # listed as broken by the index, with why
    groups = _pair(dumps, logs)
    paired_logs: set[Path] = set()
    for members, described_by in groups:
        if not described_by:
            for dump in members:
                shutil.copyfile(dump.path, _free(target / dump.name))
            continue
        folder = _free(
            target / safe_file_name(members[0].model.context_id or PurePosixPath(members[0].name).stem)
        )
        folder.mkdir(parents=True)
        for dump in members:
            shutil.copyfile(dump.path, _free(folder / dump.name))
        by_name: dict[str, list[Path]] = {}
        for log in described_by:
            by_name.setdefault(_original(log), []).append(log)
            paired_logs.add(log)
        for log_name, parts in by_name.items():
            (folder / log_name).write_bytes(b"".join(_whole_lines(part.read_bytes()) for part in parts))
    _notes(logs, groups, paired_logs, saved)


def _whole_lines(data: bytes) -> bytes:
    return data if not data or data.endswith(b"\n") else data + b"\n"


def _describes(records: Sequence[dict[str, object]], dump: DumpFile) -> bool:
    return bool(
        debug_window(records, session_id=dump.session_id, context_id=dump.context_id, until=dump.timestamp)
    )


def _pair(
    dumps: Sequence[_Dump], logs: Sequence[tuple[Path, list[dict[str, object]]]]
) -> list[tuple[list[_Dump], list[Path]]]:
    """Groups of dumps joined by the logs that describe them, each with those logs (in upload order)."""
    group_of = list(range(len(dumps)))

    def find(i: int) -> int:
        while group_of[i] != i:
            group_of[i] = group_of[group_of[i]]
            i = group_of[i]
        return i

    log_dumps: list[tuple[Path, list[int]]] = []
    for path, records in logs:
        described = [i for i, dump in enumerate(dumps) if _describes(records, dump.model)]
        for i in described[1:]:
            group_of[find(i)] = find(described[0])
        log_dumps.append((path, described))
    groups: dict[int, tuple[list[_Dump], list[Path]]] = {}
    for i, dump in enumerate(dumps):
        groups.setdefault(find(i), ([], []))[0].append(dump)
    for path, described in log_dumps:
        if described:
            groups[find(described[0])][1].append(path)
    return list(groups.values())


def _notes(
    logs: Sequence[tuple[Path, list[dict[str, object]]]],
    groups: Sequence[tuple[list[_Dump], list[Path]]],
    paired: set[Path],
    saved: Saved,
) -> None:
    names: dict[str, int] = {}
    for path, _ in logs:
        names[_original(path)] = names.get(_original(path), 0) + 1
    for name, count in names.items():
        if count > 1:
            contexts = sorted(
                {dump.model.context_id for members, described in groups for dump in members if described}
            )
            saved.notes.append(
                f"{count} debug logs are called {name}: each was put beside the dumps it describes "
                f"({', '.join(contexts)}), so none replaces another."
            )
    for path, _ in logs:
        if path not in paired:
            saved.problems.append(
                f"{_original(path)}: describes none of the uploaded dumps (no session, context and time in it "
                "matches one); upload it with its dump"
            )
