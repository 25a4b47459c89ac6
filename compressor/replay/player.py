"""Playback: the engine behind ``simulate`` and ``sweep`` — one run replayed under one setting.

Invariant: at every model-call point the numbers equal what analyze(), the compactor and build_reinjection
compute on the context as compacted so far, but come from cached per-message counts and prefix sums; the
cache split of every call follows ``compressor.cost.ledger``'s model (each call reads the previous call's
window, a compaction keeps only its preserved prefix cached).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import accumulate

from ..errors import ConfigError
from ..tokens import LIST_OVERHEAD
from ..trigger import min_target_for, threshold_for
from .compaction import UNCHANGED, Compacting, step_event
from .index import RunIndex, TotalSource
from .values import CompactionEvent, LiveCompaction, Outcome, Step, SummaryModel


@dataclass(frozen=True)
class Played:
    outcome: Outcome
    steps: tuple[Step, ...]
    compactions: tuple[CompactionEvent, ...]


class Player(Compacting):
    """Plays a run back under settings, holding the compacted context as entry ids with prefix sums.

    The context is a *frozen* part ``entries[:plain_from]`` (what compactions rearranged) followed by the
    original messages ``[o0, i)`` in order (``HeldContext``). A step that does not compact costs O(1) (O(keep)
    right after a compaction), and ``play`` without recording skips whole stretches of steps at once. The
    decision and the compaction at a call are ``Compacting``'s (``replay.compaction``).
    """

    strategy = "openjiuwen"
    #: ``play_grid`` may take a setting's outcome from another's play (see there); the baselines play each one
    follows = True

    def __init__(
        self,
        index: RunIndex,
        context_max: int,
        model: SummaryModel,
        *,
        record: bool = False,
        live: LiveCompaction | None = None,
        hidden_overhead: int = 0,
        share: bool = False,
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
        # A sweep's settings share the attempts they make alike (``Compacting._attempt``); a live model is never
        # called twice for one, so it never shares.
        self.shared = {} if share and model.kind != "live" else None
        self.nodes = self.shared_positions = 0
        # Tokens every window holds that the file does not show: added to each counted window; a reported usage
        # was measured on the real window, so it holds them already.
        self.hidden = hidden_overhead
        self.uncompacted: tuple[int, ...] = index.uncompacted
        self.uncompacted_sums: tuple[int, ...] = index.uncompacted_sums
        self._peaks: tuple[int, ...] = index.uncompacted_peaks  # [j]: the highest uncompacted window up to j
        if hidden_overhead:
            self.uncompacted = tuple(
                t + hidden_overhead if source == "counted" else t
                for t, source in zip(index.uncompacted, index.sources, strict=True)
            )
            self.uncompacted_sums = (0, *accumulate(self.uncompacted))
            self._peaks = tuple(accumulate(self.uncompacted, max))
        self._over_before = (0, *accumulate(1 if t > context_max else 0 for t in self.uncompacted))
        # What each call of the uncompacted run reads from the cache: the previous call's window (none at first).
        unc = self.uncompacted
        self._cached_before = (0, *accumulate((0, *map(min, unc[:-1], unc[1:])) if unc else ()))

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
            strategy=self.strategy,
            maskings=self.maskings,
            agent_cached_tokens=self.cached,
            agent_cached_tokens_uncompacted=self._cached_before[-1],
            compaction_cached_tokens=self.request_cached,
            compaction_output_tokens=self.output_total,
        )
        return Played(outcome, tuple(self.steps), tuple(self.events))

    def play_grid(
        self, ratios: Sequence[float], keeps: Sequence[int], min_target_ratio: float
    ) -> dict[tuple[float, int], Played]:
        """``play`` of every (ratio, keep) of ascending ``ratios`` and ``keeps``, keeps first; a setting whose play is
        provably the previous ratio's or the previous keep's takes it with its own numbers, the rest are played."""
        plays: dict[tuple[float, int], Played] = {}
        for k, keep in enumerate(keeps):
            for r, ratio in enumerate(ratios):
                threshold = threshold_for(self.context_max, ratio)
                lower = plays.get((ratios[r - 1], keep)) if r else None
                smaller = plays.get((ratio, keeps[k - 1])) if k else None
                if lower is not None and self._ratio_follows(lower, threshold):
                    leader = lower
                elif smaller is not None and self._keep_follows(smaller, keep):
                    leader = smaller
                else:
                    plays[(ratio, keep)] = self.play(ratio, keep, min_target_ratio)
                    continue
                moved = replace(
                    leader.outcome,
                    trigger_context_ratio=ratio,
                    keep_recent_messages=keep,
                    threshold=threshold,
                )
                plays[(ratio, keep)] = Played(moved, leader.steps, leader.compactions)
        return plays

    # A setting follows another's play (makes the same decision at every call, so the same attempts and numbers):
    # - a higher ratio when every attempt of that play read a window at or above its own threshold: below it the
    #   play found nothing to do there (which changes nothing), from it on both read the same context;
    # - a larger keep ``k`` when every attempt of that play left a tail of at least ``k`` messages. A keep's split
    #   is the latest start ``p <= size - keep`` from which every kept tool result's call is kept
    #   (spans.effective_keep), so ``k``'s is the same there; at any other call the play found no span or one below
    #   the min target, and ``k``'s split lies at or before that play's: its span is no larger, nothing to do either.

    def _can_follow(self) -> bool:
        return self.follows and not self.record and self.live is None

    def _ratio_follows(self, played: Played, threshold: int) -> bool:
        return self._can_follow() and all(a.context_tokens >= threshold for a in played.compactions)

    def _keep_follows(self, played: Played, keep: int) -> bool:
        return (
            self._can_follow()
            and played.outcome.keep_recent_messages < keep
            and all(a.span[2] >= keep for a in played.compactions)
        )

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
        self.compactions = self.refused = self.calls = self.request_total = self.maskings = 0
        self.agent = self.peak = self.over = 0
        # The cache: what the calls read from it, and the window the previous call left in it.
        self.cached = self.request_cached = self.output_total = self.last_sent = 0
        self._prev_size = 0  # context messages the previous call sent
        self._usable = 0  # of the previous window, what still matches the context at this call
        self._changed_from = UNCHANGED  # first position an attempt at this call changed
        self.node = 0
        self._reset_context()

    # -- stretches without a compaction ---------------------------------------------------------

    def _base(self) -> int:
        """Once compacted, the window at call point ``j`` is this plus ``point_cumulative[j]`` until the next change."""
        original = self.index.original_cumulative
        o0 = self.plain_from - (len(self.entries) - self.materialised)
        return self._front() + LIST_OVERHEAD + self.cumulative[self.plain_from] - original[o0]

    def _pass_original(self, step: int, hit: int) -> None:
        """Calls ``[step, hit)`` send the original run's windows (nothing compacted yet)."""
        if hit <= step:
            return
        unc = self.uncompacted
        self.agent += self.uncompacted_sums[hit] - self.uncompacted_sums[step]
        self.over += self._over_before[hit] - self._over_before[step]
        self.peak = max(self.peak, *unc[step:hit])
        self.cached += self._cached_before[hit] - self._cached_before[step]
        self.last_sent = unc[hit - 1]

    def _pass_compacted(self, step: int, hit: int, base: int) -> None:
        """Calls ``[step, hit)`` send ``base + point_cumulative[j]``: each reads the previous one from the cache."""
        if hit <= step:
            return
        point_cumulative, point_sums = self.index.point_cumulative, self.index.point_sums
        self.agent += (hit - step) * base + point_sums[hit] - point_sums[step]
        self.peak = max(self.peak, base + point_cumulative[hit - 1])
        self.over += hit - bisect_right(point_cumulative, self.context_max - base, step, hit)
        self.cached += min(self.last_sent, base + point_cumulative[step])
        self.cached += (hit - 1 - step) * base + point_sums[hit - 1] - point_sums[step]
        self.last_sent = base + point_cumulative[hit - 1]

    def _skim(self) -> None:
        """The whole run without recording steps: stretches of steps that cannot compact are summed at once."""
        index = self.index
        points, unc, original, peaks = (
            index.call_points,
            self.uncompacted,
            index.original_cumulative,
            self._peaks,
        )
        point_cumulative, last_user_upto = index.point_cumulative, index.last_user_upto
        count = len(points)
        threshold, min_target, keep, starts = self.threshold, self.min_target, self.keep, self.keep_starts
        compress = index.original_compress(keep)
        step = 0
        while step < count:
            if not self.compacted:
                # The context is the original run's: it compacts where the original span would. No window
                # before the first one that reaches the threshold can.
                hit = bisect_left(peaks, threshold, step)
                while hit < count and (unc[hit] < threshold or compress[hit] < min_target):
                    hit += 1
                self._pass_original(step, hit)
            else:
                # Window = base + cumulative[i]; the span is the original's once a user message came after the
                # frozen part, else it starts after the frozen last user. A tail reaching into the frozen part
                # (or a hit) ends the stretch and takes the general step.
                entries, cumulative = self.entries, self.cumulative
                shift = len(entries) - self.materialised
                o0 = self.plain_from - shift
                base = self._base()
                start = self.frozen_last_user + 1
                offset = cumulative[self.plain_from] - original[o0] - cumulative[start] + LIST_OVERHEAD
                # The windows only grow along the stretch: every call from the first one at the threshold on is
                # at or above it.
                hit = bisect_left(point_cumulative, threshold - base, step)
                while hit < count:
                    i = points[hit]
                    if last_user_upto[i] >= o0:
                        if (keep and starts[hit] < o0) or compress[hit] >= min_target:
                            break
                    elif start > 0:
                        split = starts[hit] if keep else i
                        if split < o0 or (split + shift > start and offset + original[split] >= min_target):
                            break
                    hit += 1
                self._pass_compacted(step, hit, base)
            if hit >= count:
                return
            self._step(hit)
            step = hit + 1

    # -- one model call ------------------------------------------------------------------------

    def _window(self) -> int:
        """The counted window of the whole held context (every original up to the call is materialised)."""
        return self._front() + self.cumulative[-1] + LIST_OVERHEAD

    def _step(self, step: int) -> None:
        """One model-call point, computed in full."""
        index = self.index
        i = index.call_points[step]
        entries, original = self.entries, index.original_cumulative
        materialised = self.materialised
        shift = len(entries) - materialised
        size = len(entries) + i - materialised
        self._prev_size = len(entries) + index.call_points[step - 1] - materialised if step else 0
        self._usable, self._changed_from = self.last_sent, UNCHANGED
        source: TotalSource
        if self.compacted:
            body = self.cumulative[-1] + original[i] - original[materialised]
            total = index.system_tokens + body + LIST_OVERHEAD + index.tools_tokens + self.hidden
            source = "counted"
        else:
            total, source = self.uncompacted[step], index.sources[step]
        reason, compress, attempts = self._attempts(step, i, total, size, shift)
        sent = total
        for attempt in attempts:
            self.calls += attempt.calls
            self.request_total += attempt.request_tokens
            self.request_cached += attempt.request_cached_tokens
            self.output_total += attempt.output_tokens
            if attempt.status == "compacted":
                sent = attempt.sent_tokens
                if attempt.kind == "masking":
                    self.maskings += 1
                else:
                    self.compactions += 1
            else:
                self.refused += 1
            self.events.append(attempt)
        cached = min(self._usable, sent)
        self.agent += sent
        self.cached += cached
        self.last_sent = sent
        self.peak = max(self.peak, sent)
        if sent > self.context_max:
            self.over += 1
        if self.record:
            event = step_event(attempts)
            last = attempts[-1] if attempts else None
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
                    skip_reason=last.reason if last and event == "skipped" else "",
                    messages=len(self.entries) + i - self.materialised,
                    compress_tokens=compress,
                    summary_tokens=last.summary_tokens if last else 0,
                    memory_tokens=last.memory_tokens if last else 0,
                    reinjection_tokens=last.reinjection_tokens if last else 0,
                    compaction_request_tokens=sum(a.request_tokens for a in attempts),
                    cached_tokens=cached,
                )
            )
