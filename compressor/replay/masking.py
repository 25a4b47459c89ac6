"""The baselines beside openJiuwen's compressor: observation masking, and the hybrid that masks first.

*Masking* (JetBrains, "The Complexity Trap", arXiv 2508.21433): when the window reaches the trigger threshold,
every tool result older than the last ``keep_results`` is replaced by a short placeholder — no model call. A
result no bigger than its placeholder is left as it is. *Hybrid*: mask first; when the window is still at or
above the threshold, summarise the masked context as openJiuwen would (SPEC §8, §10).

Invariant: same run, same trigger, same cache model and values as ``Player``; masking replaces messages one for
one (positions never shift), so only the summary of the hybrid rearranges the context.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate

from ..errors import ConfigError
from ..tokens import LIST_OVERHEAD
from .index import RunIndex
from .player import Player
from .recovered import RecoveredFiles
from .values import CompactionEvent, SummaryModel

#: What a masked tool result says instead of its content.
MASK_PLACEHOLDER = "[older tool output omitted to save context]"
#: Tool results kept as they are, newest first: the paper's masking window keeps the latest ten observations.
MASK_KEEP_RESULTS = 10


class MaskingPlayer(Player):
    """Plays a run back with observation masking (``summarise=False``) or the hybrid (``summarise=True``)."""

    strategy = "masking"
    summarise = False
    follows = False  # masking reads the held context on its own: every setting is played

    def __init__(
        self,
        index: RunIndex,
        context_max: int,
        model: SummaryModel,
        *,
        keep_results: int = MASK_KEEP_RESULTS,
        record: bool = False,
        hidden_overhead: int = 0,
    ) -> None:
        if keep_results < 0:
            raise ConfigError(f"keep_results: {keep_results} is not a number of tool results to keep (≥ 0)")
        if model.kind == "live":
            raise ConfigError("summary: the masking baselines take offline, fixed:N or ratio:X")
        super().__init__(index, context_max, model, record=record, hidden_overhead=hidden_overhead)
        self.keep_results = keep_results
        self.tool_originals = [i for i in range(index.n) if index.roles[i] == "tool"]

    def _reset(self, trigger_ratio: float, keep: int, min_target_ratio: float) -> None:
        super()._reset(trigger_ratio, keep, min_target_ratio)
        self.unmasked: list[int] = []  # positions of the held tool results not masked yet, in order

    # -- the context ---------------------------------------------------------------------------

    def _materialise(self, upto: int) -> None:
        start = self.materialised
        shift = len(self.entries) - start
        super()._materialise(upto)
        tools = self.tool_originals
        self.unmasked.extend(o + shift for o in tools[bisect_left(tools, start) : bisect_left(tools, upto)])

    def _replace(self, start: int, split: int, added: list[int]) -> None:
        super()._replace(start, split, added)
        roles, masked = self.index.roles, self._is_masked
        self.unmasked = [p for p, e in enumerate(self.entries) if roles[e] == "tool" and not masked(e)]

    def _is_masked(self, entry: int) -> bool:
        return entry >= self.index.n and self.index.roles[entry] == "tool"

    # -- stretches and calls ----------------------------------------------------------------------

    def _skim(self) -> None:
        """Stretches below the threshold summed at once; every call at or above it takes the general step."""
        unc, point_cumulative = self.uncompacted, self.index.point_cumulative
        count, threshold = len(self.index.call_points), self.threshold
        step = 0
        while step < count:
            if not self.compacted:
                hit = step
                while hit < count and unc[hit] < threshold:
                    hit += 1
                self._pass_original(step, hit)
            else:
                base = self._base()
                hit = bisect_left(point_cumulative, threshold - base, step)
                self._pass_compacted(step, hit, base)
            if hit >= count:
                return
            self._step(hit)
            step = hit + 1

    def _attempts(
        self, step: int, i: int, total: int, size: int, shift: int
    ) -> tuple[str, int | None, list[CompactionEvent]]:
        if total < self.threshold:
            return "below_threshold", None, []
        if self.first is None:
            self.first = i
        self._materialise(i)
        attempts: list[CompactionEvent] = []
        masked = self._mask(step, i, total)
        if masked is not None:
            attempts.append(masked)
            total = masked.sent_tokens
        if not self.summarise or total < self.threshold:
            return "reached_threshold" if masked is not None else "nothing_to_mask", None, attempts
        size = len(self.entries)
        reason, compress, attempt = self._summarise(step, i, total, size, size - self.materialised)
        if attempt is not None:
            attempts.append(attempt)
        return reason, compress, attempts

    def _mask(self, step: int, i: int, total: int) -> CompactionEvent | None:
        """Mask every held tool result but the newest ``keep_results`` (the held context is materialised to i)."""
        index, entries, cumulative, tokens = self.index, self.entries, self.cumulative, self.index.tokens
        unmasked = self.unmasked
        cut = len(unmasked) - min(self.keep_results, len(unmasked))
        older, self.unmasked = unmasked[:cut], unmasked[cut:]
        changes: list[tuple[int, int, int]] = []  # position, masked entry, original entry
        for p in older:
            entry = entries[p]
            masked = index.masked_result(entry, MASK_PLACEHOLDER)
            if tokens[masked] < tokens[entry]:
                changes.append((p, masked, entry))
        if not changes:
            return None
        size = len(entries)
        first = changes[0][0]
        before = cumulative[size] + LIST_OVERHEAD
        prefix_tokens = self._list_tokens(0, first)
        for p, masked, _ in changes:
            entries[p] = masked
        cumulative[first : size + 1] = accumulate(
            map(tokens.__getitem__, entries[first:size]), initial=cumulative[first]
        )
        if self.summarise:
            # the hybrid's summary looks calls up by position and walks the rounds: both must see the new part
            positions, frozen_end = self._frozen_index, self.plain_from
            for p, masked, entry in changes:
                if p < frozen_end:
                    positions.pop(entry, None)
                    positions[masked] = p
            positions.update(zip(entries[frozen_end:], range(frozen_end, size), strict=True))
            self.files = RecoveredFiles(index)  # masking may change messages before the last user request
        self.compacted = True
        self.plain_from = size
        self.frozen_last_user = self.last_user
        preserved = self._front() + cumulative[first]
        event = CompactionEvent(
            index=i,
            status="compacted",
            kind="masking",
            context_tokens=total,
            span=(first, len(changes), len(self.unmasked)),
            compress_tokens=sum(tokens[entry] for _, _, entry in changes),
            summary_tokens=0,
            memory_tokens=0,
            reinjection_tokens=0,
            reinjected_files=(),
            request_tokens=0,
            calls=0,
            tokens_before=before,
            tokens_after=cumulative[size] + LIST_OVERHEAD,
            prefix_tokens=prefix_tokens,
            tail_tokens=0,
            step=step,
            sent_tokens=self._window(),
            previous_tokens=self._usable,
            preserved_tokens=preserved,
            masked_results=len(changes),
        )
        self._usable = min(self._usable, preserved)
        self._changed_from = min(self._changed_from, first)
        return event


class HybridPlayer(MaskingPlayer):
    """Masks first; summarises as openJiuwen when the masked window is still at or above the threshold."""

    strategy = "hybrid"
    summarise = True
