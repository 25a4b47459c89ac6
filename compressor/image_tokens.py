"""What an image part costs in openJiuwen's tiktoken counter: priced by its size, never by its payload (SPEC §5).

Invariant: a pure function of the part (and of ``TIKTOKEN_IMAGE_PLACEHOLDER_TOKENS``); the payload is only ever
decoded as far as its header, and anything unreadable falls back to the flat unknown-size price.
"""

from __future__ import annotations

import base64
import binascii
import math
import os
from typing import Any

#: The operator's override: a positive whole number of tokens for every image.
OVERRIDE_ENV = "TIKTOKEN_IMAGE_PLACEHOLDER_TOKENS"
#: A ``detail: low`` image is billed flat whatever its size.
LOW_DETAIL_TOKENS = 85
#: An image whose size cannot be read (a remote URL without a stamped size, a payload we cannot sniff).
UNKNOWN_SIZE_TOKENS = 1445
# OpenAI's high-detail tiling: fit into 2048 px, shortest side to 768 px, then 85 + 170 per 512 px tile.
_FIT_LONGEST = 2048
_FIT_SHORTEST = 768
_TILE = 512
_BASE = 85
_PER_TILE = 170
# Claude's patch pricing: one token per 28×28 px patch, capped.
_PATCH = 28
_PATCH_CAP = 1568
#: Base64 characters decoded when sniffing a header (enough to step over a large EXIF block).
HEADER_CHARS = 87_360

_IMAGE_TYPES = ("image_url", "image")


def is_image_part(part: dict[str, Any]) -> bool:
    """An image part as the counter sees it: by its type, or by an ``image_url`` / ``image`` key."""
    return part.get("type") in _IMAGE_TYPES or "image_url" in part or "image" in part


def image_part_tokens(part: dict[str, Any]) -> int:
    """The tokens one image part costs."""
    override = _override()
    if override is not None:
        return override
    if _detail(part) == "low":
        return LOW_DETAIL_TOKENS
    size = image_size(part)
    if size is None:
        return UNKNOWN_SIZE_TOKENS
    return size_tokens(*size)


def size_tokens(width: int, height: int) -> int:
    """The larger of OpenAI's tile price and Claude's patch price for an image of ``width × height``."""
    w, h = float(width), float(height)
    longest = max(w, h)
    if longest > _FIT_LONGEST:
        w, h = w * _FIT_LONGEST / longest, h * _FIT_LONGEST / longest
    shortest = min(w, h)
    if shortest > _FIT_SHORTEST:
        w, h = w * _FIT_SHORTEST / shortest, h * _FIT_SHORTEST / shortest
    openai = _BASE + _PER_TILE * math.ceil(w / _TILE) * math.ceil(h / _TILE)
    claude = min(math.ceil(width / _PATCH) * math.ceil(height / _PATCH), _PATCH_CAP)
    return max(openai, claude)


def _override() -> int | None:
    raw = os.environ.get(OVERRIDE_ENV)
    if raw is None or not raw.strip():
        return None
    try:
        value = int(raw)
    except ValueError:
        return None
    return value if value > 0 else None


def _detail(part: dict[str, Any]) -> str:
    image_url = part.get("image_url")
    if isinstance(image_url, dict) and isinstance(image_url.get("detail"), str):
        return str(image_url["detail"]).lower()
    detail = part.get("detail")
    return detail.lower() if isinstance(detail, str) else "auto"


def image_size(part: dict[str, Any]) -> tuple[int, int] | None:
    """The stamped size of a part, else the size read from its base64 payload's header, else None."""
    stamped = _stamped_size(part)
    if stamped is not None:
        return stamped
    payload = _payload(part)
    if not payload:
        return None
    try:
        header = base64.b64decode(payload[:HEADER_CHARS])
    except (binascii.Error, ValueError):
        return None
    return _png_size(header) or _jpeg_size(header) or _gif_size(header)


def _stamped_size(part: dict[str, Any]) -> tuple[int, int] | None:
    width, height = part.get("width"), part.get("height")
    if isinstance(width, int) and isinstance(height, int) and width > 0 and height > 0:
        return width, height
    value = part.get("dimensions")
    pair: tuple[Any, Any] | None = None
    if isinstance(value, str) and "x" in value.lower():
        left, _, right = value.lower().partition("x")
        pair = (left, right)
    elif isinstance(value, list | tuple) and len(value) == 2:
        pair = (value[0], value[1])
    if pair is None:
        return None
    try:
        w, h = int(pair[0]), int(pair[1])
    except (TypeError, ValueError):
        return None
    return (w, h) if w > 0 and h > 0 else None


def _payload(part: dict[str, Any]) -> str | None:
    image_url = part.get("image_url")
    url = image_url.get("url") if isinstance(image_url, dict) else image_url
    if isinstance(url, str) and url.startswith("data:"):
        return url.partition("base64,")[2] or None
    source = part.get("source")
    if isinstance(source, dict) and isinstance(source.get("data"), str):
        return str(source["data"])
    return None


def _nonzero(width: int, height: int) -> tuple[int, int] | None:
    return (width, height) if width and height else None


def _png_size(data: bytes) -> tuple[int, int] | None:
    if len(data) >= 24 and data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR":
        return _nonzero(int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big"))
    return None


def _gif_size(data: bytes) -> tuple[int, int] | None:
    if len(data) >= 10 and data[:6] in (b"GIF87a", b"GIF89a"):
        return _nonzero(int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little"))
    return None


# JPEG markers that stand alone (no length field), and SOFn markers that are not frame headers.
_STANDALONE = frozenset({0xD8, 0x01, *range(0xD0, 0xD8)})
_NOT_FRAMES = frozenset({0xC4, 0xC8, 0xCC})


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    if len(data) < 4 or not data.startswith(b"\xff\xd8"):
        return None
    at = 2
    while at + 9 <= len(data):
        if data[at] != 0xFF:
            at += 1
            continue
        marker = data[at + 1]
        if marker in _STANDALONE:
            at += 2
            continue
        if 0xC0 <= marker <= 0xCF and marker not in _NOT_FRAMES:
            return _nonzero(
                int.from_bytes(data[at + 7 : at + 9], "big"), int.from_bytes(data[at + 5 : at + 7], "big")
            )
        length = int.from_bytes(data[at + 2 : at + 4], "big")
        if length < 2:
            return None
        at += 2 + length
    return None
