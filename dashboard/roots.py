"""The folders the dashboard may read on the server, and the check that keeps every path inside one.

Invariant: a path reaches the file system only through ``confine``: relative to a configured root, with
no ``..`` part, and resolving (symlinks followed) to the root itself or somewhere below it; a file is read only
through ``read_file``: a regular file, opened without blocking (a FIFO never hangs a session), bounded.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from compressor.dumps.files import MAX_READ_BYTES, UnreadableFile, read_regular
from compressor.formats.source import RUN_FILE_SUFFIXES
from compressor.formats.stores import DATABASE_SUFFIXES
from compressor.jsontext import encodable

#: Environment variable naming the roots, separated by ``os.pathsep``.
ROOTS_ENV = "COMPACTION_LAB_ROOTS"

#: The project checkout (dashboard/ lives directly under it).
PROJECT_DIR = Path(__file__).resolve().parent.parent
SAMPLES_DIR = Path(__file__).resolve().parent / "samples"
DEFAULT_ROOTS: tuple[Path, ...] = (PROJECT_DIR / "dumps", SAMPLES_DIR)

#: How a page names this server's temporary folder (the real path is never shown).
TEMP_LABEL = "(temporary folder)"
#: Files the Load page offers (a zip may hold many of them).
#: What the file pickers offer: run files, zips of them, SQLite session stores (read by their path).
CONVERSATION_SUFFIXES: tuple[str, ...] = (*RUN_FILE_SUFFIXES, ".zip", *DATABASE_SUFFIXES)


class OutsideRootError(ValueError):
    """A requested path would leave its root; the message names the path and the reason."""


@dataclass(frozen=True)
class Entry:
    """One item of a folder listing, named relative to its root."""

    relative: str
    name: str
    is_dir: bool
    size: int

    @property
    def label(self) -> str:
        """How a folder browser lists it: a folder with a trailing slash, a file with its size (a name that is not
        UTF-8 with its odd bytes as ``\\udcXX``: the browser cannot be sent them)."""
        name = encodable(self.name)
        if self.is_dir:
            return f"📁 {name}/"
        return f"📄 {name} · {size_text(self.size)}"


def size_text(size: int) -> str:
    """A file size in B, KB or MB."""
    if size >= 2**20:
        return f"{size / 2**20:.1f} MB"
    if size >= 2**10:
        return f"{size / 2**10:.0f} KB"
    return f"{size} B"


def configured_roots(env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """The roots from ``COMPACTION_LAB_ROOTS`` (existing folders only), else the project's dumps/ and samples."""
    env = os.environ if env is None else env
    raw = env.get(ROOTS_ENV, "").strip()
    if not raw:
        return DEFAULT_ROOTS
    roots: list[Path] = []
    for part in raw.split(os.pathsep):
        part = part.strip()
        if not part:
            continue
        path = Path(part).expanduser()
        if not path.is_absolute():
            path = PROJECT_DIR / path
        if path not in roots:
            roots.append(path)
    return tuple(roots)


def confine(root: Path, relative: str) -> Path:
    """``root / relative`` resolved, or OutsideRootError when it is absolute, has ``..`` or escapes ``root``.

    The empty string and ``"."`` name the root itself.
    """
    text = relative.strip().replace("\\", "/")
    if (
        text.startswith("/")
        or PurePosixPath(text).is_absolute()
        or Path(text).is_absolute()
        or _has_drive(text)
    ):
        raise OutsideRootError(f"{relative}: absolute paths are not allowed; choose a path inside the root")
    parts = [part for part in PurePosixPath(text).parts if part not in ("", ".")]
    if ".." in parts:
        raise OutsideRootError(f"{relative}: '..' is not allowed in a path")
    base = root.resolve()
    target = base.joinpath(*parts).resolve()
    if target != base and base not in target.parents:
        raise OutsideRootError(f"{relative}: resolves outside its root (a symlink leaving {root})")
    return target


def read_file(root: Path, relative: str, *, limit: int = MAX_READ_BYTES) -> bytes:
    """The bytes of a regular file inside ``root``: confined first, then opened without blocking and read only
    if it is a regular file of at most ``limit`` bytes; OutsideRootError or UnreadableFile naming why not."""
    path = confine(root, relative)
    try:
        return read_regular(path, limit=limit)
    except UnreadableFile as error:
        raise UnreadableFile(f"{relative}: {error}") from None


def file_signature(root: Path, relative: str) -> tuple[int, int] | None:
    """(mtime_ns, size) of a regular file inside ``root``, None when it is not one (gone, a FIFO, outside)."""
    try:
        info = confine(root, relative).stat()
    except (OutsideRootError, OSError):
        return None
    return (info.st_mtime_ns, info.st_size) if stat.S_ISREG(info.st_mode) else None


def _has_drive(text: str) -> bool:
    return len(text) >= 2 and text[1] == ":" and text[0].isalpha()


def relative_to_root(root: Path, path: Path) -> str:
    """The POSIX path of ``path`` below ``root`` ("" for the root itself)."""
    relative = path.resolve().relative_to(root.resolve())
    text = relative.as_posix()
    return "" if text == "." else text


def parent_of(relative: str) -> str:
    """The parent of a root-relative path ("" stays "")."""
    parent = PurePosixPath(relative).parent.as_posix()
    return "" if parent == "." else parent


def list_folder(
    root: Path, relative: str = "", *, suffixes: Sequence[str] | None = None, limit: int = 2000
) -> list[Entry]:
    """Sub-folders first, then files (filtered by suffix), hidden names and escaping symlinks left out."""
    folder = confine(root, relative)
    if not folder.is_dir():
        raise OutsideRootError(f"{relative or '.'}: is not a folder")
    folders: list[Entry] = []
    files: list[Entry] = []
    with os.scandir(folder) as scan:
        for item in scan:
            if item.name.startswith("."):
                continue
            child = f"{relative.strip('/')}/{item.name}" if relative.strip("/") else item.name
            try:
                resolved = confine(root, child)
            except OutsideRootError:
                continue
            if resolved.is_dir():
                folders.append(Entry(child, item.name, True, 0))
            elif resolved.is_file() and (suffixes is None or item.name.lower().endswith(tuple(suffixes))):
                files.append(Entry(child, item.name, False, resolved.stat().st_size))
    folders.sort(key=lambda entry: entry.name.lower())
    files.sort(key=lambda entry: entry.name.lower())
    return (folders + files)[:limit]


_ABSOLUTE_PATH = re.compile(r"(?<![\w.:/~-])(?:/[^\s/'\"():,;]+)+/?")


def without_server_paths(text: str, roots: Sequence[Path] | None = None) -> str:
    """``text`` with no absolute path of the server in it: a path inside a root or the project as the page shows
    it (``dumps/demo/x.json``), a temporary folder as ``(temporary folder)/…``, any other as ``…/name``."""
    known: list[tuple[str, str]] = []
    for root in (*(configured_roots() if roots is None else roots), SAMPLES_DIR, PROJECT_DIR):
        for form in {str(root), str(root.resolve())}:
            known.append((form.rstrip("/") + "/", root_label(root)))
    temp = Path(tempfile.gettempdir())
    for form in {str(temp), str(temp.resolve())}:
        known.append((form.rstrip("/") + "/", TEMP_LABEL + "/"))
    known.sort(key=lambda pair: len(pair[0]), reverse=True)  # the longest (innermost) prefix first

    def shown(match: re.Match[str]) -> str:
        path = match.group(0)
        for prefix, label in known:
            if path.startswith(prefix) or path + "/" == prefix:
                return label + path[len(prefix) :]
        name = path.rstrip("/").rsplit("/", 1)[-1]
        return f"…/{name}"

    return _ABSOLUTE_PATH.sub(shown, text)


def root_label(root: Path) -> str:
    """How a root is shown, ending in "/": relative to the project when it lies inside it, else in full."""
    try:
        return root.resolve().relative_to(PROJECT_DIR).as_posix() + "/"
    except ValueError:
        return str(root).rstrip("/\\") + "/"
