"""Turn uploaded bytes, zip archives and files under the roots into loaded conversations and one-line errors.

Invariant: a bad file never stops the others: each yields either conversations or exactly one error line
naming it; a zip is read member by member with sizes checked before any member is decompressed.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from compressor.dumps import DumpRecord
from compressor.errors import CompressorError
from compressor.formats.source import COMPRESSED_SUFFIXES, RUN_FILE_SUFFIXES
from compressor.formats.stores import DATABASE_SUFFIXES, Store
from compressor.image_tokens import is_image_part
from compressor.jsontext import inert_escapes, may_hold_surrogates, writable_value
from compressor.messages import Conversation, Message

#: Upload limit of the whole request and of a zip's total uncompressed size (matches server.maxUploadSize).
MAX_TOTAL_BYTES = 200 * 1024 * 1024
#: Most members a zip may hold.
MAX_ZIP_MEMBERS = 5000
#: The most characters one message may hold here: more than any model's window, and a text this long would
#: tie the server up tokenising it (a 190 MB message took 10 GB and minutes); the conversation is refused instead.
MAX_MESSAGE_CHARS = 2_000_000
#: The most characters of conversations one session may hold (what its pages may tokenise): two full uploads.
#: Past it a new file is refused until some are cleared, so no session can keep the server tokenising.
MAX_SESSION_CHARS = 2 * MAX_TOTAL_BYTES
#: Member suffixes read from a zip (nested archives are not opened); SQLite session stores (OpenCode's
#: ``opencode.db``, an Agents SDK session) are read from their bytes, never from a path.
MEMBER_SUFFIXES: tuple[str, ...] = (*RUN_FILE_SUFFIXES, *DATABASE_SUFFIXES)
#: What the Load page's uploader takes: the member suffixes, compressed files by their last suffix alone (a
#: browser's file picker matches one), and zip archives.
UPLOAD_TYPES: tuple[str, ...] = (
    *(suffix.lstrip(".") for suffix in MEMBER_SUFFIXES if not suffix.endswith(COMPRESSED_SUFFIXES)),
    *(suffix.lstrip(".") for suffix in COMPRESSED_SUFFIXES),
    "zip",
)


@dataclass(frozen=True)
class LoadedConversation:
    """A conversation the session holds, with where it came from."""

    key: str
    label: str
    #: "sample", "upload", "root" (a file under a root), "store" (a session store folder) or "fleet"
    origin: str
    file: str
    conversation: Conversation = field(repr=False)
    #: the configured root a "root" conversation was read from (``file`` is its path below that root)
    root_index: int | None = None

    @property
    def followable(self) -> bool:
        """True when the conversation is a file on the server that a page may follow as it grows."""
        return self.origin == "root" and self.root_index is not None

    @property
    def source_format(self) -> str:
        return self.conversation.source_format


@dataclass(frozen=True)
class FileOutcome:
    """What one file gave: its conversations, or the one-line error that stopped it."""

    file: str
    conversations: tuple[Conversation, ...] = ()
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def one_line(error: BaseException, file: str) -> str:
    """An error as one line that names the file (library errors already do)."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text if text.startswith(file) else f"{file}: {text}"


def parse_file(file: str, data: bytes) -> FileOutcome:
    """Every conversation in one file's bytes, or its error."""
    return _parsed(file, data, surrogates=may_hold_surrogates(data))


def parse_store(file: str, folder: Path | Store) -> FileOutcome:
    """Every conversation of a session store read from its path — a folder (OpenCode's ``storage/``: the store reader
    opens only regular files inside it) or an SQLite database, or the Store already opened on it — or its error.
    Its texts are not at hand, so surrogates are always looked for."""
    return _parsed(file, folder, surrogates=True)


def _parsed(file: str, source: bytes | Path | Store, *, surrogates: bool) -> FileOutcome:
    from compressor.formats import load_conversations

    try:
        conversations = load_conversations(source, name=file)
    except CompressorError as error:
        return FileOutcome(file, error=one_line(error, file))
    except (ValueError, RecursionError, MemoryError) as error:  # a loader bug must not take the page down
        return FileOutcome(file, error=one_line(error, file))
    for conversation in conversations:
        problem = oversized_message(conversation)
        if problem is not None:
            return FileOutcome(file, error=f"{file}: {problem}")
    if surrogates:  # a page cannot send a lone surrogate to the browser: shown (and run) escaped
        conversations = [writable_conversation(conversation) for conversation in conversations]
    return FileOutcome(file, tuple(conversations))


def writable_conversation(conversation: Conversation) -> Conversation:
    """``conversation`` with every lone surrogate of its text written ``\\udXXX`` (itself when it holds none); in
    the texts read as JSON again (tool arguments, tool results) an escaped one is kept as text too."""
    data = conversation.model_dump()
    cleaned = writable_value(data)
    for message in (*cleaned["system"], *cleaned["messages"]):
        for call in message.get("tool_calls") or ():
            if isinstance(call.get("arguments"), str):
                call["arguments"] = inert_escapes(call["arguments"])
        if message.get("role") == "tool" and isinstance(message.get("content"), str):
            message["content"] = inert_escapes(message["content"])
    return conversation if cleaned == data else Conversation.model_validate(cleaned)


def message_chars(message: Message) -> int:
    """The characters of a message that would be tokenised: its text parts and its tool calls (images are
    priced by their size, never tokenised, so they do not count)."""
    if isinstance(message.content, str):
        size = len(message.content)
    else:
        size = sum(
            len(part) if isinstance(part, str) else len(str(part.get("text") or ""))
            for part in message.content
            if isinstance(part, str) or not is_image_part(part)
        )
    for call in message.tool_calls or ():
        size += len(call.name) + len(call.arguments)
    return size


def oversized_message(conversation: Conversation, limit: int = MAX_MESSAGE_CHARS) -> str | None:
    """Why a conversation is refused before anything counts its tokens (a message over ``limit`` characters)."""
    for where, messages in (("system message", conversation.system), ("message #", conversation.messages)):
        for index, message in enumerate(messages):
            size = message_chars(message)
            if size > limit:
                name = f"system message {index + 1}" if where == "system message" else f"message #{index}"
                return (
                    f"{name} holds {size:,} characters, over the {limit:,} one message may hold here "
                    "(more than any model's window); split or trim it"
                )
    return None


def conversation_chars(conversation: Conversation) -> int:
    """The characters of a conversation that would be tokenised (``message_chars`` of each message)."""
    return sum(message_chars(message) for message in (*conversation.system, *conversation.messages))


def within_session_budget(
    outcomes: Sequence[FileOutcome], held_chars: int, *, limit: int | None = None
) -> list[FileOutcome]:
    """``outcomes`` in order, each file that would take the session past ``limit`` characters refused instead."""
    limit = MAX_SESSION_CHARS if limit is None else limit
    kept: list[FileOutcome] = []
    for outcome in outcomes:
        size = sum(conversation_chars(conversation) for conversation in outcome.conversations)
        if outcome.ok and held_chars + size > limit:
            kept.append(FileOutcome(outcome.file, error=(
                f"{outcome.file}: refused, this session would hold {held_chars + size:,} characters of "
                f"conversations, over the {limit:,} one session may hold; clear the loaded conversations first"
            )))  # fmt: skip
            continue
        held_chars += size
        kept.append(outcome)
    return kept


def _skipped(label: str, suffixes: Sequence[str]) -> str:
    """Why a member is skipped: the suffixes it may have, their compressed forms said once."""
    plain = [suffix for suffix in suffixes if not suffix.endswith(COMPRESSED_SUFFIXES)]
    packed = [p for p in plain if any(p + compressed in suffixes for compressed in COMPRESSED_SUFFIXES)]
    also = f" ({', '.join(packed)} compressed too: {', '.join(COMPRESSED_SUFFIXES)})" if packed else ""
    return f"{label}: skipped, not a {', '.join(plain)} file{also}"


def expand_zip(
    file: str,
    data: bytes,
    *,
    suffixes: Sequence[str] = MEMBER_SUFFIXES,
    max_total_bytes: int = MAX_TOTAL_BYTES,
) -> tuple[list[tuple[str, bytes]], list[str]]:
    """The readable members of a zip as ``(archive/member, bytes)``, and one error per refused member.

    The declared sizes are checked first (total at most MAX_TOTAL_BYTES); a member is then read with a
    bound, so an archive that lies about its sizes cannot inflate past the limit.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        return [], [f"{file}: is not a readable zip archive ({error})"]
    with archive:
        infos = [
            info for info in archive.infolist() if not info.is_dir() and not _ignored_member(info.filename)
        ]
        if len(infos) > MAX_ZIP_MEMBERS:
            return [], [f"{file}: holds {len(infos)} files, more than the {MAX_ZIP_MEMBERS} allowed"]
        declared = sum(info.file_size for info in infos)
        if declared > max_total_bytes:
            return [], [
                f"{file}: unpacks to {_megabytes(declared)}, over the {_megabytes(max_total_bytes)} limit"
            ]
        members: list[tuple[str, bytes]] = []
        errors: list[str] = []
        budget = max_total_bytes
        seen: set[str] = set()
        for info in infos:
            label = f"{file}/{info.filename}"
            if not info.filename.lower().endswith(tuple(suffixes)):
                errors.append(_skipped(label, suffixes))
                continue
            if (
                info.filename in seen
            ):  # a zip may hold one path twice: never one silently in place of the other
                errors.append(f"{label}: a second member with this path; the first one is kept")
                continue
            seen.add(info.filename)
            try:
                with archive.open(info) as handle:
                    body = handle.read(min(info.file_size, budget) + 1)
            except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, RuntimeError) as error:
                errors.append(f"{label}: cannot be unpacked ({error})")
                continue
            if len(body) > info.file_size or len(body) > budget:
                errors.append(f"{label}: larger than its declared size; refused")
                continue
            budget -= len(body)
            members.append((label, body))
    return members, errors


def _megabytes(size: int) -> str:
    return f"{size / 2**20:.1f} MB" if size % 2**20 else f"{size // 2**20} MB"


def _ignored_member(name: str) -> bool:
    parts = PurePosixPath(name).parts
    return any(part.startswith(".") or part == "__MACOSX" for part in parts)


def parse_upload(file: str, data: bytes, *, max_total_bytes: int = MAX_TOTAL_BYTES) -> list[FileOutcome]:
    """One outcome per file: the upload itself, or each member of a zip."""
    if len(data) > max_total_bytes:
        return [FileOutcome(file, error=f"{file}: is over the {_megabytes(max_total_bytes)} limit")]
    if file.lower().endswith(".zip") or data[:4] == b"PK\x03\x04":
        members, errors = expand_zip(file, data, max_total_bytes=max_total_bytes)
        outcomes = [FileOutcome(label, error=message) for label, message in _split(errors)]
        outcomes.extend(parse_file(label, body) for label, body in members)
        if not members and not errors:
            outcomes.append(FileOutcome(file, error=f"{file}: the archive holds no conversation files"))
        return outcomes
    return [parse_file(file, data)]


def parse_uploads(
    files: Sequence[tuple[str, bytes]], *, max_total_bytes: int = MAX_TOTAL_BYTES
) -> list[FileOutcome]:
    """Outcomes of several uploads; once their sizes add up past the limit, the rest are refused."""
    outcomes: list[FileOutcome] = []
    used = 0
    names: set[str] = set()
    for given, data in files:
        name = given
        for number in range(2, len(files) + 2):  # two uploads of one name (from two folders) are kept apart
            if name not in names:
                break
            name = f"{given} ({number})"
        names.add(name)
        used += len(data)
        if used > max_total_bytes:
            outcomes.append(
                FileOutcome(
                    name, error=f"{name}: refused, the upload is over the {_megabytes(max_total_bytes)} total"
                )
            )
            continue
        outcomes.extend(parse_upload(name, data, max_total_bytes=max_total_bytes))
    return outcomes


def _split(errors: Iterable[str]) -> list[tuple[str, str]]:
    return [(message.split(": ", 1)[0], message) for message in errors]


def loaded_items(
    origin: str, outcomes: Sequence[FileOutcome], *, root_index: int | None = None
) -> list[LoadedConversation]:
    """A LoadedConversation per conversation; several in one file are labelled by their names."""
    items: list[LoadedConversation] = []
    for outcome in outcomes:
        base = PurePosixPath(outcome.file).name
        many = len(outcome.conversations) > 1
        for number, conversation in enumerate(outcome.conversations):
            label = (conversation.name or f"{base} #{number}") if many else base
            items.append(
                LoadedConversation(
                    key=f"{origin}:{outcome.file}#{number}",
                    label=label,
                    origin=origin,
                    file=outcome.file,
                    conversation=conversation,
                    root_index=root_index,
                )
            )
    return items


def safe_file_name(name: str) -> str:
    """A plain file name for a saved upload: the last path part, unsafe characters replaced by '-'."""
    base = PurePosixPath(name.replace("\\", "/")).name
    cleaned = "".join(char if char.isalnum() or char in "._-" else "-" for char in base).lstrip(".")
    return cleaned or "upload.json"


def dump_conversation(record: DumpRecord) -> Conversation:
    """The conversation a dump compacted: its system messages, the rebuilt context before, its tools."""
    return Conversation(
        system=list(record.system_messages),
        messages=list(record.before),
        tools=list(record.tools),
        name=str(record.context_id or ""),
        source_format="dump",
    )


def dump_bytes(path: str | None) -> bytes | None:
    """A written dump's bytes for a download button, or None when there is none to offer."""
    if not path:
        return None
    try:
        return Path(path).read_bytes()
    except OSError:
        return None
