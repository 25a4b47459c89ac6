"""Agent-run datasets kept a row a run, the run's messages in a ``trajectory`` column, or in ``messages`` as JSON
text or beside a run id (Parquet files on the Hugging Face Hub, or the same rows as JSONL): OpenHands and SWE-agent
runs as chat messages, SWE-agent runs as ``{role, text}`` turns. A ``messages`` list with no run id beside it is a
plain conversation (``chat``'s numbered reader).

Invariant: a row is one conversation, named by its place and its ``instance_id`` (else ``trajectory_id``); a JSON
text column is decoded here, by the reader, bounded in depth as any file is; the row's run fields (instance,
model, exit status, resolved) are its metadata (a SWE-agent row's agent ``swe-agent``; a chat row names none: the
column is not OpenHands' alone); nothing but that one column is read as messages.

Schema, from the dataset cards (``dataset_info``): nebius/SWE-rebench-openhands-trajectories (``trajectory_id``,
``instance_id``, ``repo``, ``trajectory: list<{role, content, name, tool_call_id, tool_calls: list<{id, type,
function: {name, arguments}}>}>``, ``tools``, ``model_patch``, ``exit_status``, ``resolved``, …; its "How to use" keeps
a system or user message's role and content, an assistant's tool calls, a tool message's name and call id, and
reads each call's ``arguments`` as JSON text) and nvidia/SWE-Zero-openhands-trajectories (the same ``trajectory``,
no ``tools``); togethercomputer/CoderForge-Preview (``trajectory_id``, ``finish_reason``, ``image``, ``messages``
and ``tools`` as JSON text of the same chat messages and tool definitions, ``reward``, ``license``);
nebius/SWE-agent-trajectories (``instance_id``, ``model_name``, ``target``, ``trajectory:
list<{role, text, mask, system_prompt, cutoff_date}>``, ``exit_status``, ``generated_patch``, ``eval_logs``). The card
lists that last one's fields only: its roles ``system``, ``user`` and ``ai``, the system prompt in ``system_prompt``
(``text`` null), the command the model's fenced block (SWE-agent without function calling) are as real rows hold
them (the rows neulab/agent-data-protocol keeps as ``datasets/nebius_SWE-agent-trajectories/sample_raw.json``).

Roles. Chat rows: a Parquet struct holds every field on every message, so a null field is one the message does not
have; the first user message is the task, a later one the harness's (OpenHands' continue prompt): internal. A
result without a call id (real SWE-Zero rows hold only ``content``, ``role`` and ``tool_calls``, as the rows
neulab/agent-data-protocol keeps in ``datasets/nvidia_SWE-Zero-openhands-trajectories/sample_raw.json`` show)
answers the oldest call before it that no result has answered (reading ``tool_results_paired_by_order``). A user
message opening ``OBSERVATION:`` right after a reply with no tool call is SWE-agent's observation of the action the
reply wrote as text (SWE-smith's ``xml`` and ``ticks`` rows, ``messages`` as JSON text: its maintainer in
SWE-bench/SWE-smith issue #58, the real rows in neulab/agent-data-protocol's ``datasets/swe-smith/sample_raw.json``):
a ``tool`` result of a call ``text-<n>`` the reply gets, named by its ``<function=…>`` or its fenced command's first
word (readings ``tool_calls_from_text``, ``tool_results_from_user_text``; the action stays in the text, the call's
arguments are empty, so nothing is counted twice). SWE-agent
rows are read as a text trajectory (``swe_agent_text``): the ``ai`` turn's last fenced block is its command, the user
turn after it that command's observation, the first user turn the request. No usage in either (windows counted).
"""

from __future__ import annotations

import json
import re
from typing import Any

from compressor.formats import swe_agent_text
from compressor.formats.building import build_conversation, build_tools
from compressor.formats.chat import convert_messages, message_format
from compressor.formats.problems import ROLE_CHOICES, FormatProblem, Loc, expect_dict, short
from compressor.formats.shape import Reader, Shape
from compressor.formats.source import MAX_DEPTH, check_depth
from compressor.formats.tally import Tally
from compressor.messages import ROLES, Conversation

SOURCE_FORMAT = "trajectory-rows"
#: Row fields kept in the metadata (the long ones, patches and evaluation logs, are not).
ROW_FIELDS = (
    "instance_id",
    "trajectory_id",
    "traj_id",
    "repo",
    "dataset",
    "exit_status",
    "resolved",
    "target",
    "gen_tests_correct",
    "pred_passes_gen_tests",
    "reward",
    "finish_reason",
)
#: Where a row names its model (nebius's SWE-agent rows: ``model_name``).
MODEL_FIELDS = ("model", "model_name")
#: Every column a row is read from (the messages, the tools, the run's fields): a dataset's other columns (patches,
#: evaluation logs, test output) are never read, so a Parquet file's need not be fetched (parquet.ROW_COLUMNS).
COLUMNS = ("trajectory", "messages", "tools", *ROW_FIELDS, *MODEL_FIELDS)
#: Columns that may hold a run's messages as JSON text (togethercomputer/CoderForge-Preview keeps ``messages`` so).
JSON_COLUMNS = ("trajectory", "messages")
#: What names a row's run, first found first.
NAME_FIELDS = ("instance_id", "trajectory_id", "traj_id")
#: The SWE-agent rows' roles, as the chat roles they are.
TEXT_ROLES = {"system": "system", "user": "user", "ai": "assistant"}
#: A fenced block the model wrote: its command is the last one (SWE-agent's thought-action output).
_FENCED = re.compile(r"```[A-Za-z]*[ \t]*\n(.*?)```", re.S)
#: A function call written as text (SWE-agent's xml_function_calling output: ``<function=bash>``).
_FUNCTION = re.compile(r"<function=([\w.-]+)>")
#: How SWE-agent's observation template opens a user message (the real SWE-smith rows' observations).
OBSERVATION = "OBSERVATION:"


def _run(row: Any, loc: Loc) -> tuple[str, list[Any]] | None:
    """The column holding the row's messages and the messages, a JSON column's text decoded; None when the row
    holds none (a JSON text that does not decode is a FormatProblem)."""
    if not isinstance(row, dict):
        return None
    if isinstance(row.get("trajectory"), list):
        return "trajectory", row["trajectory"]
    if isinstance(row.get("messages"), list) and any(isinstance(row.get(key), str) for key in NAME_FIELDS):
        return "messages", row["messages"]  # a run's row (SWE-smith's first upload), not a bare conversation
    for column in JSON_COLUMNS:
        text = row.get(column)
        if not isinstance(text, str) or not text.lstrip().startswith("["):
            continue
        try:
            value = json.loads(text)
        except RecursionError:
            raise FormatProblem(loc.key(column), f"nested deeper than {MAX_DEPTH} levels") from None
        except ValueError as error:
            raise FormatProblem(loc.key(column), f"is not JSON text ({error})") from None
        check_depth(value, loc.key(column))
        return (column, value) if isinstance(value, list) else None
    return None


def _dialect(run: tuple[str, list[Any]] | None) -> str | None:
    """Which messages a run holds ("chat" or "text") by its first, or None when it is not such a run (SWE-agent's
    turns come only as a ``trajectory`` list)."""
    first = run[1][0] if run and run[1] else None
    if run is None or not isinstance(first, dict) or not isinstance(first.get("role"), str):
        return None
    if "content" in first:
        return "chat"
    if "text" in first and run[0] == "trajectory":
        return "text"
    return None


def looks_like(shape: Shape) -> bool:
    if shape.container == "object" or not shape.objects:
        return False
    try:
        return _dialect(_run(shape.objects[0], Loc())) is not None
    except FormatProblem:
        return False


def _present(message: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in message.items() if value is not None}


def _chat(row: dict[str, Any], run: tuple[str, list[Any]], loc: Loc, name: str) -> Conversation:
    where = loc.key(run[0])
    tally = Tally()
    located: list[tuple[Loc, dict[str, Any]]] = []
    asked = False
    waiting: list[Any] = []  # the ids of the calls before, no result has answered yet
    from_text = 0
    for index, item in enumerate(run[1]):
        at = where.key(index)
        message = _present(expect_dict(item, at, "a message"))
        if message.get("role") not in ROLES:
            raise FormatProblem(
                at.key("role"),
                f"unknown role {short(message.get('role'))} (expected {ROLE_CHOICES})",
            )
        if message.get("tool_calls"):
            message["tool_calls"] = [
                _present(call) for call in message["tool_calls"] if isinstance(call, dict)
            ]
        elif "tool_calls" in message:
            del message["tool_calls"]
        if message["role"] == "assistant":
            waiting = [call.get("id") for call in message.get("tool_calls", ())]
        elif message["role"] == "tool":
            if message.get("tool_call_id") in waiting:
                waiting.remove(message["tool_call_id"])
            elif "tool_call_id" not in message and waiting:
                # SWE-Zero's rows keep no call id on a result: results follow their calls in order
                message["tool_call_id"] = waiting.pop(0)
                tally.add("tool_results_paired_by_order")
        if message["role"] == "user" and _observes(located, message):
            # SWE-agent without function calling (SWE-smith's xml and ticks rows): the reply wrote its action as text
            from_text += 1
            call_id = f"text-{from_text}"
            reply = located[-1][1]
            reply["tool_calls"] = [
                {
                    "id": call_id,
                    "type": "function",
                    "name": _action_name(reply.get("content")),
                    "arguments": "{}",
                }
            ]
            tally.add("tool_calls_from_text")
            tally.add("tool_results_from_user_text")
            message = {"role": "tool", "tool_call_id": call_id, "content": message.get("content", "")}
        elif message["role"] == "user":
            if asked:
                message["internal"] = True
                tally.add("internal_user_turns")
            asked = True
        located.append((at, message))
    anthropic_blocks = message_format(message for _, message in located) == "anthropic"
    messages = convert_messages(located, anthropic_blocks=anthropic_blocks)
    tools = build_tools(
        _tools(_decoded_tools(row.get("tools"), loc.key("tools")), loc.key("tools")), loc.key("tools")
    )
    conversation = build_conversation(messages, tools, name=name, source_format=SOURCE_FORMAT, loc=where)
    return conversation.model_copy(update={"readings": [*conversation.readings, *tally.readings()]})


def _observes(located: list[tuple[Loc, dict[str, Any]]], message: dict[str, Any]) -> bool:
    """A user message that is SWE-agent's observation (its template opens with ``OBSERVATION:``) of the action the
    reply before it wrote as text (no tool call)."""
    before = located[-1][1] if located else None
    content = message.get("content")
    return (
        before is not None
        and before.get("role") == "assistant"
        and not before.get("tool_calls")
        and isinstance(content, str)
        and content.lstrip().startswith(OBSERVATION)
    )


def _action_name(content: Any) -> str:
    """The tool an action written as text names: ``<function=name>`` (xml), else the fenced command's first word."""
    text = content if isinstance(content, str) else ""
    functions = _FUNCTION.findall(text)
    if functions:
        return str(functions[-1])
    commands = [command.split() for command in _FENCED.findall(text)]
    return commands[-1][0] if commands and commands[-1] else "action"


def _decoded_tools(value: Any, loc: Loc) -> Any:
    """A ``tools`` column kept as JSON text (CoderForge's) decoded; any other value as it is."""
    if not isinstance(value, str):
        return value
    try:
        decoded = json.loads(value)
    except (ValueError, RecursionError):
        raise FormatProblem(loc, "is not JSON text holding tool definitions") from None
    check_depth(decoded, loc)
    return decoded


def _tools(value: Any, loc: Loc) -> Any:
    """Tool definitions with a ``parameters`` schema kept as JSON text (a Parquet struct cannot hold any schema)."""
    if not isinstance(value, list):
        return value
    tools = []
    for index, tool in enumerate(value):
        tool = _present(tool) if isinstance(tool, dict) else tool
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict):
            function = _present(function)
            if isinstance(function.get("parameters"), str):
                try:
                    function["parameters"] = json.loads(function["parameters"])
                except ValueError:
                    raise FormatProblem(loc.key(index), "parameters is not a JSON schema") from None
            tool = {**tool, "function": function}
        tools.append(tool)
    return tools


def _text(run: tuple[str, list[Any]], loc: Loc, name: str) -> Conversation:
    where = loc.key(run[0])
    history = []
    for index, item in enumerate(run[1]):
        at = where.key(index)
        turn = expect_dict(item, at, "a turn")
        role = turn.get("role")
        if role not in TEXT_ROLES:
            raise FormatProblem(at.key("role"), f"unknown role {short(role)} (expected system, user or ai)")
        text = turn.get("text")
        if text is None and role == "system":
            text = turn.get("system_prompt")
        message: dict[str, Any] = {"role": TEXT_ROLES[role], "content": "" if text is None else text}
        commands = _FENCED.findall(text) if role == "ai" and isinstance(text, str) else []
        if commands and commands[-1].strip():
            message["action"] = commands[-1].strip()
        history.append(message)
    conversation = swe_agent_text.from_trajectory({"history": history}, where, name=name)
    return conversation.model_copy(update={"source_format": SOURCE_FORMAT})


def _metadata(row: dict[str, Any]) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    for key in MODEL_FIELDS:
        if isinstance(row.get(key), str) and row[key]:
            metadata["model"] = row[key]
            break
    for key in ROW_FIELDS:
        value = row.get(key)
        if isinstance(value, str | int | float | bool) and value != "":
            metadata[key] = value
    return metadata


def read(shape: Shape) -> list[Conversation]:
    out: list[Conversation] = []
    for index, (loc, item) in enumerate(shape.located()):
        row = expect_dict(item, loc, "a row")
        run = _run(row, loc)
        dialect = _dialect(run)
        if run is None or dialect is None:
            column = run[0] if run else "trajectory"
            raise FormatProblem(loc.key(column), "expected a list of messages like the first row's")
        tag = next((row[key] for key in NAME_FIELDS if isinstance(row.get(key), str) and row[key]), None)
        name = f"{shape.stem} #{index}" + (f" ({tag})" if tag else "")
        conversation = _chat(row, run, loc, name) if dialect == "chat" else _text(run, loc, name)
        metadata = {**(conversation.metadata or {}), **_metadata(row)}
        out.append(conversation.model_copy(update={"metadata": metadata}))
    return out


READER = Reader(name=SOURCE_FORMAT, looks_like=looks_like, read=read)
