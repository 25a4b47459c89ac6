"""Message content as a page shows it: images and other binary payloads as a short placeholder, never verbatim.

Invariant: pure and total — any JSON value comes back as a value of the same shape in which every image part and
every data URL or long base64 string is replaced by ``[image, 18 KB]`` (or ``[data, 18 KB]``); the rest is unchanged.
"""

from __future__ import annotations

import json
import re
from typing import Any

from compressor.image_tokens import is_image_part

#: A string this long made only of base64 characters is a payload, not text.
BASE64_MIN_CHARS = 512
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]+")


def size_words(size: int) -> str:
    """A byte count in B, KB or MB, as every placeholder writes it."""
    if size >= 2**20:
        return f"{size / 2**20:.1f} MB"
    if size >= 2**10:
        return f"{round(size / 2**10):,} KB"
    return f"{size} B"


def _decoded_size(payload: str) -> int:
    return len(payload.strip()) * 3 // 4


def _payload_of(part: dict[str, Any]) -> str | None:
    image_url = part.get("image_url")
    url = image_url.get("url") if isinstance(image_url, dict) else image_url
    if isinstance(url, str) and url.startswith("data:"):
        return url.partition(",")[2]
    source = part.get("source")
    if isinstance(source, dict) and isinstance(source.get("data"), str):
        return str(source["data"])
    for key in ("data", "image"):
        if isinstance(part.get(key), str):
            return str(part[key])
    return None


def image_placeholder(part: dict[str, Any]) -> str:
    """``[image, 18 KB]`` for an image part (``[image]`` when it only links to one)."""
    payload = _payload_of(part)
    if payload is None or payload.startswith(("http://", "https://")):
        return "[image]"
    return f"[image, {size_words(_decoded_size(payload))}]"


def _string(text: str) -> str:
    if text.startswith("data:") and "," in text[:200]:
        kind = "image" if text.startswith("data:image/") else "data"
        return f"[{kind}, {size_words(_decoded_size(text.partition(',')[2]))}]"
    if len(text) >= BASE64_MIN_CHARS and " " not in text[:BASE64_MIN_CHARS] and _BASE64.fullmatch(text):
        return f"[data, {size_words(_decoded_size(text))}]"
    return text


def readable(value: object) -> object:
    """``value`` with every image part and binary payload replaced by its placeholder."""
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, dict):
        if is_image_part(value):
            return (
                {"type": "text", "text": image_placeholder(value)}
                if "type" in value
                else image_placeholder(value)
            )
        return {key: readable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [readable(item) for item in value]
    return value


def readable_text(content: object) -> str:
    """Message content as one text: strings as they are, list parts joined, images as placeholders."""
    shown = readable(content)
    if isinstance(shown, str):
        return shown
    pieces: list[str] = []
    for part in shown if isinstance(shown, list) else [shown]:
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            pieces.append(part["text"])
        else:
            pieces.append(_flat(part))
    return "\n".join(pieces)


def _flat(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
