"""The pieces of a Copilot Chat request as the model reads them: prompt-tsx content parts and JSON trees, persisted
tool results, a reply's markdown, a round's thinking, and the token counts a request may hold.

Invariant: each function reads only the value it is given and returns text, chat parts or usage, or raises a
FormatProblem at the offending field; token counts are finite and plausible before they are used.

Schema: microsoft/vscode-prompt-tsx ``src/base/output/rawTypes.ts`` (``ChatCompletionContentPartKind``) and
``src/base/jsonTypes.ts`` (``PromptNodeType``, ``TextJSON.lineBreakBefore``); microsoft/vscode
``src/vs/base/common/marshallingIds.ts`` (a persisted ``LanguageModelToolResult`` and its parts, each a
``{"$mid", "value"}`` object) and ``chatModel.ts`` (``SerializedChatResponsePart``, ``promptTokens``/
``completionTokens``); microsoft/vscode-copilot-chat ``src/extension/prompt/common/toolCallRound.ts`` (``usage``:
``APIUsage``) and ``prompts/node/panel/toolCalling.tsx`` (``PrimitiveToolResult``).
"""

from __future__ import annotations

from typing import Any

from compressor.formats.building import check_usage, token_count
from compressor.formats.problems import FormatProblem, Loc, expect_dict, expect_list, type_name
from compressor.formats.tally import Tally

#: What Copilot sends for a tool result with no content (``IfEmpty alt``).
EMPTY_RESULT = "(empty)"
#: prompt-tsx's raw content part kinds (``ChatCompletionContentPartKind``).
RAW_IMAGE, RAW_TEXT = 0, 1
#: prompt-tsx's JSON node kinds (``PromptNodeType``).
TSX_PIECE, TSX_TEXT = 1, 2


def round_usage(usage: Any, loc: Loc) -> dict[str, Any] | None:
    """A round's ``APIUsage`` (OpenAI's: the prompt counts cached tokens too) as ``usage_metadata``."""
    if usage is None:
        return None
    usage = check_usage(usage, loc)
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if prompt is None or completion is None:
        return None
    out = {"input_tokens": int(prompt), "output_tokens": int(completion)}
    total = usage.get("total_tokens")
    out["total_tokens"] = int(total) if total is not None else out["input_tokens"] + out["output_tokens"]
    details = usage.get("prompt_tokens_details")
    if isinstance(details, dict):
        cached = check_usage(details, loc.key("prompt_tokens_details")).get("cached_tokens")
        if cached is not None:
            out["cached_tokens"] = int(cached)
    return out


def turn_usage(request: dict[str, Any], metadata: dict[str, Any], loc: Loc) -> dict[str, Any] | None:
    """The turn's own counts: Copilot's ``promptTokens``/``outputTokens``, else VS Code's newer ones."""
    where = loc.key("result").key("metadata")
    for holder, at, output in ((metadata, where, "outputTokens"), (request, loc, "completionTokens")):
        prompt = token_count(holder.get("promptTokens"), at.key("promptTokens"))
        completion = token_count(holder.get(output), at.key(output))
        if prompt is not None and completion is not None:
            return {"input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion}
    return None


def raw_parts(parts: Any, loc: Loc) -> list[Any]:
    """prompt-tsx raw content parts as chat parts: text and images; cache breakpoints and opaque parts go."""
    if isinstance(parts, str):
        return [{"type": "text", "text": parts}]
    out: list[Any] = []
    for index, part in enumerate(expect_list(parts, loc, "content parts")):
        part = expect_dict(part, loc.key(index), "a content part")
        kind = part.get("type")
        if kind == RAW_TEXT and isinstance(part.get("text"), str):
            out.append({"type": "text", "text": part["text"]})
        elif kind == RAW_IMAGE and isinstance(part.get("imageUrl"), dict):
            out.append({"type": "image_url", "image_url": dict(part["imageUrl"])})
    return out


def tsx_text(node: Any, depth: int = 0) -> str:
    """The text of a prompt-tsx JSON tree, as the model reads it."""
    if not isinstance(node, dict) or depth > 60:
        return ""
    if node.get("type") == TSX_TEXT:
        text = node.get("text")
        if not isinstance(text, str):
            return ""
        return ("\n" + text) if node.get("lineBreakBefore") is True else text
    children = node.get("children")
    if node.get("type") != TSX_PIECE or not isinstance(children, list):
        return ""
    return "".join(tsx_text(child, depth + 1) for child in children)


def result_text(result: Any, loc: Loc, tally: Tally) -> str:
    """A persisted ``LanguageModelToolResult`` as the text Copilot sends for it."""
    result = expect_dict(result, loc, "a tool result")
    content = result.get("content")
    pieces: list[str] = []
    for index, part in enumerate(
        expect_list(content if content is not None else [], loc.key("content"), "parts")
    ):
        value = part.get("value") if isinstance(part, dict) else None
        if isinstance(value, str):
            pieces.append(value)
        elif isinstance(value, dict) and isinstance(value.get("node"), dict):
            pieces.append(tsx_text(value["node"]))
        elif isinstance(part, dict) and "mimeType" in part:
            tally.add("lines_skipped", detail="tool-result data parts (images, binary), not read")
        elif not isinstance(part, dict):
            raise FormatProblem(
                loc.key("content").key(index), f"a result part must be an object, got {type_name(part)}"
            )
    text = "\n".join(piece for piece in pieces if piece)
    return text if text else EMPTY_RESULT


def markdown(response: Any) -> str:
    """A reply's markdown: its markdown parts (``IMarkdownString``, or ``markdownContent``) in order."""
    if isinstance(response, str):
        return response
    texts: list[str] = []
    for part in response if isinstance(response, list) else ():
        if not isinstance(part, dict):
            continue
        kind = part.get("kind")
        holder = part.get("content") if kind in ("markdownContent", "markdownVuln") else part
        if (
            (kind is None or holder is not part)
            and isinstance(holder, dict)
            and isinstance(holder.get("value"), str)
        ):
            texts.append(holder["value"])
    return "".join(texts)


def thinking(thinking: Any) -> str:
    text = thinking.get("text") if isinstance(thinking, dict) else None
    if isinstance(text, list):
        return "".join(piece for piece in text if isinstance(piece, str))
    return text if isinstance(text, str) else ""
