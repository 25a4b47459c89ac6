"""The content of Pydantic AI request parts as its OpenAI Chat mapping sends it: user content (text, files), a tool's
result with the files it returns, and the retry text it words.

Invariant: text is what Pydantic AI sends (``messages.py`` ``model_response_str_and_user_content``,
``RetryPromptPart.model_response``); a file whose bytes are not read is a placeholder naming it, never dropped.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any, TypeGuard

from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, short, type_name
from compressor.formats.session_log import SessionLog

RETRY_TAIL = "\n\nFix the errors and try again."
#: Items of user content that are files (``MultiModalContent``), by ``kind``.
FILE_KINDS = ("image-url", "audio-url", "document-url", "video-url", "binary", "uploaded-file")
#: Media types Pydantic AI inlines as text rather than send as a file.
TEXT_LIKE = ("text/", "application/json", "application/xml", "application/yaml")


def compact(value: Any) -> str:
    """JSON as pydantic_core's ``to_json`` writes it: no spaces, non-ASCII kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _identifier(item: dict[str, Any]) -> str:
    """The file's ``identifier`` (written beside it), else Pydantic AI's default: six hex digits of a sha1."""
    named = item.get("identifier")
    if isinstance(named, str) and named:
        return named
    source = item.get("url") or item.get("file_id") or item.get("data") or ""
    data = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else b""
    if item.get("kind") == "binary" and isinstance(source, str):
        data = _decoded(source) or data
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()[:6]


def _decoded(data: str) -> bytes | None:
    """Base64 bytes as Pydantic AI writes them (``ser_json_bytes='base64'``), or None when they are not."""
    try:
        return base64.b64decode(data, validate=True)
    except ValueError:  # binascii.Error is one
        return None


def _file_part(item: dict[str, Any], loc: Loc) -> dict[str, Any]:
    """One file as a content part: an image as ``image_url`` (a data URL for bytes), text-like bytes as text,
    anything else a placeholder naming it (its bytes are not priced here)."""
    kind = item["kind"]
    media = item.get("media_type")
    media = media if isinstance(media, str) else ""
    detail = (
        item.get("vendor_metadata", {}).get("detail")
        if isinstance(item.get("vendor_metadata"), dict)
        else None
    )
    if kind == "image-url" and isinstance(item.get("url"), str):
        image: dict[str, Any] = {"url": item["url"]}
        return {"type": "image_url", "image_url": {**image, "detail": detail} if detail else image}
    if kind == "binary":
        data = item.get("data")
        if not isinstance(data, str):
            raise FormatProblem(loc.key("data"), f"must be a base64 string, got {type_name(data)}")
        if media.startswith("image/"):
            image = {"url": f"data:{media};base64,{data}"}
            return {"type": "image_url", "image_url": {**image, "detail": detail} if detail else image}
        if media.startswith(TEXT_LIKE):
            raw = _decoded(data)
            text = raw.decode("utf-8", "replace") if raw is not None else None
            if text is not None:
                return {"type": "text", "text": text}
    return {"type": "text", "text": f"[Attached {media or kind}: {_identifier(item)}]"}


def user_content(content: Any, loc: Loc, log: SessionLog) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    items = expect_list(content, loc, "user content")
    parts: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        where = loc.key(index)
        if isinstance(item, str):
            parts.append({"type": "text", "text": item})
            continue
        item = expect_dict(item, where, "user content")
        kind = item.get("kind")
        if kind == "text-content":
            text = item.get("content")
            if not isinstance(text, str):
                raise FormatProblem(where.key("content"), f"must be a string, got {type_name(text)}")
            parts.append({"type": "text", "text": text})
        elif kind in FILE_KINDS:
            parts.append(_file_part(item, where))
        elif kind != "cache-point":  # a cache point marks where a provider may cache, it is no content
            log.skip(f"{short(kind)} user content (a kind this reader does not know)")
    if all(part["type"] == "text" for part in parts):
        return "\n".join(part["text"] for part in parts)
    return parts


def _is_file(item: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(item, dict) and item.get("kind") in FILE_KINDS


def tool_return(part: dict[str, Any], loc: Loc) -> tuple[str, list[dict[str, Any]]]:
    """A tool result's text (``model_response_str_and_user_content``) and the files it sends after it."""
    content = part.get("content")
    failed = part.get("outcome") == "failed"
    was_list = isinstance(content, list)
    items = content if isinstance(content, list) else [content]
    data = [item for item in items if not _is_file(item)]
    files: list[dict[str, Any]] = [item for item in items if _is_file(item)]
    value = data[0] if len(data) == 1 and (not was_list or files) else data if data else None
    text = "" if value is None else value if isinstance(value, str) else compact(value)
    if not files:
        return (compact({"error": text}) if failed else text), []
    pieces: list[str] = []
    sent: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        if _is_file(item):
            name = _identifier(item)
            pieces.append(f"See file {name}.")
            sent += [{"type": "text", "text": f"This is file {name}:"}, _file_part(item, loc.key(index))]
        else:
            pieces.append(item if isinstance(item, str) else compact(item))
    if failed:
        references = [f"See file {_identifier(item)}." for item in files]
        return compact([{"error": text}, *references]), sent
    return (compact(pieces) if was_list else pieces[0]), sent


def retry_text(part: dict[str, Any]) -> str:
    """What Pydantic AI tells the model when it asks for a retry (``RetryPromptPart.model_response``)."""
    content, tool = part.get("content"), part.get("tool_name")
    if isinstance(content, str):
        description = content if tool else f"Validation feedback:\n{content}"
    elif isinstance(content, list):
        errors = []
        for error in content:
            if isinstance(error, dict):
                loc = error.get("loc")
                short_loc = not tool and isinstance(loc, list) and len(loc) <= 1
                error = {k: v for k, v in error.items() if k != "ctx" and not (short_loc and k == "input")}
            errors.append(error)
        plural = "s" if len(errors) != 1 else ""
        listed = json.dumps(errors, ensure_ascii=False, indent=2)
        description = f"{len(errors)} validation error{plural}:\n```json\n{listed}\n```"
    else:
        description = "" if content is None else compact(content)
    return description + RETRY_TAIL
