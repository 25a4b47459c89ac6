"""openJiuwen's text sanitiser: image payloads replaced by short placeholders before content is read as text (SPEC §6).

Invariant: a pure function of the content; strings without an image data URL come back unchanged (the same
object), and list content is always read as the JSON of its sanitised copy, never as its joined text parts.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: What an image data URL becomes, and what a base64 ``source.data`` payload becomes.
DATA_URL_PLACEHOLDER = "[image:data-url-omitted]"
BASE64_PLACEHOLDER = "[image:base64-omitted]"

# Data URLs hold no whitespace, so the payload class stops at the first space or newline.
_DATA_URL = re.compile(r"data:image/[^;]+;base64,[A-Za-z0-9+/=]+", re.IGNORECASE)
_URL_KEYS = frozenset({"data", "data_url", "url"})


def sanitize_string(text: str) -> str:
    """A whole data URL becomes the placeholder; else every embedded image data URL does."""
    if text.startswith("data:image/") and ";base64," in text:
        return DATA_URL_PLACEHOLDER
    # Every match holds "64," whatever its letter case: most texts are spared the regex.
    if "64," not in text:
        return text
    return _DATA_URL.sub(DATA_URL_PLACEHOLDER, text)


def replace_data_urls(text: str) -> str:
    """Every embedded image data URL becomes the placeholder (the rule for a string that is part of a longer one)."""
    return _DATA_URL.sub(DATA_URL_PLACEHOLDER, text) if "64," in text else text


def data_url_spans(text: str) -> list[tuple[int, int]]:
    """Where ``replace_data_urls`` would replace, as half-open ranges in order."""
    return [match.span() for match in _DATA_URL.finditer(text)] if "64," in text else []


def sanitize_value(value: Any) -> Any:
    """A copy of ``value`` with image payloads replaced, element by element and key by key."""
    if isinstance(value, str):
        return sanitize_string(value)
    if isinstance(value, list):
        return [sanitize_value(item) for item in value]
    if isinstance(value, dict):
        return {key: _sanitize_entry(key, item) for key, item in value.items()}
    return value


def _sanitize_entry(key: Any, value: Any) -> Any:
    if key in _URL_KEYS and isinstance(value, str) and value.startswith("data:image/"):
        return DATA_URL_PLACEHOLDER
    if key == "source" and isinstance(value, dict):
        source = dict(value)
        if source.get("type") == "base64" and isinstance(source.get("data"), str):
            source["data"] = BASE64_PLACEHOLDER
        return sanitize_value(source)
    if key == "image_url" and isinstance(value, dict):
        image_url = dict(value)
        url = image_url.get("url")
        if isinstance(url, str) and (url.startswith("data:image/") or "base64," in url):
            image_url["url"] = DATA_URL_PLACEHOLDER
        return sanitize_value(image_url)
    return sanitize_value(value)


def content_text(content: Any) -> str:
    """Content read as text: a string sanitised, anything else the JSON of its sanitised copy."""
    if isinstance(content, str):
        return sanitize_string(content)
    cleaned = sanitize_value(content)
    try:
        return json.dumps(cleaned, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(cleaned)
