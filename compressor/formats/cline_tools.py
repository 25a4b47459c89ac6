"""How Cline (and its forks Roo Code and Kilo Code) write tool use and tool results as text, and how to read them
back.

Invariant: pure text functions; a result header names the tool it answers, and a tool use written as XML in the
assistant's text is found by that name and taken out of the text exactly once.

Source: cline/cline ``src/core/task/tools/utils/ToolResultUtils.ts`` (``pushToolResult``: a text block
``"[<tool> for '<arg>'] Result:"``, the result in the same block in newer versions, in the next blocks in older
ones), each handler's ``getDescription`` (``[read_file for 'path']``, ``[attempt_completion]``…), the
"Tool [x] was not executed…" / "Skipping tool [x]…" notices of ``src/core/Cline.ts`` (v3.8), and the XML tool
format of its system prompt (``<read_file>\\n<path>…</path>\\n</read_file>``). Roo Code / Kilo Code
(``src/core/prompts/responses.ts``) answer a denied or approved tool with a JSON object whose ``feedback`` is the
person's words (``{"status": "denied", "feedback": …}``), and put words inside results in ``<user_message>``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_TOOL = r"[A-Za-z_][\w.:-]*"
#: A tool result sent back as user text, or a notice that a tool use was not run (both answer a tool use).
TOOL_RESULT = re.compile(
    rf"\[(?P<result>{_TOOL})(?: for '.*?')?(?: in '.*?')?\] Result:"
    rf"|Tool \[(?P<not_run>{_TOOL})(?: for '.*?')?\] was (?:not executed|interrupted and not executed)"
    rf"|Skipping tool \[(?P<skipped>{_TOOL})(?: for '.*?')?\] due to user rejecting",
    re.DOTALL,
)
#: Tags Cline puts around what the person typed (its own marker list for user content).
USER_TAGS = ("<answer>", "<feedback>", "<user_message>")
#: The statuses of Roo's JSON answers that carry the person's ``feedback`` (tool denied, approved, guidance).
_FEEDBACK_STATUSES = ("denied", "approved", "guidance")
_USER_TAG_LINE = re.compile(r"^(?:<answer>|<feedback>|<user_message>)", re.MULTILINE)
#: Openings of the text Cline adds when the person answered a tool with words of their own.
USER_LEADS = (
    "The user denied this operation and provided the following feedback:",
    "The user provided the following feedback:",
    "The user has provided feedback on the results.",
    "The user provided feedback on the condensed conversation summary:",
    "The user provided additional content:",
    *USER_TAGS,
)
#: Tools whose result is the person's reply (an answer, feedback after completion, a plan-mode message).
INTERACTIVE_TOOLS = (
    "ask_followup_question",
    "plan_mode_respond",
    "attempt_completion",
    "condense",
    "new_task",
)
#: Tools whose result carries a summary that replaced the history: Cline's own compaction.
COMPACTION_TOOLS = ("summarize_task", "condense")
#: How Cline's continuation prompt opens (``continuationPrompt`` in ``src/core/prompts/contextManagement.ts``).
CONTINUATION = "This session is being continued from a previous conversation that ran out of context."
#: Parameters whose value may itself hold XML: their closing tag is the last one before the tool's.
_FREE_TEXT_PARAMS = ("content", "diff")
_PARAM = re.compile(r"<([A-Za-z_]\w*)>(.*?)</\1>", re.DOTALL)


def result_tool(text: str) -> str | None:
    """The tool a result (or not-run notice) answers, when ``text`` starts with one."""
    found = TOOL_RESULT.match(text.lstrip())
    if found is None:
        return None
    return found.group("result") or found.group("not_run") or found.group("skipped")


def starts_user_words(text: str) -> bool:
    return text.lstrip().startswith(USER_LEADS)


def split_user_words(tool: str, text: str) -> tuple[str, str]:
    """A result's text split into (what the tool returned, what the person wrote).

    Only an interactive tool's result holds the person's words anywhere (after its header); any other result holds
    them only when the text after its header opens with one of Cline's user-content lines.
    """
    rest, words = _json_feedback(text)
    if words:
        return rest, words
    header = TOOL_RESULT.match(text.lstrip())
    offset = len(text) - len(text.lstrip())
    body_start = offset + (header.end() if header else 0)
    body = text[body_start:]
    if starts_user_words(body):
        cut = body_start + (len(body) - len(body.lstrip()))
        return text[:cut].rstrip(), text[cut:]
    if tool in INTERACTIVE_TOOLS:
        found = _USER_TAG_LINE.search(text, body_start)
        if found is not None:
            return text[: found.start()].rstrip(), text[found.start() :]
    return text, ""


def _json_feedback(text: str) -> tuple[str, str]:
    """Roo's ``{"status": …, "feedback": …}`` answer split into (the answer without the words, the words)."""
    stripped = text.lstrip()
    if not stripped.startswith('{"status"'):
        return text, ""
    try:
        value, end = json.JSONDecoder().raw_decode(stripped)
    except ValueError:
        return text, ""
    if not isinstance(value, dict) or value.get("status") not in _FEEDBACK_STATUSES:
        return text, ""
    words = value.get("feedback")
    if not isinstance(words, str) or not words.strip():
        return text, ""
    rest = {key: item for key, item in value.items() if key != "feedback"}
    answer = json.dumps(rest, ensure_ascii=False, separators=(",", ":"))  # as JSON.stringify writes it
    return answer + stripped[end:], words


@dataclass(frozen=True)
class TextCall:
    """A tool use found in assistant text: its span there, and its parameters."""

    name: str
    start: int
    end: int
    params: dict[str, str]

    def arguments(self) -> str:
        return json.dumps(self.params, ensure_ascii=False)


def find_call(text: str, name: str, start: int = 0) -> TextCall | None:
    """The first ``<name>…</name>`` tool use in ``text`` at or after ``start``."""
    opening = f"<{name}>"
    begin = text.find(opening, start)
    if begin < 0:
        return None
    closing = f"</{name}>"
    end = text.find(closing, begin)
    if end < 0:
        return None
    body_start = begin + len(opening)
    for param in _FREE_TEXT_PARAMS:
        value_at = text.find(f"<{param}>", body_start, end)
        if value_at >= 0 and text.find(f"</{param}>", value_at, end) < 0:
            # the value holds the tool's own closing tag (a file about Cline?): close after the value instead
            value_end = text.find(f"</{param}>", end)
            later = text.find(closing, value_end) if value_end >= 0 else -1
            end = later if later >= 0 else end
    params = {match.group(1): _trimmed(match.group(2)) for match in _PARAM.finditer(text, body_start, end)}
    return TextCall(name=name, start=begin, end=end + len(closing), params=params)


def _trimmed(value: str) -> str:
    return value.removeprefix("\n").removesuffix("\n")


def continuation_summary(text: str) -> str | None:
    """The summary inside Cline's continuation prompt, or None when ``text`` holds none."""
    at = text.find(CONTINUATION)
    if at < 0:
        return None
    rest = text[at + len(CONTINUATION) :]
    rest = rest.split("The conversation is summarized below:", 1)[-1]
    end = rest.find("\nPlease continue the conversation from where we left it off")
    return (rest if end < 0 else rest[:end]).strip().removesuffix(".").strip()
