"""One call point's compaction in a replay: openJiuwen's decision on the held context and the compaction it makes.

Invariant: an attempt is applied to the held context only when it compacts, and its event carries the cache it
found (``previous_tokens``) and the cache it leaves (``preserved_tokens``) under ``compressor.cost.ledger``'s model.
"""

from __future__ import annotations

from typing import Any

from ..tokens import LIST_OVERHEAD
from .context import HeldContext, Snapshot
from .values import CompactionEvent, LiveCompaction, StepEvent, SummaryModel

#: No message of the context changed yet at this call (a position past any context).
UNCHANGED = 1 << 62
#: Context positions a sweep keeps for the attempts its settings share (about 85 bytes each: ~21 MB); past it
#: further attempts are computed each time. A 5,000-message run's 100-setting sweep keeps ~190,000.
SHARED_POSITIONS = 250_000


class Compacting(HeldContext):
    """The compaction half of ``Player``: at a call point, the trigger's decision and, on a hit, the compaction."""

    model: SummaryModel
    live: LiveCompaction | None
    hidden: int
    threshold: int
    min_target: int
    first: int | None
    _prev_size: int  # context messages the previous call sent
    _usable: int  # of the previous window, what still matches the context at this call
    _changed_from: int  # first position an attempt at this call changed
    #: attempts made by any setting played so far, by (context node, call, span start, split): the attempt, the
    #: node it leads to and the context after it (None: every attempt is computed)
    shared: dict[tuple[int, int, int, int], tuple[CompactionEvent, int, Snapshot]] | None
    node: int  # the held context's node: 0 before any attempt, then the node of the last attempt
    nodes: int  # nodes made so far (each attempt computed makes one)
    shared_positions: int  # context positions the kept attempts' contexts hold, at most shared_budget
    shared_budget = SHARED_POSITIONS

    def _front(self) -> int:
        """What every window holds besides its messages: system, tools, hidden overhead."""
        return self.index.system_tokens + self.index.tools_tokens + self.hidden

    # -- the decision --------------------------------------------------------------------------

    def _attempts(
        self, step: int, i: int, total: int, size: int, shift: int
    ) -> tuple[str, int | None, list[CompactionEvent]]:
        """The trigger's reason at this call, the span's count(compress), and the attempts made (applied)."""
        reason, compress, attempt = self._summarise(step, i, total, size, shift)
        return reason, compress, [attempt] if attempt is not None else []

    def _summarise(
        self, step: int, i: int, total: int, size: int, shift: int
    ) -> tuple[str, int | None, CompactionEvent | None]:
        """openJiuwen's decision (SPEC §8) on the held context and, on a hit, its compaction (SPEC §10)."""
        if total < self.threshold:
            return "below_threshold", None, None
        index = self.index
        user = index.last_user_upto[i]
        start = (user + shift if user >= self.materialised else self.last_user) + 1
        if start <= 0:
            return "no_compressible_span", None, None
        split = self._split(step, size, shift)
        if split <= start:
            return "no_compressible_span", None, None
        compress = self._cumulative_at(split) - self._cumulative_at(start) + LIST_OVERHEAD
        if compress < self.min_target:
            return "target_below_min", compress, None
        if self.first is None:
            self.first = i
        attempt = self._attempt(step, i, total, start, split, compress)
        if attempt.status == "compacted":
            self._usable = min(self._usable, attempt.preserved_tokens)
            self._changed_from = min(self._changed_from, attempt.span[0])
        return "reached_threshold", compress, attempt

    def _attempt(
        self, step: int, i: int, total: int, start: int, split: int, compress: int
    ) -> CompactionEvent:
        """The attempt at call ``step`` on the held context, applied to it; with ``shared`` attempts, taken from
        another setting of the sweep that made the same attempt on the same context."""
        shared = self.shared
        if shared is None:
            self._materialise(i)
            return self._compact(step, i, total, start, split, compress)
        # The held context is a function of the attempts made so far (each one's call, span start and split),
        # and an attempt reads nothing else of the setting: every other input (the window, the cache the previous
        # call left, the summary) follows from that context and the call.
        key = (self.node, step, start, split)
        found = shared.get(key)
        if found is not None:
            attempt, self.node, state = found
            self.restore(state)
            return attempt
        self._materialise(i)
        attempt = self._compact(step, i, total, start, split, compress)
        # a node of its own even when it is not kept, so that no later key meets a stale one
        self.nodes += 1
        self.node = self.nodes
        if self.shared_positions + len(self.entries) <= self.shared_budget:
            shared[key] = (attempt, self.node, self.snapshot())
            self.shared_positions += len(self.entries)
        return attempt

    def _request_cached(self, split: int) -> int:
        """Of a compaction request sending ``context[:split]``, what it reads from the agent's cache: the front and
        the messages it shares with the previous call, and that call's reply opening when the reply follows."""
        common = min(split, self._prev_size, self._changed_from)
        index = self.index
        shared = index.system_tokens + index.tools_tokens + self._cumulative_at(common)
        if common == self._prev_size < split:
            shared += LIST_OVERHEAD
        return min(self._usable, shared)

    # -- one compaction ------------------------------------------------------------------------

    def _compact(
        self, step: int, i: int, total: int, start: int, split: int, compress: int
    ) -> CompactionEvent:
        """One compaction at call ``step``: the event, with the cache it finds (``previous_tokens``) and leaves
        (``preserved_tokens``: the front and the kept prefix; the window after is the front plus tokens_after)."""
        if self.model.kind == "live":
            return self._compact_live(step, i, total, start, split, compress)
        index, entries, cumulative = self.index, self.entries, self.cumulative
        size = len(entries)
        before = cumulative[size] + LIST_OVERHEAD
        asked: dict[str, Any] = {
            "span": (start, split - start, size - split),
            "compress_tokens": compress,
            "request_tokens": (
                index.system_tokens
                + cumulative[split]
                + index.prompt_tokens
                + LIST_OVERHEAD
                + index.tools_tokens
            ),
            "calls": 1,
            "tokens_before": before,
            "prefix_tokens": self._list_tokens(0, start),
            "tail_tokens": self._list_tokens(split, size),
            "request_cached_tokens": self._request_cached(split),
        }
        if self.model.kind == "fixed":
            memory = index.sized_memory(self.model.tokens)
        elif self.model.kind == "ratio":
            wanted = int(self.model.ratio * compress)
            if wanted <= 0:  # the compactor treats an empty summary as a failed compaction
                return self._event(step, i, total, False, "empty_summary", before, **asked, **NOTHING_ADDED)
            memory = index.sized_memory(wanted)
        else:
            memory = index.offline_summary(entries[:split])
        added = self.files.message(
            self.entries, self.materialised, self.plain_from, self.last_user, start, split, memory
        )
        memory_tokens = index.tokens[memory]
        added_tokens = index.tokens[added] if added is not None else 0
        after = cumulative[start] + memory_tokens + added_tokens + cumulative[size] - cumulative[split]
        after += LIST_OVERHEAD
        compacted = after < before
        if compacted:
            self._replace(start, split, [memory] if added is None else [memory, added])
        return self._event(
            step,
            i,
            total,
            compacted,
            "no_benefit",
            after,
            preserved=cumulative[start],
            summary_tokens=index.summary_tokens[memory],
            memory_tokens=memory_tokens,
            reinjection_tokens=added_tokens,
            reinjected_files=index.reinjected[added] if added is not None else (),
            output_tokens=index.summary_tokens[memory],
            **asked,
        )

    def _compact_live(
        self, step: int, i: int, total: int, start: int, split: int, compress: int
    ) -> CompactionEvent:
        assert self.live is not None
        index, entries, cumulative = self.index, self.entries, self.cumulative
        size = len(entries)
        before = cumulative[size] + LIST_OVERHEAD
        live = self.live([index.message(e) for e in entries])
        prefix, _, tail = live.span
        asked: dict[str, Any] = {
            "span": live.span,
            "compress_tokens": compress,
            "summary_tokens": index.counter.tok(live.summary) if live.summary else 0,
            "request_tokens": live.request_tokens,
            "calls": live.calls,
            "tokens_before": before,
            "prefix_tokens": self._list_tokens(0, prefix),
            "tail_tokens": self._list_tokens(size - tail, size),
            # each call (retries and overflow shrinks included) resends the prefix the first one shared
            "request_cached_tokens": min(self._request_cached(size - tail) * live.calls, live.request_tokens),
            "output_tokens": live.output_tokens,
            "retries": max(live.calls - 1, 0),
            "backoff_seconds": live.backoff_seconds,
        }
        if not live.added:
            added_nothing = {key: value for key, value in NOTHING_ADDED.items() if key != "summary_tokens"}
            return self._event(step, i, total, False, live.reason, before, **asked, **added_nothing)
        if prefix != start:
            raise RuntimeError(
                f"live compaction kept a prefix of {prefix} messages where {start} were expected"
            )
        # openJiuwen's benefit check, on openJiuwen's sizes of the added messages (our wording costs more).
        memory_tokens, reinjection_tokens = live.added_tokens[0], sum(live.added_tokens[1:])
        after = (
            cumulative[prefix]
            + memory_tokens
            + reinjection_tokens
            + cumulative[size]
            - cumulative[size - tail]
        )
        after += LIST_OVERHEAD
        compacted = after < before
        if compacted:
            added = [index.added_message(m, t) for m, t in zip(live.added, live.added_tokens, strict=True)]
            self._replace(start, size - tail, added)
        return self._event(
            step,
            i,
            total,
            compacted,
            "no_benefit",
            after,
            preserved=cumulative[prefix],
            memory_tokens=memory_tokens,
            reinjection_tokens=reinjection_tokens,
            reinjected_files=live.reinjected_files,
            **asked,
        )

    def _event(
        self,
        step: int,
        i: int,
        total: int,
        compacted: bool,
        reason: str,
        after: int,
        *,
        preserved: int = 0,
        **sizes: Any,
    ) -> CompactionEvent:
        """An attempt's event: what it asked and added (``sizes``); compacted, the window it sends and the cache it
        leaves (the front and the kept prefix, ``preserved``), else why not, and the window unchanged."""
        front = self._front()
        return CompactionEvent(
            index=i,
            status="compacted" if compacted else "skipped",
            reason="" if compacted else reason,
            context_tokens=total,
            tokens_after=after,
            step=step,
            sent_tokens=front + after if compacted else total,
            previous_tokens=self._usable,
            preserved_tokens=front + preserved if compacted else 0,
            **sizes,
        )


#: What an attempt that added nothing reports of the messages it would have added.
NOTHING_ADDED: dict[str, Any] = {
    "summary_tokens": 0,
    "memory_tokens": 0,
    "reinjection_tokens": 0,
    "reinjected_files": (),
}


def step_event(attempts: list[CompactionEvent]) -> StepEvent:
    """A call's event: a summary that compacted, else masking that changed the context, else a refusal."""
    if not attempts:
        return "none"
    if any(a.status == "compacted" and a.kind == "summary" for a in attempts):
        return "compacted"
    if any(a.status == "compacted" for a in attempts):
        return "masked"
    return "skipped"
