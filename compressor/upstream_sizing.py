"""openJiuwen's sizes of the two messages a compaction adds: its memory block (SPEC §10.6) and its
recovered-context message (SPEC §12), for a summary and for reinjected files and skills.

Invariant: pure functions of the summary or the reinjected items; they lay out openJiuwen's message exactly
(its markers, caps, strips) and price its own wording from the measured constants, never from our wording.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .sanitize import DATA_URL_PLACEHOLDER, data_url_spans, replace_data_urls
from .tokens import StringLengthCounter, TokenCounter

# -- the memory block --------------------------------------------------------------------------------

#: Tokens of everything from ``<|start|>user\n`` up to and including ``<summary`` (its meaning and conflict policy).
MEMORY_OPEN_TOKENS = 95
#: Tokens of ``</summary>\n</memory_block_current><|end|>``.
MEMORY_CLOSE_TOKENS = 12
#: Every character of the memory message that is not the summary, ``<|start|>``/``<|end|>`` included.
MEMORY_FIXED_CHARS = 474


def memory_tokens(counter: TokenCounter, summary: str) -> int:
    """Per-message tokens (``count([m]) − 3``) of openJiuwen's memory message holding ``summary`` (stripped)."""
    # The counter sanitises the whole message, which starts with the block's tag: only embedded URLs are replaced.
    text = replace_data_urls(summary)
    if isinstance(counter, StringLengthCounter):
        return (MEMORY_FIXED_CHARS + len(text)) // 3
    # The summary is encoded with its neighbours: a final mark merges with the newline, a leading "/" with ">\n".
    return MEMORY_OPEN_TOKENS + counter.tok(">\n" + text + "\n") + MEMORY_CLOSE_TOKENS


# -- the recovered-context message: layout -------------------------------------------------------------

#: openJiuwen's cap of one file's content, of each entry and of each section, and the markers of its cuts.
FILE_CHARS = 15_000
FILE_CUT = "\n...[READ_FILE_TRUNCATED]...\n"
CAP_CHARS = 12_000
CAP_CUT = "\n...[STATE_REINJECTION_TRUNCATED]...\n"
#: The partial-read note is 43 characters long; its text is openJiuwen's, priced from the constants below.
NOTE_CHARS = 43
#: The prefix of each skills entry (removed again from the first one).
SKILLS_PREFIX = "[STATE_REINJECTION]\n[SKILLS]\n"


@dataclass(frozen=True, slots=True)
class _Span:
    """A run of a section body: plain text, or (``note`` > 0) that many characters of a partial-read note."""

    text: str = ""
    note: int = 0
    cut_end: bool = False  # the note lost its end to a cut (its first ``note`` characters are kept)
    cut_start: bool = False  # the note lost its start to a cut (its last ``note`` characters are kept)

    def __len__(self) -> int:
        return self.note if self.note else len(self.text)


_Body = list[_Span]


def _length(body: _Body) -> int:
    return sum(len(span) for span in body)


def _head(body: _Body, chars: int) -> _Body:
    out: _Body = []
    for span in body:
        if chars <= 0:
            break
        size = len(span)
        if size <= chars:
            out.append(span)
        elif span.note:
            out.append(_Span(note=chars, cut_end=True, cut_start=span.cut_start))
        else:
            out.append(_Span(span.text[:chars]))
        chars -= min(size, chars)
    return out


def _tail(body: _Body, chars: int) -> _Body:
    out: _Body = []
    for span in reversed(body):
        if chars <= 0:
            break
        size = len(span)
        if size <= chars:
            out.append(span)
        elif span.note:
            out.append(_Span(note=chars, cut_start=True, cut_end=span.cut_end))
        else:
            out.append(_Span(span.text[size - chars :]))
        chars -= min(size, chars)
    out.reverse()
    return out


def _cap(body: _Body, limit: int, marker: str) -> _Body:
    """openJiuwen's cut: unchanged when it fits, else the first ``limit // 2`` and the rest from the end."""
    if limit <= 0 or _length(body) <= limit:
        return body
    head = _head(body, limit // 2)
    return [*head, _Span(marker), *_tail(body, limit - _length(head))]


def _strip(body: _Body) -> _Body:
    """``str.strip`` over the body (a note's first and last characters are never whitespace)."""
    out = list(body)
    while out and not out[0].note:
        stripped = out[0].text.lstrip()
        if stripped:
            out[0] = _Span(stripped)
            break
        out.pop(0)
    while out and not out[-1].note:
        stripped = out[-1].text.rstrip()
        if stripped:
            out[-1] = _Span(stripped)
            break
        out.pop()
    return out


def _join(bodies: Sequence[_Body], separator: str) -> _Body:
    out: _Body = []
    for number, body in enumerate(bodies):
        if number:
            out.append(_Span(separator))
        out.extend(body)
    return out


@dataclass(frozen=True)
class ReadEntry:
    """One file as openJiuwen's ``read_file`` section lays it out."""

    path: str
    lines: str  # what follows "Lines returned: "
    partial: bool
    content: str  # the whole content the tool returned


def _file_entry(entry: ReadEntry) -> _Body:
    content = entry.content
    if len(content) > FILE_CHARS:
        half = FILE_CHARS // 2
        content = content[:half] + FILE_CUT + content[len(content) - (FILE_CHARS - half) :]
    head = f"Recently read file: {entry.path}\nLines returned: {entry.lines}\n"
    body: _Body = [_Span(head)]
    if entry.partial:
        body += [_Span(note=NOTE_CHARS), _Span("\n")]
    body.append(_Span("\n" + content))
    return _cap(body, CAP_CHARS, CAP_CUT)


def read_file_body(entries: Sequence[ReadEntry]) -> _Body:
    """The ``read_file`` section body: each entry capped, joined, stripped, then capped as a whole."""
    return _cap(_strip(_join([_file_entry(entry) for entry in entries], "\n\n")), CAP_CHARS, CAP_CUT)


def skills_body(snapshots: Sequence[str]) -> _Body:
    """The ``skills`` section body: prefixed entries capped, joined, stripped, the first prefix removed, capped."""
    joined = "\n\n".join(SKILLS_PREFIX + _cap_text(snapshot) for snapshot in snapshots).strip()
    if joined.startswith(SKILLS_PREFIX):
        joined = joined[len(SKILLS_PREFIX) :].strip()
    return _cap([_Span(joined)], CAP_CHARS, CAP_CUT) if joined else []


def _cap_text(text: str) -> str:
    return "".join(span.text for span in _cap([_Span(text)], CAP_CHARS, CAP_CUT))


# -- the recovered-context message: price --------------------------------------------------------------

#: Tokens of ``<|start|>user\n`` through the instruction and the blank line after ``</instruction>``.
RECOVERED_OPEN_TOKENS = 54
#: ``tok('<section name="NAME">\n')`` for each section openJiuwen can write here.
SECTION_OPEN_TOKENS = {"skills": 5, "read_file": 6}
#: ``tok("</section>\n\n")`` between two sections, and ``tok("</section>\n</recovered_context><|end|>")`` at the end.
SECTION_BREAK_TOKENS = 3
RECOVERED_CLOSE_TOKENS = 12
#: A whole note costs this many tokens besides its final "." (which stays in the text to merge as it would).
NOTE_TOKENS = 9
#: What the first k (H) or the last m (T) characters of a note cost, for k, m = 1…42, next to a cut marker.
NOTE_HEAD_TOKENS = (
    0,
    0,
    0,
    0,
    0,
    1,
    2,
    2,
    3,
    2,
    2,
    3,
    3,
    3,
    3,
    3,
    4,
    4,
    4,
    5,
    5,
    5,
    5,
    5,
    6,
    6,
    6,
    6,
    6,
    7,
    7,
    7,
    7,
    8,
    8,
    8,
    9,
    8,
    9,
    9,
    9,
    8,
)
NOTE_TAIL_TOKENS = (
    0,
    1,
    1,
    1,
    1,
    2,
    2,
    1,
    2,
    1,
    1,
    2,
    2,
    2,
    2,
    3,
    3,
    3,
    3,
    3,
    4,
    4,
    4,
    4,
    4,
    5,
    5,
    5,
    6,
    6,
    6,
    6,
    6,
    7,
    7,
    8,
    7,
    7,
    8,
    9,
    9,
    9,
)
#: Every character of the message outside its sections (their tags included), for the StringLengthCounter.
RECOVERED_FIXED_CHARS = 280


def recovered_tokens(counter: TokenCounter, sections: Sequence[tuple[str, _Body]]) -> int:
    """Per-message tokens (``count([m]) − 3``) of openJiuwen's recovered-context message with these sections.

    ``sections`` are ``(name, body)`` in openJiuwen's builder order (skills before read_file); empty ones are left out.
    """
    present = [(name, body) for name, body in sections if body]
    if not present:
        return 0
    joined = _join(
        [[_Span(f'<section name="{name}">\n'), *body, _Span("\n</section>")] for name, body in present],
        "\n\n",
    )
    read = _without_data_urls(joined)
    if isinstance(counter, StringLengthCounter):
        return (RECOVERED_FIXED_CHARS + _length(read)) // 3
    if read is joined:  # the usual case: each section priced on its own (the encoding splits at its tags)
        tokens = RECOVERED_OPEN_TOKENS + SECTION_BREAK_TOKENS * (len(present) - 1) + RECOVERED_CLOSE_TOKENS
        for name, body in present:
            text, notes = _starred(body)
            tokens += SECTION_OPEN_TOKENS[name] + counter.tok(text + "\n") + notes
        return tokens
    # An image data URL the counter replaces (its pattern may run on across a tag): price the sections at once.
    text, notes = _starred(read)
    return RECOVERED_OPEN_TOKENS + counter.tok(text + "\n</recovered_context><|end|>") + notes


def _starred(body: _Body) -> tuple[str, int]:
    """The body's text with each note (or piece of one) reduced to one character, and what the notes cost."""
    pieces: list[str] = []
    tokens = 0
    for span in body:
        if not span.note:
            pieces.append(span.text)
        elif span.note >= NOTE_CHARS:
            pieces.append(".")
            tokens += NOTE_TOKENS
        elif span.cut_end:  # the first k characters, then a cut marker
            pieces.append("x")
            tokens += NOTE_HEAD_TOKENS[span.note - 1]
        else:  # the last m characters, after a cut marker
            pieces.append(".")
            tokens += NOTE_TAIL_TOKENS[span.note - 1]
    return "".join(pieces), tokens


def _without_data_urls(body: _Body) -> _Body:
    """The body as the counter reads it: image data URLs replaced, also those a cut left spanning later text.

    A cut can leave ``data:image/…`` without its payload, and the counter's pattern then runs on to the next
    ``;base64,`` (notes, holding no ``;``, are swallowed with the text between).
    """
    flat = "".join(span.text if not span.note else "n" * span.note for span in body)
    spans = data_url_spans(flat)
    if not spans:
        return body
    out: _Body = []
    at = 0  # position in flat of the current span
    match = 0
    for span in body:
        size = len(span)
        begin, end = at, at + size
        at = end
        while match < len(spans) and spans[match][1] <= begin:
            match += 1
        if match >= len(spans) or spans[match][0] >= end:
            out.append(span)
            continue
        if span.note:
            if not (spans[match][0] <= begin and spans[match][1] >= end):  # else swallowed by the replacement
                out.append(span)
            continue
        cursor = begin
        pieces: list[str] = []
        probe = match
        while probe < len(spans) and spans[probe][0] < end:
            start, stop = spans[probe]
            pieces.append(flat[cursor : max(start, cursor)])
            if start >= begin:
                pieces.append(DATA_URL_PLACEHOLDER)
            cursor = min(stop, end)
            if stop > end:
                break
            probe += 1
        pieces.append(flat[cursor:end])
        out.append(_Span("".join(pieces)))
    return out


def reinjection_tokens(counter: TokenCounter, skills: Sequence[str], files: Sequence[ReadEntry]) -> int:
    """openJiuwen's recovered-context message for these skill snapshots and files (0 when it writes none)."""
    return recovered_tokens(counter, [("skills", skills_body(skills)), ("read_file", read_file_body(files))])
