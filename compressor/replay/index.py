"""The run index: everything about an agent run that no compressor setting changes, computed once per counter.

Invariant: an entry id always means one message and its count — ``0..n-1`` the context messages, later ids the
memory blocks and recovered-context messages simulated compactions added (interned by content, never changed).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from functools import cache
from itertools import accumulate
from typing import Any, Literal

from ..backends.offline import build_reply
from ..messages import Conversation, Message, ToolCall
from ..prompt import build_prompt, extract_summary, memory_message
from ..reinjection import (
    READ_FILE_TOOLS,
    ReinjectedFile,
    is_excluded_path,
    parse_tool_result,
    read_snapshot,
    reinjection_from_files,
    result_text_of,
)
from ..skills import might_load_a_skill
from ..tokens import LIST_OVERHEAD, TokenCounter, profile, usage_tail_tokens
from ..upstream_sizing import memory_tokens, reinjection_tokens
from .rounds import OriginalRounds, Read, RoundState, walk_rounds

TotalSource = Literal["usage", "counted"]


def filler(counter: TokenCounter, tokens: int) -> str:
    """A summary text that costs exactly ``tokens`` under ``counter`` inside a memory block."""
    if counter.name == "string_length":
        return "abc" * tokens
    return "a" + " a" * (tokens - 1) if tokens > 0 else ""


@cache
def _counter_constants(counter: TokenCounter) -> tuple[Message, int, int]:
    """The compaction prompt's message and tokens, and what openJiuwen's memory block costs around its summary
    (a constant plus the summary's tokens): the same for every run under one counter, so counted once."""
    prompt = Message(role="user", content=build_prompt(None))
    return prompt, counter.message_tokens(prompt), memory_tokens(counter, filler(counter, 1)) - 1


class RunIndex:
    """Counts, roles, call ids, real-user positions and the uncompacted windows of one run, for one counter.

    The messages a simulated compaction adds are counted as openJiuwen's own would be (``upstream_sizing``): the
    replay predicts openJiuwen, whose memory block and recovered-context message are worded differently from ours.
    """

    def __init__(
        self, conversation: Conversation, counter: TokenCounter, read_tools: tuple[str, ...] = READ_FILE_TOOLS
    ) -> None:
        self.conversation = conversation
        self.counter = counter
        self.read_tools = read_tools
        counted = profile(conversation, counter)
        # read once: a packed run (``MessagePack``) builds a message at each read
        messages = list(conversation.messages)
        self.n = len(messages)
        self.original_cumulative: Sequence[int] = counted.cumulative
        self.system_tokens = sum(counted.system_tokens)
        self.system_count = len(conversation.system)
        self.tools_tokens = counted.tools_tokens
        # Per entry: the context messages, then the interned additions.
        self.tokens: list[int] = list(counted.tokens)
        self.roles: list[str] = [m.role for m in messages]
        self.tool_ids: list[str | None] = [m.tool_call_id if m.role == "tool" else None for m in messages]
        self.call_ids: list[tuple[str, ...]] = [m.call_ids if m.role == "assistant" else () for m in messages]
        self.messages: list[Message | None] = list(messages)
        self.callers: list[int] = [i for i, ids in enumerate(self.call_ids) if ids]
        self.call_sites: dict[str, list[int]] = {}
        for i in self.callers:
            for call_id in self.call_ids[i]:
                sites = self.call_sites.setdefault(call_id, [])
                if not sites or sites[-1] != i:
                    sites.append(i)
        self.read_calls: dict[int, tuple[tuple[int, ToolCall], ...]] = {}
        for i in self.callers:
            calls = messages[i].tool_calls or ()
            reads = tuple((k, call) for k, call in enumerate(calls) if call.name in read_tools)
            if reads:
                self.read_calls[i] = reads
        last_user = -1
        self.last_user_upto: list[int] = [-1]  # [i]: the last real user message before i
        for i, message in enumerate(messages):
            if message.is_real_user:
                last_user = i
            self.last_user_upto.append(last_user)
        self.call_points: tuple[int, ...] = tuple(
            i for i, role in enumerate(self.roles) if role == "assistant"
        )
        #: the run loads skills (SKILL.md): only then does a compaction look for them (SPEC §12)
        self.loads_skills = any(might_load_a_skill(messages[i]) for i in self.callers)
        self.uncompacted, self.sources = self._uncompacted_windows(messages)
        self.uncompacted_sums: tuple[int, ...] = (0, *accumulate(self.uncompacted))
        self.uncompacted_peaks: tuple[int, ...] = tuple(accumulate(self.uncompacted, max))
        # cumulative[i] at each call point, and its prefix sums: a compacted window is a constant plus it.
        self.point_cumulative: tuple[int, ...] = tuple(self.original_cumulative[i] for i in self.call_points)
        self.point_sums: tuple[int, ...] = (0, *accumulate(self.point_cumulative))
        self.prompt_message, self.prompt_tokens, self.memory_overhead = _counter_constants(counter)
        self.summary_tokens: dict[int, int] = {}  # memory entry → tokens of its summary text
        self._masked_of: dict[int, tuple[int, str]] = {}  # masked result → (original result, placeholder)
        self._masked_sizes: dict[tuple[str, str | None], int] = {}
        self.reinjected: dict[int, tuple[str, ...]] = {}  # recovered-context entry → its file paths
        self._reinjection_of: dict[int, tuple[tuple[ReinjectedFile, ...], tuple[str, ...]]] = {}
        self._lock = threading.Lock()
        self._interned: dict[Any, int] = {}
        self._snapshots: dict[tuple[int, int, int], Read | None] = {}
        self._result_paths: dict[int, str | None] = {}
        self._offline: dict[tuple[int, ...], int] = {}
        self._original_rounds: OriginalRounds | None = None
        self._keep_starts: dict[int, tuple[int, ...]] = {}
        self._compress: dict[int, tuple[int, ...]] = {}

    def _uncompacted_windows(
        self, messages: Sequence[Message]
    ) -> tuple[tuple[int, ...], tuple[TotalSource, ...]]:
        """SPEC §6 at each call point of the original run, in one pass (usage anchor + len//3 after it)."""
        thirds = (0, *accumulate(usage_tail_tokens(m) for m in messages))
        cumulative = self.original_cumulative
        anchor: tuple[int, int] | None = None
        totals: list[int] = []
        sources: list[TotalSource] = []
        for i, message in enumerate(messages):
            if message.role != "assistant":
                continue
            if anchor is not None:
                at, anchored = anchor
                totals.append(anchored + thirds[i] - thirds[at + 1])
                sources.append("usage")
            else:
                window = self.system_tokens + cumulative[i] + LIST_OVERHEAD if self.system_count + i else 0
                totals.append(window + self.tools_tokens)
                sources.append("counted")
            reported = message.reported_total_tokens
            if reported is not None:
                anchor = (i, reported)
        return tuple(totals), tuple(sources)

    def keep_starts(self, keep: int) -> tuple[int, ...]:
        """For each call point ``i``: where the tail of ``messages[:i]`` starts (spans.effective_keep, SPEC §3)."""
        cached = self._keep_starts.get(keep)
        if cached is not None:
            return cached
        tool_ids, sites = self.tool_ids, self.call_sites
        first_site = [
            -1 if call_id is None else sites.get(call_id, (-1,))[0] for call_id in tool_ids[: self.n]
        ]
        starts: list[int] = []
        for i in self.call_points:
            start = max(i - keep, 0) if keep > 0 else i
            scanned = i
            while keep > 0:
                earliest = start
                for position in range(start, scanned):
                    at = first_site[position]
                    if 0 <= at < earliest:
                        earliest = at
                scanned = start
                if earliest == start:
                    break
                start = earliest
            starts.append(start)
        built = tuple(starts)
        with self._lock:
            self._keep_starts[keep] = built
        return built

    def original_compress(self, keep: int) -> tuple[int, ...]:
        """For each call point: ``count(compress)`` of the original run's span there, or -1 when it has none."""
        cached = self._compress.get(keep)
        if cached is not None:
            return cached
        cumulative, last_user = self.original_cumulative, self.last_user_upto
        splits = self.keep_starts(keep) if keep > 0 else self.call_points
        counts: list[int] = []
        for i, split in zip(self.call_points, splits, strict=True):
            start = last_user[i] + 1
            counts.append(
                cumulative[split] - cumulative[start] + LIST_OVERHEAD if start > 0 and split > start else -1
            )
        built = tuple(counts)
        with self._lock:
            self._compress[keep] = built
        return built

    # -- interned additions --------------------------------------------------------------------

    def _intern(
        self,
        key: Any,
        make: Callable[[], tuple[Message | None, int]],
        role: str = "user",
        tool_id: str | None = None,
    ) -> int:
        found = self._interned.get(key)  # an entry once interned never changes: no lock to find it
        if found is not None:
            return found
        with self._lock:
            found = self._interned.get(key)
            if found is not None:
                return found
            message, tokens = make()
            entry = len(self.tokens)
            self.tokens.append(tokens)
            self.roles.append(role)
            self.tool_ids.append(tool_id)
            self.call_ids.append(())
            self.messages.append(message)
            self._interned[key] = entry
            return entry

    def sized_memory(self, summary_tokens: int) -> int:
        """A memory block whose summary costs ``summary_tokens`` (its text is built only when needed)."""
        key = ("memory", summary_tokens)
        entry = self._interned.get(key) or self._intern(
            key, lambda: (None, self.memory_overhead + summary_tokens)
        )
        self.summary_tokens[entry] = summary_tokens
        return entry

    def memory(self, summary: str) -> int:
        """The memory block holding ``summary``, counted as openJiuwen's."""

        def make() -> tuple[Message | None, int]:
            return memory_message(summary), memory_tokens(self.counter, summary)

        entry = self._intern(("memory-text", summary), make)
        if entry not in self.summary_tokens:
            self.summary_tokens[entry] = self.counter.tok(summary)
        return entry

    def added_message(self, message: Message, tokens: int) -> int:
        """A message a live compaction added (memory block or recovered context), by its content, costing ``tokens``."""
        key = ("message", message.role, message.text)
        return self._intern(key, lambda: (message, tokens))

    def masked_result(self, entry: int, text: str) -> int:
        """The tool result ``entry`` with its content replaced by ``text`` (the masking baselines), same call id.

        Its count depends only on the text and the result's name, so it is counted once per name; the message
        itself is built when something reads it."""
        key = ("masked", entry, text)
        found = self._interned.get(key)
        if found is not None:
            return found
        original = self.message(entry)
        sized = (text, original.name)
        tokens = self._masked_sizes.get(sized)
        if tokens is None:
            probe = Message(role="tool", content=text, tool_call_id="masked", name=original.name)
            tokens = self._masked_sizes[sized] = self.counter.message_tokens(probe)
        counted = tokens
        masked = self._intern(key, lambda: (None, counted), role="tool", tool_id=self.tool_ids[entry])
        self._masked_of[masked] = (entry, text)
        return masked

    def message(self, entry: int) -> Message:
        found = self.messages[entry]
        if found is None:  # a sized memory block, a masked result or a recovered context: built when needed
            if entry in self._reinjection_of:
                files, skills = self._reinjection_of[entry]
                found = reinjection_from_files(files, skills).message
            elif entry in self._masked_of:
                original, text = self._masked_of[entry]
                source = self.message(original)
                found = Message(role="tool", content=text, tool_call_id=source.tool_call_id, name=source.name)
            else:
                found = memory_message(filler(self.counter, self.summary_tokens[entry]))
            self.messages[entry] = found
        return found

    def reinjection(self, selected: Sequence[Read], skills: tuple[str, ...] = ()) -> int:
        """The recovered-context message for reads selected newest first and skills (SPEC §12), counted as openJiuwen's
        (``Reinjection.openjiuwen_tokens``); its text is built only when something reads it."""
        key = ("reinjection", tuple([read.key for read in selected]), skills)
        found = self._interned.get(key)
        if found is not None:
            return found
        files = tuple(read.file for read in reversed(selected))

        def make() -> tuple[Message | None, int]:
            return None, reinjection_tokens(self.counter, skills, [item.upstream_entry() for item in files])

        entry = self._intern(key, make)
        self._reinjection_of[entry] = (files, skills)
        self.reinjected[entry] = tuple(f.path for f in files)
        return entry

    def offline_summary(self, request: Sequence[int]) -> int:
        """The memory block the offline backend's reply gives for a request holding these entries."""
        key = tuple(request)
        found = self._offline.get(key)
        if found is not None:
            return found
        conversation = self.conversation
        messages = [*conversation.system, *(self.message(e) for e in key), self.prompt_message]
        entry = self.memory(extract_summary(build_reply(messages, conversation.tools)))
        self._offline[key] = entry
        return entry

    # -- what the recovered-context message reads ------------------------------------------------

    def result_path(self, entry: int) -> str | None:
        """``file_path`` of a tool result's JSON: a kept result naming it hides that file (SPEC §12)."""
        if self.tool_ids[entry] is None:
            return None
        if entry in self._result_paths:
            return self._result_paths[entry]
        parsed = parse_tool_result(result_text_of(self.message(entry)))
        path = (
            parsed["file_path"]
            if isinstance(parsed, dict) and isinstance(parsed.get("file_path"), str)
            else None
        )
        self._result_paths[entry] = path
        return path

    def snapshot(self, caller: int, number: int, result: int) -> Read | None:
        key = (caller, number, result)
        if key in self._snapshots:
            return self._snapshots[key]
        call = (self.message(caller).tool_calls or [])[number]
        found = read_snapshot(call, self.message(result), result)
        read = (
            Read(key, found.path, found.budget_charge, found)
            if found is not None and not is_excluded_path(found.path)
            else None
        )
        self._snapshots[key] = read
        return read

    def original_rounds(self) -> OriginalRounds:
        """Completed rounds and visibility over the original context; shared by every setting's first compaction."""
        if self._original_rounds is not None:
            return self._original_rounds
        rounds: list[tuple[Read, ...]] = []
        states: list[RoundState] = []
        walk_rounds(self, range(self.n), 0, self.n, None, None, rounds, states=states)
        built = OriginalRounds(tuple(rounds), tuple(states))
        self._original_rounds = built
        return built

    def paths_between(self, start: int, end: int, exclude: set[str]) -> set[str]:
        """Paths (other than ``exclude``) named by a tool result among the original messages ``[start, end)``: each
        result's JSON is read the first time a compaction's prefix reaches it, not for the whole run."""
        found: set[str] = set()
        result_path = self.result_path
        for i in range(start, end):
            path = result_path(i)
            if path is not None and path not in exclude:
                found.add(path)
        return found


def run_index(
    conversation: Conversation, counter: TokenCounter, read_tools: tuple[str, ...] = READ_FILE_TOOLS
) -> RunIndex:
    """The run's index for a counter and read tools, built once and kept on the (frozen) conversation."""
    key = f"run-index:{counter.name}:{','.join(read_tools)}"
    cached = conversation._profiles.get(key)
    if isinstance(cached, RunIndex):
        return cached
    built = RunIndex(conversation, counter, read_tools)
    conversation._profiles[key] = built
    return built
