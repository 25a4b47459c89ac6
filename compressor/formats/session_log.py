"""One conversation gathered record by record by the agent-session readers (Codex, Responses items, Gemini CLI,
Qwen Code): entries stay plain dicts until the end, so a later record (a usage event) can still complete one.

Invariant: ``conversation()`` pairs every tool call with a result (an unanswered call gets the reader's stand-in,
a result that answers no call is left out), builds each message with ``build_message`` (errors name the record)
and points each recorded compaction at the message carrying its summary; readings are written once each.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from compressor.formats.building import build_message, build_tools, is_number
from compressor.formats.problems import FormatProblem, Loc, problem_from_validation
from compressor.messages import Conversation, Message, Reading, RecordedCompaction, ToolDef


@dataclass
class Entry:
    """A message to be: its fields as the reader found them, and where it came from."""

    data: dict[str, Any]
    loc: Loc


@dataclass
class CompactionNote:
    entry: int
    summary: str
    tokens_before: int | None
    tokens_after: int | None
    encrypted: bool


@dataclass
class SessionLog:
    """Entries of one conversation in order, what the reader left out (by kind) and what the file says."""

    source_format: str
    entries: list[Entry] = field(default_factory=list)
    tools: list[ToolDef] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)
    chunks_joined: int = 0
    _compactions: list[CompactionNote] = field(default_factory=list)

    def add(self, data: dict[str, Any], loc: Loc) -> int:
        """Append one message's fields; returns its entry index."""
        self.entries.append(Entry(data, loc))
        return len(self.entries) - 1

    def skip(self, kind: str, count: int = 1) -> None:
        self.skipped[kind] += count

    def compaction(
        self,
        summary: str,
        loc: Loc,
        *,
        tokens_before: int | None = None,
        tokens_after: int | None = None,
        encrypted: bool = False,
        content: str | None = None,
    ) -> CompactionNote:
        """A compaction the agent recorded: an internal user message carries its summary from here on."""
        index = self.add(
            {"role": "user", "content": summary if content is None else content, "internal": True}, loc
        )
        record = CompactionNote(index, summary, tokens_before, tokens_after, encrypted)
        self._compactions.append(record)
        return record

    def compaction_at_end(self) -> CompactionNote | None:
        """The latest recorded compaction when its summary message is still the last entry (a repeat of it can merge)."""
        if self._compactions and self._compactions[-1].entry == len(self.entries) - 1:
            return self._compactions[-1]
        return None

    def last_assistant(self, since: int = 0) -> Entry | None:
        """The latest assistant entry at or after entry index ``since``."""
        for entry in reversed(self.entries[since:]):
            if entry.data.get("role") == "assistant":
                return entry
        return None

    def last_reported_total(self) -> int | None:
        """The window total of the latest assistant entry that carries usage (a compaction's ``tokens_before``)."""
        for entry in reversed(self.entries):
            usage = entry.data.get("usage_metadata")
            if entry.data.get("role") == "assistant" and isinstance(usage, dict):
                total = token_count(usage.get("total_tokens"))
                if total:
                    return total
        return None

    def conversation(
        self, name: str, loc: Loc | None = None, *, unanswered: str, unanswered_note: str = ""
    ) -> Conversation:
        """The finished conversation; ``unanswered`` is the result text given to a call the file never answers
        (``unanswered_note`` says, for the reading, whose convention that is)."""
        where = loc or Loc()
        dropped, filled = self._pair(unanswered)
        if not self.entries:
            raise FormatProblem(where, "holds no messages")
        messages = [build_message(entry.data, entry.loc) for entry in self.entries]
        compactions = [
            RecordedCompaction(
                index=c.entry,
                source=self.source_format,
                summary=c.summary,
                tokens_before=c.tokens_before,
                tokens_after=c.tokens_after,
            )
            for c in self._compactions
        ]
        note = f'"{unanswered}"' + (f", {unanswered_note}" if unanswered_note else "")
        readings = self._readings(messages, dropped, filled, note)
        try:
            return Conversation.from_messages(
                messages,
                self.tools,
                name=name,
                source_format=self.source_format,
                metadata=self.metadata,
                recorded_compactions=compactions,
                readings=readings,
            )
        except ValidationError as error:
            raise problem_from_validation(error, where) from None

    # -- pairing ------------------------------------------------------------------------------

    def _pair(self, unanswered: str) -> tuple[int, int]:
        """Leave out results that answer no earlier call; give each unanswered call a stand-in result right after
        its assistant message (and the results already there). Returns (results left out, results filled in)."""
        called: set[str] = set()
        answered: set[str] = set()
        kept: list[tuple[int, Entry]] = []
        dropped = 0
        for old, entry in enumerate(self.entries):
            data = entry.data
            if data.get("role") == "tool":
                call_id = data.get("tool_call_id")
                if call_id not in called or call_id in answered:
                    dropped += 1
                    continue
                answered.add(str(call_id))
            for call in data.get("tool_calls") or ():
                if isinstance(call, dict) and isinstance(call.get("id"), str):
                    called.add(call["id"])
            kept.append((old, entry))
        out: list[tuple[int | None, Entry]] = []
        filled = 0
        position = 0
        while position < len(kept):
            old, entry = kept[position]
            out.append((old, entry))
            position += 1
            missing = [
                call
                for call in entry.data.get("tool_calls") or ()
                if isinstance(call, dict) and call.get("id") not in answered
            ]
            if not missing:
                continue
            while position < len(kept) and kept[position][1].data.get("role") == "tool":
                out.append(kept[position])
                position += 1
            for call in missing:
                stand_in = {"role": "tool", "tool_call_id": call.get("id"), "content": unanswered}
                if isinstance(call.get("name"), str):
                    stand_in["name"] = call["name"]
                out.append((None, Entry(stand_in, entry.loc)))
                answered.add(str(call.get("id")))
                filled += 1
        moved = {old: new for new, (old, _) in enumerate(out) if old is not None}
        self.entries = [entry for _, entry in out]
        for compaction in self._compactions:
            compaction.entry = moved.get(compaction.entry, compaction.entry)
        return dropped, filled

    # -- readings -----------------------------------------------------------------------------

    def _readings(self, messages: list[Message], dropped: int, filled: int, note: str) -> list[Reading]:
        out: list[Reading] = []
        internal = sum(1 for message in messages if message.role == "user" and message.internal)
        if internal:
            out.append(Reading(code="internal_user_turns", count=internal))
        if self._compactions:
            out.append(Reading(code="recorded_compactions", count=len(self._compactions)))
        encrypted = sum(1 for c in self._compactions if c.encrypted)
        if encrypted:
            out.append(Reading(code="summaries_encrypted", count=encrypted))
        if filled:
            out.append(Reading(code="results_filled_in", count=filled, detail=note))
        skipped = Counter(self.skipped)
        if dropped:
            skipped["tool results that answer no call"] += dropped
        if skipped:
            detail = ", ".join(f"{kind} ×{count}" for kind, count in skipped.most_common())
            out.append(Reading(code="lines_skipped", count=sum(skipped.values()), detail=detail))
        if self.chunks_joined:
            out.append(Reading(code="chunks_joined", count=self.chunks_joined))
        model = self.metadata.get("model")
        if isinstance(model, str) and model:
            out.append(Reading(code="model_from_file", detail=model))
        return out


def token_count(value: Any) -> int | None:
    """A token count from a usage field, or None when absent or not a non-negative number."""
    return int(value) if is_number(value) and value >= 0 else None


def tool_defs(value: Any, loc: Loc) -> list[ToolDef]:
    """Function definitions a session file lists, leniently: entries without a name are not functions."""
    if not isinstance(value, list):
        return []
    named = [
        item
        for item in value
        if isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"]
    ]
    return build_tools(named, loc)
