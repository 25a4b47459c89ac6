"""Responses content parts (``input_text``, ``output_text``, ``input_image``, ``input_audio`` …) as message
content, for messages and for a call's output alike.

Invariant: text parts become text, images become ``image_url`` parts priced as images, and no ``file_data``/``data``
payload or audio data URL is kept, so none is counted as text; audio data left out is counted in a reading.

Audio: newer Codex has ``ContentItem::InputAudio { audio_url }`` (openai/codex ``codex-rs/protocol/src/models.rs``
as a third-party note quotes it at 5aa9280, beside ``DynamicToolCallOutputContentItem::InputAudio { audio_url }`` in
its app-server protocol; the ``models.rs`` read here, at 152e7ca, has none yet): ``{type: input_audio, audio_url:
"data:audio/…;base64,…"}``. Chat Completions' form is ``{type: input_audio, input_audio: {data, format}}``. The
Responses API documents no token price for audio in its input, so the part stays (its type, format, any plain URL)
and its data is left out of the count, with the reading saying so.
"""

from __future__ import annotations

import json
from typing import Any

from compressor.formats.problems import FormatProblem, Loc, expect_dict, type_name
from compressor.formats.session_log import SessionLog

TEXT_TYPES = ("input_text", "output_text", "text", "refusal", "summary_text")
#: Payload keys a kept part never carries (file contents, audio bytes).
DATA_KEYS = ("file_data", "data")
AUDIO_LEFT_OUT = (
    "audio data in content parts (left out of the count: the Responses API prices no audio input)"
)


def text_of(parts: Any) -> str:
    """The text of Responses content parts (or of a string), joined by newlines as Codex joins them."""
    if isinstance(parts, str):
        return parts
    if not isinstance(parts, list):
        return ""
    pieces = [part_text(part) for part in parts if isinstance(part, dict)]
    return "\n".join(piece for piece in pieces if piece)


def part_text(part: dict[str, Any]) -> str:
    for key in ("text", "refusal"):
        value = part.get(key)
        if isinstance(value, str):
            return value
    return ""


def _audio(part: dict[str, Any], log: SessionLog | None) -> dict[str, Any]:
    """An audio part without its data: a data URL and a nested ``input_audio.data`` are left out (counted)."""
    kept = {key: item for key, item in part.items() if key not in DATA_KEYS}
    url, nested = part.get("audio_url"), part.get("input_audio")
    dropped = any(key in part for key in DATA_KEYS)
    if isinstance(url, str) and url.startswith("data:"):
        del kept["audio_url"]
        dropped = True
    if isinstance(nested, dict) and "data" in nested:
        kept["input_audio"] = {key: item for key, item in nested.items() if key != "data"}
        dropped = True
    if dropped and log is not None:
        log.skip(AUDIO_LEFT_OUT)
    return kept


def content_of(value: Any, loc: Loc, log: SessionLog | None = None) -> str | list[dict[str, Any]]:
    """Responses content (a string or parts) as message content: one text part becomes a string."""
    if value is None or isinstance(value, str):
        return value or ""
    if not isinstance(value, list):
        raise FormatProblem(loc, f"must be a string or a list of content parts, got {type_name(value)}")
    parts: list[dict[str, Any]] = []
    for index, part in enumerate(value):
        if isinstance(part, str):
            parts.append({"type": "text", "text": part})
            continue
        part = expect_dict(part, loc.key(index), "a content part")
        kind = part.get("type")
        text = part_text(part)
        if kind in TEXT_TYPES or (kind is None and text):
            parts.append({"type": "text", "text": text})
        elif kind == "input_image":
            image: dict[str, Any] = {"url": part.get("image_url") or part.get("file_id") or ""}
            if isinstance(part.get("detail"), str):
                image["detail"] = part["detail"]
            parts.append({"type": "image_url", "image_url": image})
        elif kind == "input_audio":
            parts.append(_audio(part, log))
        else:
            parts.append({key: item for key, item in part.items() if key not in DATA_KEYS})
    if len(parts) == 1 and parts[0].get("type") == "text":
        return str(parts[0]["text"])
    return parts


def output_of(value: Any, loc: Loc, log: SessionLog | None = None) -> str | list[dict[str, Any]]:
    """A call's output: a string, content items, the older ``{content, success}`` object, or other JSON."""
    if isinstance(value, dict) and "content" in value:
        return output_of(value["content"], loc.key("content"), log)
    if value is None or isinstance(value, str | list):
        return content_of(value, loc, log)
    return json.dumps(value, ensure_ascii=False)
