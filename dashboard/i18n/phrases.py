"""Codes and numbers the library returns, in words: decisions, reasons, statuses, capacities, compaction
attempts, the Demo page's captions and the recommendation.

Invariant: pure — the language is always a parameter; every sentence is one string of ``en.py``/``zh.py``
formatted with the value's own numbers, and English decisions and statuses are the library's own sentences.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from compressor.compaction_result import CompactionResult
from compressor.dumps import DumpRecord
from compressor.replay import CompactionEvent, Outcome, Recommendation, Simulation, Step
from compressor.trigger import Decision
from compressor.window_parts import RunPeaks
from compressor.windows import Capacity

from .catalog import counted, known, percent, translate
from .terms import term_help

#: Kinds of secret (``compressor.secrets``) with words of their own; another kind is shown as itself.
SECRET_KINDS: tuple[str, ...] = (
    "private_key",
    "anthropic_key",
    "openai_key",
    "aws_access_key",
    "github_token",
    "slack_token",
    "google_api_key",
    "url_credentials",
    "bearer_token",
    "assignment",
)


def capacity_text(capacity: Capacity, language: str) -> str:
    """Where ``context_max`` came from, in words."""
    if capacity.source == "default" and capacity.model:
        return translate(language, "capacity.default_unknown", tokens=capacity.tokens, model=capacity.model)
    return translate(
        language, f"capacity.{capacity.source}", tokens=capacity.tokens, model=capacity.model or ""
    )


def explain(decision: Decision, language: str) -> str:
    """The decision in one sentence with its exact numbers (English is ``Decision.explain()`` itself)."""
    if language == "en":
        return decision.explain()
    return translate(
        language,
        f"decision.{decision.reason}",
        total=decision.total_tokens,
        threshold=decision.threshold,
        target=decision.target_tokens or 0,
        min_target=decision.min_target_tokens or 0,
    )


def reason_text(reason: str, language: str) -> str:
    """A trigger, compactor or replay reason code in words (an unknown code as itself)."""
    key = f"reason.{reason}"
    return translate(language, key) if known(key) else reason


def failure_cause(result: CompactionResult, language: str) -> str:
    """Why a compaction failed: openJiuwen's class of the failure in words, or, when it has none (a refused
    connection, a reply that is not JSON), the first line of what the endpoint or the client said."""
    if result.reason in ("unknown", "") and result.error:
        return " ".join(result.error.split()).rstrip(".")
    return reason_text(result.reason, language)


def status_text(result: CompactionResult, language: str) -> str:
    """A compaction result in one sentence (English is the result's own ``status_text``, but for a failure,
    whose headline is its classified cause)."""
    if result.status == "failed":
        return translate(
            language,
            "status_text.failed",
            calls=counted(result.calls, "call", language),
            reason=failure_cause(result, language),
        )
    if language == "en":
        return result.status_text
    return translate(
        language,
        f"status_text.{result.status}",
        count=result.span_counts[1],
        before=result.tokens_before,
        after=result.tokens_after,
        ratio=result.reduction_ratio,
        calls=result.calls,
        reason=reason_text(result.reason, language),
    )


def outcome_text(status: str, reason: str, language: str) -> str:
    """A compaction attempt of a replay (its status and reason codes): compacted, discarded, or skipped and why."""
    if status == "compacted":
        return translate(language, "status.compacted")
    if reason == "no_benefit":
        return translate(language, "status.no_benefit")
    return translate(
        language,
        "status.skipped_because",
        status=translate(language, "status.skipped"),
        reason=reason_text(reason, language),
    )


def outcome_words(language: str) -> Callable[[str, str], str]:
    """``outcome_text`` in ``language``: what a chart or a table is given to word compaction attempts with."""
    return lambda status, reason: outcome_text(status, reason, language)


def first_trigger_text(outcome: Outcome, language: str) -> str:
    """Where the trigger first fires on the uncompacted run: ``#index``, or never."""
    index = outcome.first_trigger_index
    return translate(language, "tune.never") if index is None else f"#{index}"


def secret_kind(kind: str, language: str) -> str:
    """A kind of secret in words; an unknown kind as itself."""
    return translate(language, f"secrets.kind.{kind}") if kind in SECRET_KINDS else kind


def recommendation_sentences(recommendation: Recommendation, language: str) -> list[str]:
    """Why a setting is recommended, one sentence per reason code, in ``language`` (the CLI uses English)."""
    return [
        translate(language, f"why.{reason.code}", **_with_counts(reason.values, language))
        for reason in recommendation.reasons
    ]


def _with_counts(values: Mapping[str, Any], language: str) -> dict[str, Any]:
    """A reason's values, with a count of compactions also in words ("1 compaction", "2 compactions")."""
    out = dict(values)
    if isinstance(values.get("compactions"), int):
        out["compactions_counted"] = counted(values["compactions"], "compaction", language)
    return out


def recommendation_verdict(recommendation: Recommendation, language: str) -> str:
    """The recommended setting in one sentence, or that none of the sweep qualifies."""
    chosen = recommendation.setting
    if chosen is None:
        return translate(language, "tune.recommend.none", headroom=f"{recommendation.headroom:.0%}")
    return translate(
        language,
        "tune.recommend.use",
        ratio=f"{chosen.trigger_context_ratio:g}",
        keep=chosen.keep_recent_messages,
        min_target=f"{chosen.min_target_context_ratio:g}",
    )


def step_headline(
    step: Step, event: CompactionEvent | None, run: Simulation, language: str
) -> tuple[str, str]:
    """One model call of a replay in two plain sentences: what happened, then what it means."""

    def say(key: str, **fmt: object) -> str:
        return translate(language, key, **fmt)

    if event is not None and event.status == "compacted":
        return (
            say(
                "demo.caption.compacted",
                tokens=step.context_tokens,
                threshold=step.threshold,
                count=event.span[1],
            ),
            say(
                "demo.caption.replaced",
                compress=event.compress_tokens,
                memory=event.memory_tokens,
                before=step.context_tokens,
                after=step.sent_tokens,
            ),
        )
    if event is not None:
        why = say("demo.no_benefit") if event.reason == "no_benefit" else reason_text(event.reason, language)
        return (
            say("demo.caption.crossed", tokens=step.context_tokens, threshold=step.threshold),
            say("demo.caption.refused", reason=why),
        )
    if step.reason != "below_threshold":
        return (
            say("demo.caption.crossed", tokens=step.context_tokens, threshold=step.threshold),
            say("demo.caption.held", reason=reason_text(step.reason, language)),
        )
    used = say("demo.caption.used", used=step.context_tokens, capacity=run.context_max)
    if step.uncompacted_tokens != step.context_tokens:
        return used, say("demo.caption.without", uncompacted=step.uncompacted_tokens)
    return used, say(
        "demo.caption.starts", threshold=step.threshold, ratio=f"{run.outcome.trigger_context_ratio:.0%}"
    )


# -- numbers as a page shows them -----------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Stat:
    """One number as a page shows it: its label, the number written out, what it means, and its change
    (fewer is better)."""

    label: str
    value: str
    help: str | None = None
    delta: str | None = None


def result_stats(result: CompactionResult, language: str) -> list[Stat]:
    """A compaction's five headline numbers."""
    say = partial(translate, language)
    return [
        Stat(
            label=say("metric.tokens_before"),
            value=f"{result.tokens_before:,}",
            help=term_help("context_tokens", language),
        ),
        Stat(
            label=say("metric.tokens_after"),
            value=f"{result.tokens_after:,}",
            delta=f"{-result.saved_tokens:,}" if result.saved_tokens else None,
            help=term_help("context_tokens", language),
        ),
        Stat(label=say("metric.saved"), value=percent(result.reduction_ratio), help=say("metric.saved_help")),
        Stat(
            label=say("metric.request_tokens"),
            value=f"{result.request_tokens:,}",
            help=say("metric.request_help"),
        ),
        Stat(label=say("metric.calls"), value=f"{result.calls:,}", help=result.backend_label),
    ]


def outcome_stats(outcome: Outcome, peaks: RunPeaks, language: str) -> list[Stat]:
    """A setting's six key numbers over a replayed run; the peak is the window the trigger read (``peaks``), the
    same quantity as the threshold."""
    say = partial(translate, language)
    saved = outcome.agent_input_tokens_saved
    return [
        Stat(
            label=say("tune.metric.first_trigger"),
            value=first_trigger_text(outcome, language),
            help=say("tune.metric.first_trigger_help", threshold=outcome.threshold),
        ),
        Stat(
            label=say("tune.metric.compactions"),
            value=f"{outcome.compactions:,}",
            help=say("tune.metric.compactions_help", refused=outcome.refused),
        ),
        Stat(
            label=say("tune.metric.peak"),
            value=percent(peaks.read_share),
            help=say(
                "tune.metric.peak_help",
                index=peaks.read_index if peaks.read_index is not None else 0,
                peak=peaks.read_tokens,
                context_max=peaks.capacity,
                threshold=peaks.threshold,
                sent=peaks.sent_tokens,
                sent_share=percent(peaks.sent_share),
            ),
        ),
        Stat(
            label=say("tune.metric.compaction_input"),
            value=f"{outcome.compaction_input_tokens:,}",
            help=say(
                "tune.metric.compaction_input_help", calls=counted(outcome.compaction_calls, "call", language)
            ),
        ),
        Stat(
            label=say("tune.metric.agent_input"),
            value=f"{outcome.agent_input_tokens:,}",
            delta=f"{-saved:,}" if saved else None,
            help=say("tune.metric.agent_input_help"),
        ),
        Stat(
            label=say("tune.metric.agent_input_uncompacted"),
            value=f"{outcome.agent_input_tokens_uncompacted:,}",
        ),
    ]


def dump_stats(record: DumpRecord, language: str) -> list[Stat]:
    """A dump's five headline numbers, as it recorded them."""
    say = partial(translate, language)
    return [
        Stat(label=say("metric.tokens_before"), value=f"{record.tokens_before:,}"),
        Stat(label=say("metric.tokens_after"), value=f"{record.tokens_after:,}"),
        Stat(label=say("metric.saved"), value=percent(record.reduction_ratio)),
        Stat(
            label=say("term.capacity"), value=f"{record.context_max:,}", help=term_help("capacity", language)
        ),
        Stat(
            label=say("metric.span_counts"),
            value=f"{record.prefix_count} / {record.compress_count} / {record.tail_count}",
        ),
    ]
