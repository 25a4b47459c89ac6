"""Gemini API ``Content`` parts (``text``, ``thought``, ``functionCall``, ``functionResponse``, ``inlineData``…) as our
message fields, for the readers of Gemini CLI sessions and of Qwen Code (a Gemini CLI fork) records.

Invariant: parts are only read; a call without an id gets a stable one and a response without an id answers the
oldest open call of its name (as Gemini CLI's ``ensureStableToolIds`` pairs them), so pairing never guesses twice.

Schema: ``@google/genai`` ``Part`` / ``PartListUnion`` (a string, one part or a list of parts and strings), as
google-gemini/gemini-cli ``packages/core/src/utils/sessionUtils.ts`` reads them back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from compressor.formats.problems import FormatProblem, Loc, short, type_name
from compressor.formats.session_log import token_count


@dataclass
class Parts:
    """One ``Content``'s parts sorted by what they are."""

    texts: list[str] = field(default_factory=list)
    thoughts: list[str] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)  # {"id"?, "name", "args"}
    responses: list[dict[str, Any]] = field(default_factory=list)  # {"id"?, "name", "response"}
    other: list[dict[str, Any]] = field(default_factory=list)  # content parts for media and unknown parts

    def content(self) -> str | list[dict[str, Any]]:
        """Text (and media) as message content: plain text when there is no media."""
        if not self.other:
            return "\n".join(self.texts)
        return [*({"type": "text", "text": text} for text in self.texts), *self.other]


def part_list(value: Any, loc: Loc) -> list[Any]:
    """A ``PartListUnion`` as a list of parts (a string is one text part)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [{"text": value}]
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list):
        return [{"text": item} if isinstance(item, str) else item for item in value]
    raise FormatProblem(loc, f"must be text or a list of parts, got {type_name(value)}")


def split(value: Any, loc: Loc) -> Parts:
    out = Parts()
    for index, part in enumerate(part_list(value, loc)):
        where = loc.key(index)
        if not isinstance(part, dict):
            raise FormatProblem(where, f"a part must be an object or a string, got {type_name(part)}")
        if isinstance(part.get("functionCall"), dict):
            call = part["functionCall"]
            if not isinstance(call.get("name"), str) or not call["name"]:
                raise FormatProblem(where.key("functionCall"), "missing name")
            out.calls.append(call)
        elif isinstance(part.get("functionResponse"), dict):
            out.responses.append(part["functionResponse"])
        elif isinstance(part.get("text"), str):
            (out.thoughts if part.get("thought") is True else out.texts).append(part["text"])
        elif isinstance(part.get("inlineData"), dict):
            out.other.append(_media(part["inlineData"]))
        elif part:
            out.other.append({key: item for key, item in part.items() if key != "thoughtSignature"})
    return out


def _media(data: dict[str, Any]) -> dict[str, Any]:
    mime = data.get("mimeType")
    payload = data.get("data")
    if isinstance(mime, str) and mime.startswith("image/") and isinstance(payload, str):
        # The shape the token counters price as an image (size read from the payload).
        return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": payload}}
    return {"type": "inline_data", "mimeType": mime}  # other media: the bytes are left out


def response_text(response: dict[str, Any]) -> str:
    """What a ``functionResponse`` told the model: its ``output`` (or ``error``) text, else its JSON."""
    body = response.get("response")
    if isinstance(body, dict):
        for key in ("output", "error", "content"):
            if isinstance(body.get(key), str):
                return str(body[key])
    if isinstance(body, str):
        return body
    return json.dumps(body, ensure_ascii=False) if body is not None else ""


class CallIds:
    """Ids for calls and the calls their responses answer, across one conversation."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.open: dict[str, list[str]] = {}  # name → ids of calls not yet answered, oldest first
        self.count = 0

    def call(self, call: dict[str, Any]) -> str:
        call_id = call.get("id")
        if not isinstance(call_id, str) or not call_id:
            self.count += 1
            call_id = f"{self.prefix}_{call['name']}_{self.count}"
        self.open.setdefault(str(call["name"]), []).append(call_id)
        return call_id

    def response(self, response: dict[str, Any], fallback: Any = None) -> str | None:
        """The id of the call a response answers (its own id, ``fallback``, else the oldest open call of its name)."""
        name = str(response.get("name"))
        for candidate in (response.get("id"), fallback):
            if isinstance(candidate, str) and candidate:
                if candidate in self.open.get(name, ()):
                    self.open[name].remove(candidate)
                return candidate
        oldest = self.open.get(name)
        return oldest.pop(0) if oldest else None


def tool_call(call_id: str, call: dict[str, Any]) -> dict[str, Any]:
    args = call.get("args")
    arguments = json.dumps(args if args is not None else {}, ensure_ascii=False)
    return {"id": call_id, "type": "function", "name": call["name"], "arguments": arguments}


def check_counts(tokens: Any, loc: Loc) -> dict[str, Any]:
    """A ``usageMetadata`` object whose ``…Count`` fields are numbers (or null)."""
    if not isinstance(tokens, dict):
        raise FormatProblem(loc, f"expected a usage object (a JSON object), got {type_name(tokens)}")
    for key, value in tokens.items():
        if key.endswith("Count") and value is not None and token_count(value) is None:
            raise FormatProblem(loc.key(key), f"must be a number, got {type_name(value)} {short(value)}")
    return tokens


def usage(tokens: dict[str, Any]) -> dict[str, Any] | None:
    """``usage_metadata`` from Gemini's usage counts (``GenerateContentResponseUsageMetadata`` names).

    ``totalTokenCount`` is the whole call (prompt + candidates + thoughts + tool-use prompt), so the window it
    filled; without it, prompt + candidates + thoughts.
    """
    prompt = token_count(tokens.get("promptTokenCount"))
    if prompt is None:
        return None
    total = token_count(tokens.get("totalTokenCount")) or prompt + sum(
        token_count(tokens.get(key)) or 0 for key in ("candidatesTokenCount", "thoughtsTokenCount")
    )
    out = {"input_tokens": prompt, "output_tokens": token_count(tokens.get("candidatesTokenCount")) or 0}
    for key, name in (
        ("cachedContentTokenCount", "cached_tokens"),
        ("thoughtsTokenCount", "reasoning_tokens"),
    ):
        if token_count(tokens.get(key)):
            out[name] = token_count(tokens.get(key)) or 0
    return {**out, "total_tokens": total}
