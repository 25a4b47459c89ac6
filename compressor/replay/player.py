"""Playback: the engine behind ``simulate`` and ``sweep`` — one run replayed under one setting.

Invariant: at every model-call point the numbers equal what analyze(), the compactor and build_reinjection
compute on the context as compacted so far, but come from cached per-message counts and prefix sums.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate

from ..errors import ConfigError
from ..messages import Message
from ..tokens import LIST_OVERHEAD
from ..trigger import min_target_for, threshold_for
from .index import RunIndex, TotalSource
from .recovered import RecoveredFiles
from .values import CompactionEvent, Outcome, Step, StepEvent, SummaryModel


@dataclass(frozen=True, kw_only=True)
class LiveAttempt:
    """What one live compaction did to a context: the compactor's own result, reduced to what playback needs."""

    compacted: bool  # the compactor's own verdict, on our wording
    reason: str  # the compactor's reason code when it did not compact
    span: tuple[int, int, int]  # prefix, compress, tail message counts
    #: the memory block, then the recovered-context message when there is one: present whenever a summary came
    #: back and the new context was built (compacted, or refused for no benefit on our wording)
    added: tuple[Message, ...]
    added_tokens: tuple[int, ...]  # what openJiuwen's own messages for ``added`` cost (upstream_sizing)
    reinjected_files: tuple[str, ...]  # paths the recovered-context message carries
    request_tokens: int  # over every call made
    calls: int
    summary: str


#: A live compaction: the context in, what the compactor did out.
LiveCompaction = Callable[[list[Message]], LiveAttempt]


@dataclass(frozen=True)
class Played:
    outcome: Outcome
    steps: tuple[Step, ...]
    compactions: tuple[CompactionEvent, ...]


class Player:
    """Plays a run back under settings, holding the compacted context as entry ids with prefix sums.

    The context is a *frozen* part ``entries[:plain_from]`` (what compactions rearranged) followed by the
    original messages ``[o0, i)`` in order: position ``p >= plain_from`` is original ``p - shift``. Only the
    originals up to ``materialised`` are appended to ``entries``; the rest are implied, so a step that does not
    compact costs O(1) (O(keep) right after a compaction), and ``play`` without recording skips whole stretches
    of steps at once.
    """

    def __init__(
        self,
        index: RunIndex,
        context_max: int,
        model: SummaryModel,
        *,
        record: bool = False,
        live: LiveCompaction | None = None,
        hidden_overhead: int = 0,
    ) -> None:
        if model.kind == "live" and live is None:
            raise ConfigError("summary: a live backend needs a compaction function to call it")
        if hidden_overhead < 0:
            raise ConfigError(f"hidden_overhead: {hidden_overhead} is not a number of tokens (≥ 0)")
        self.index = index
        self.context_max = context_max
        self.model = model
        self.record = record
        self.live = live
        # Tokens every window holds that the file does not show: added to each counted window; a reported usage
        # was measured on the real window, so it holds them already.
        self.hidden = hidden_overhead
        self.uncompacted: tuple[int, ...] = index.uncompacted
        self.uncompacted_sums: tuple[int, ...] = index.uncompacted_sums
        if hidden_overhead:
            self.uncompacted = tuple(
                t + hidden_overhead if source == "counted" else t
                for t, source in zip(index.uncompacted, index.sources, strict=True)
            )
            self.uncompacted_sums = (0, *accumulate(self.uncompacted))
        self._over_before = (0, *accumulate(1 if t > context_max else 0 for t in self.uncompacted))

    # -- the run -------------------------------------------------------------------------------

    def play(self, trigger_ratio: float, keep: int, min_target_ratio: float) -> Played:
        self._reset(trigger_ratio, keep, min_target_ratio)
        if self.record:
            for step in range(len(self.index.call_points)):
                self._step(step)
        else:
            self._skim()
        index = self.index
        outcome = Outcome(
            trigger_context_ratio=trigger_ratio,
            keep_recent_messages=keep,
            min_target_context_ratio=min_target_ratio,
            context_max=self.context_max,
            threshold=self.threshold,
            min_target_tokens=self.min_target,
            steps=len(index.call_points),
            first_trigger_index=self.first,
            compactions=self.compactions,
            refused=self.refused,
            peak_tokens=self.peak,
            steps_over_capacity=self.over,
            compaction_calls=self.calls,
            compaction_input_tokens=self.request_total,
            agent_input_tokens=self.agent,
            agent_input_tokens_uncompacted=self.uncompacted_sums[-1],
            final_tokens=self._final_tokens(),
            final_messages=len(self.entries) + index.n - self.materialised,
        )
        return Played(outcome, tuple(self.steps), tuple(self.events))

    def _final_tokens(self) -> int:
        """The counted window once every message of the run is in (SPEC §5: count(system + context) + tools)."""
        index = self.index
        size = len(self.entries) + index.n - self.materialised
        if not size and not index.system_count:
            return index.tools_tokens + self.hidden
        original = index.original_cumulative
        body = self.cumulative[-1] + original[index.n] - original[self.materialised]
        return index.system_tokens + body + LIST_OVERHEAD + index.tools_tokens + self.hidden

    def _reset(self, trigger_ratio: float, keep: int, min_target_ratio: float) -> None:
        self.threshold = threshold_for(self.context_max, trigger_ratio)
        self.min_target = min_target_for(self.context_max, min_target_ratio)
        self.keep = keep
        self.keep_starts = self.index.keep_starts(keep) if keep > 0 else ()
        self.steps: list[Step] = []
        self.events: list[CompactionEvent] = []
        self.first: int | None = None
        self.compactions = self.refused = self.calls = self.request_total = 0
        self.agent = self.peak = self.over = 0
        # The context.
        self.entries: list[int] = []
        self.cumulative: list[int] = [0]
        self.materialised = 0  # originals [o0, materialised) are appended to entries
        self.plain_from = 0  # entries from here on are originals in order
        self.last_user = -1  # position of the last real user message among the entries
        self.frozen_last_user = -1  # the same, inside the frozen part
        self.compacted = False
        self._frozen_index: dict[int, int] = {}  # entry → position, for the frozen part
        self.files = RecoveredFiles(self.index)

    def _skim(self) -> None:
        """The whole run without recording steps: stretches of steps that cannot compact are summed at once."""
        index = self.index
        points, unc, original = index.call_points, self.uncompacted, index.original_cumulative
        point_cumulative, point_sums, last_user_upto = index.point_cumulative, index.point_sums, index.last_user_upto
        count = len(points)
        threshold, min_target, keep, starts = self.threshold, self.min_target, self.keep, self.keep_starts
        compress = index.original_compress(keep)
        fixed = index.system_tokens + index.tools_tokens + LIST_OVERHEAD + self.hidden
        step = 0
        while step < count:
            if not self.compacted:
                # The context is the original run's: it compacts where the original span would.
                hit = step
                while hit < count and (unc[hit] < threshold or compress[hit] < min_target):
                    hit += 1
                if hit > step:
                    self.agent += self.uncompacted_sums[hit] - self.uncompacted_sums[step]
                    self.over += self._over_before[hit] - self._over_before[step]
                    self.peak = max(self.peak, *unc[step:hit])
            else:
                # Window = base + cumulative[i]; the span is the original's once a user message came after the
                # frozen part, else it starts after the frozen last user. A tail reaching into the frozen part
                # (or a hit) ends the stretch and takes the general step.
                entries, cumulative = self.entries, self.cumulative
                shift = len(entries) - self.materialised
                o0 = self.plain_from - shift
                base = fixed + cumulative[self.plain_from] - original[o0]
                start = self.frozen_last_user + 1
                offset = cumulative[self.plain_from] - original[o0] - cumulative[start] + LIST_OVERHEAD
                hit = step
                while hit < count:
                    if base + point_cumulative[hit] >= threshold:
                        i = points[hit]
                        if last_user_upto[i] >= o0:
                            if (keep and starts[hit] < o0) or compress[hit] >= min_target:
                                break
                        elif start > 0:
                            split = starts[hit] if keep else i
                            if split < o0 or (split + shift > start and offset + original[split] >= min_target):
                                break
                    hit += 1
                if hit > step:
                    self.agent += (hit - step) * base + point_sums[hit] - point_sums[step]
                    self.peak = max(self.peak, base + point_cumulative[hit - 1])
                    self.over += hit - bisect_right(point_cumulative, self.context_max - base, step, hit)
            if hit >= count:
                return
            self._step(hit)
            step = hit + 1

    def _step(self, step: int) -> None:
        """One model-call point, computed in full."""
        index = self.index
        i = index.call_points[step]
        entries, cumulative, original = self.entries, self.cumulative, index.original_cumulative
        materialised = self.materialised
        shift = len(entries) - materialised
        size = len(entries) + i - materialised
        source: TotalSource
        if self.compacted:
            body = cumulative[-1] + original[i] - original[materialised]
            total = index.system_tokens + body + LIST_OVERHEAD + index.tools_tokens + self.hidden
            source = "counted"
        else:
            total, source = self.uncompacted[step], index.sources[step]
        sent = total
        compress: int | None = None
        event: StepEvent = "none"
        attempt: CompactionEvent | None = None
        if total < self.threshold:
            reason = "below_threshold"
        else:
            reason = "no_compressible_span"
            user = index.last_user_upto[i]
            start = (user + shift if user >= materialised else self.last_user) + 1
            if start > 0:
                split = self._split(step, size, shift)
                if split > start:
                    compress = self._cumulative_at(split) - self._cumulative_at(start) + LIST_OVERHEAD
                    if compress < self.min_target:
                        reason = "target_below_min"
                    else:
                        reason = "reached_threshold"
                        if self.first is None:
                            self.first = i
                        self._materialise(i)
                        attempt = self._compact(i, total, start, split, compress)
                        event = attempt.status
                        self.calls += attempt.calls
                        self.request_total += attempt.request_tokens
                        if event == "compacted":
                            self.compactions += 1
                            sent = (
                                index.system_tokens + self.cumulative[-1] + LIST_OVERHEAD + index.tools_tokens
                                + self.hidden
                            )
                        else:
                            self.refused += 1
                        if self.record:
                            self.events.append(attempt)
        self.agent += sent
        self.peak = max(self.peak, sent)
        if sent > self.context_max:
            self.over += 1
        if self.record:
            self.steps.append(
                Step(
                    index=i,
                    context_tokens=total,
                    total_source=source,
                    sent_tokens=sent,
                    uncompacted_tokens=self.uncompacted[step],
                    hidden_tokens=self.hidden if source == "counted" else 0,
                    threshold=self.threshold,
                    event=event,
                    reason=reason,
                    skip_reason=attempt.reason if attempt else "",
                    messages=len(self.entries) + i - self.materialised,
                    compress_tokens=compress,
                    summary_tokens=attempt.summary_tokens if attempt else 0,
                    memory_tokens=attempt.memory_tokens if attempt else 0,
                    reinjection_tokens=attempt.reinjection_tokens if attempt else 0,
                    compaction_request_tokens=attempt.request_tokens if attempt else 0,
                )
            )

    # -- the context -------------------------------------------------------------------------

    def _cumulative_at(self, position: int) -> int:
        held = len(self.entries)
        if position <= held:
            return self.cumulative[position]
        original = self.index.original_cumulative
        return self.cumulative[-1] + original[position - held + self.materialised] - original[self.materialised]

    def _materialise(self, upto: int) -> None:
        start = self.materialised
        if start >= upto:
            return
        index, entries = self.index, self.entries
        shift = len(entries) - start
        entries.extend(range(start, upto))
        sums = accumulate(index.tokens[start:upto], initial=self.cumulative[-1])
        next(sums)
        self.cumulative.extend(sums)
        user = index.last_user_upto[upto]
        if user >= start:
            self.last_user = user + shift
        self.materialised = upto

    def _split(self, step: int, size: int, shift: int) -> int:
        """Where the tail starts: spans.effective_keep over the current context (SPEC §3)."""
        keep = self.keep
        if keep <= 0 or size == 0:
            return max(size - max(keep, 0), 0)
        o0 = self.plain_from - shift
        if self.keep_starts[step] >= o0:  # the tail lies among the originals in order: as in the original run
            return self.keep_starts[step] + shift
        index, entries = self.index, self.entries
        tool_ids = index.tool_ids
        held = len(entries)
        start = max(size - keep, 0)
        scanned = size
        while True:
            earliest = start
            for position in range(start, scanned):
                call_id = tool_ids[entries[position] if position < held else position - shift]
                if call_id is not None:
                    at = self._call_position(call_id, o0, shift)
                    if at is not None and at < earliest:
                        earliest = at
            scanned = start
            if earliest == start:
                return start
            start = earliest

    def _call_position(self, call_id: str, o0: int, shift: int) -> int | None:
        """Position of the first assistant in the context whose calls include ``call_id``."""
        frozen = self._frozen_index
        for site in self.index.call_sites.get(call_id, ()):
            if site >= o0:
                return site + shift
            at = frozen.get(site)
            if at is not None:
                return at
        return None

    # -- one compaction ------------------------------------------------------------------------

    def _compact(self, i: int, total: int, start: int, split: int, compress: int) -> CompactionEvent:
        if self.model.kind == "live":
            return self._compact_live(i, total, start, split, compress)
        index, entries, cumulative = self.index, self.entries, self.cumulative
        size = len(entries)
        before = cumulative[size] + LIST_OVERHEAD
        request = index.system_tokens + cumulative[split] + index.prompt_tokens + LIST_OVERHEAD + index.tools_tokens
        span = (start, split - start, size - split)
        prefix_tokens, tail_tokens = self._list_tokens(0, start), self._list_tokens(split, size)
        if self.model.kind == "fixed":
            memory = index.sized_memory(self.model.tokens)
        elif self.model.kind == "ratio":
            wanted = int(self.model.ratio * compress)
            if wanted <= 0:  # the compactor treats an empty summary as a failed compaction
                return CompactionEvent(
                    index=i, status="skipped", reason="empty_summary", context_tokens=total, span=span,
                    compress_tokens=compress, summary_tokens=0, memory_tokens=0, reinjection_tokens=0,
                    reinjected_files=(), request_tokens=request, calls=1, tokens_before=before,
                    tokens_after=before, prefix_tokens=prefix_tokens, tail_tokens=tail_tokens,
                )
            memory = index.sized_memory(wanted)
        else:
            memory = index.offline_summary(entries[:split])
        added = self.files.message(
            self.entries, self.materialised, self.plain_from, self.last_user, start, split, memory
        )
        memory_tokens = index.tokens[memory]
        added_tokens = index.tokens[added] if added is not None else 0
        files = index.reinjected[added] if added is not None else ()
        after = cumulative[start] + memory_tokens + added_tokens + cumulative[size] - cumulative[split] + LIST_OVERHEAD
        compacted = after < before
        if compacted:
            self._replace(start, split, [memory] if added is None else [memory, added])
        return CompactionEvent(
            index=i, status="compacted" if compacted else "skipped", reason="" if compacted else "no_benefit",
            context_tokens=total, span=span, compress_tokens=compress, summary_tokens=index.summary_tokens[memory],
            memory_tokens=memory_tokens, reinjection_tokens=added_tokens, reinjected_files=files,
            request_tokens=request, calls=1, tokens_before=before, tokens_after=after,
            prefix_tokens=prefix_tokens, tail_tokens=tail_tokens,
        )

    def _compact_live(self, i: int, total: int, start: int, split: int, compress: int) -> CompactionEvent:
        assert self.live is not None
        index, entries, cumulative = self.index, self.entries, self.cumulative
        size = len(entries)
        before = cumulative[size] + LIST_OVERHEAD
        live = self.live([index.message(e) for e in entries])
        summary_tokens = index.counter.tok(live.summary) if live.summary else 0
        prefix, _, tail = live.span
        prefix_tokens, tail_tokens = self._list_tokens(0, prefix), self._list_tokens(size - tail, size)
        if not live.added:
            return CompactionEvent(
                index=i, status="skipped", reason=live.reason, context_tokens=total, span=live.span,
                compress_tokens=compress, summary_tokens=summary_tokens, memory_tokens=0, reinjection_tokens=0,
                reinjected_files=(), request_tokens=live.request_tokens, calls=live.calls, tokens_before=before,
                tokens_after=before, prefix_tokens=prefix_tokens, tail_tokens=tail_tokens,
            )
        if prefix != start:
            raise RuntimeError(f"live compaction kept a prefix of {prefix} messages where {start} were expected")
        # openJiuwen's benefit check, on openJiuwen's sizes of the added messages (our wording costs more).
        memory_tokens, reinjection_tokens = live.added_tokens[0], sum(live.added_tokens[1:])
        after = cumulative[prefix] + memory_tokens + reinjection_tokens + cumulative[size] - cumulative[size - tail]
        after += LIST_OVERHEAD
        compacted = after < before
        if compacted:
            added = [index.added_message(m, t) for m, t in zip(live.added, live.added_tokens, strict=True)]
            self._replace(start, size - tail, added)
        return CompactionEvent(
            index=i, status="compacted" if compacted else "skipped", reason="" if compacted else "no_benefit",
            context_tokens=total, span=live.span, compress_tokens=compress, summary_tokens=summary_tokens,
            memory_tokens=memory_tokens, reinjection_tokens=reinjection_tokens, reinjected_files=live.reinjected_files,
            request_tokens=live.request_tokens, calls=live.calls, tokens_before=before, tokens_after=after,
            prefix_tokens=prefix_tokens, tail_tokens=tail_tokens,
        )

    def _list_tokens(self, start: int, end: int) -> int:
        """count() of the held context's positions [start, end), from the prefix sums (SPEC §5: 0 when empty)."""
        if end <= start:
            return 0
        return self.cumulative[end] - self.cumulative[start] + LIST_OVERHEAD

    def _replace(self, start: int, split: int, added: list[int]) -> None:
        """context = context[:start] + added + context[split:]; everything up to here becomes the frozen part."""
        self.files.sync(self.entries, self.materialised, self.plain_from, self.last_user)
        entries, cumulative, tokens = self.entries, self.cumulative, self.index.tokens
        positions, frozen_end = self._frozen_index, self.plain_from
        if start < frozen_end:
            for entry in entries[start:frozen_end]:
                del positions[entry]
        else:
            positions.update(zip(entries[frozen_end:start], range(frozen_end, start), strict=True))
        tail = entries[split:]
        positions.update(zip((*added, *tail), range(start, start + len(added) + len(tail)), strict=True))
        del entries[start:]
        del cumulative[start + 1 :]
        for entry in (*added, *tail):
            entries.append(entry)
            cumulative.append(cumulative[-1] + tokens[entry])
        self.compacted = True
        self.plain_from = len(entries)
        self.frozen_last_user = self.last_user
        self.files.rearranged(start)
