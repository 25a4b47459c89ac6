"""Probe grading (optional, needs a model): questions drawn from a ledger, answered from the context before and
after a compaction, graded blind by a judge on six 0–5 dimensions; the before-answer is the ceiling.

Invariant: the questions, the prompts and the order the judge sees the two answers in are deterministic; the
cost is estimated before any call (``estimate_probe_cost``) and every model call goes through a Backend. A failed
call marks its probe with a reason code and never stops the others.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..backends.base import Backend
from ..errors import BackendError
from ..evidence.artifacts import Artifact, Category, Ledger
from ..messages import Message
from ..tokens import TokenCounter, get_counter

ProbeKind = Literal["recall", "artifact", "continuation", "decision"]
PROBE_KINDS: tuple[ProbeKind, ...] = ("recall", "artifact", "continuation", "decision")
Dimension = Literal[
    "accuracy", "context_awareness", "artifact_trail", "completeness", "continuity", "instruction_following"
]
DIMENSIONS: tuple[Dimension, ...] = (
    "accuracy",
    "context_awareness",
    "artifact_trail",
    "completeness",
    "continuity",
    "instruction_following",
)
#: Tokens an answer and a verdict are assumed to cost when estimating, and the references a judge is shown.
ANSWER_TOKENS = 400
VERDICT_TOKENS = 200
REFERENCES = 20

_QUESTIONS: dict[str, tuple[ProbeKind, str, tuple[Category, ...]]] = {
    "constraints": (
        "recall",
        "Which rules or constraints did the user set for this work? Quote them.",
        ("constraints",),
    ),
    "errors": (
        "recall",
        "Which errors did the work run into? Give the messages as exactly as you can.",
        ("errors",),
    ),
    "numbers": (
        "recall",
        "Which measured values (sizes, timings, counts, percentages) came up? Give each with its "
        "unit and what it measured.",
        ("numbers",),
    ),
    "identifiers": (
        "recall",
        "Which identifiers (URLs, commit hashes, issue or ticket numbers, ids) came up, and "
        "what is each one?",
        ("identifiers",),
    ),
    "paths": (
        "artifact",
        "Which files were read, created or changed? List their paths and what happened to each.",
        ("paths",),
    ),
    "commands": (
        "artifact",
        "Which shell commands were run? Give them exactly, with what the important ones showed.",
        ("commands", "tools"),
    ),
    "next": (
        "continuation",
        "What exactly should be done next to continue the work, and what was in progress "
        "when this point was reached?",
        ("todos", "paths", "commands"),
    ),
    "todos": ("continuation", "Which tasks are still open?", ("todos",)),
    "decisions": ("decision", "Which decisions were taken about the approach, and why?", ("decisions",)),
}
_INSTRUCTION = (
    "Answer from the conversation above only, as the agent that did the work. Be specific: give exact paths, "
    "commands, error messages and values where you know them; say plainly what you do not know. Do not call tools."
)
_JUDGE = """You grade two answers to one question about an agent's work session. You do not know how either
answer was produced. Score each answer on each dimension from 0 (useless) to 5 (perfect):
- accuracy: what it states is true of the session
- context_awareness: it reflects the state of the work at that point, not a generic reply
- artifact_trail: it names the exact files, commands, errors and identifiers involved
- completeness: it covers everything the question asks
- continuity: someone could continue the work from it
- instruction_following: it answers the question as asked
Reference facts from the session (not exhaustive):
{references}

Question: {question}

Answer 1:
{first}

Answer 2:
{second}

Reply with JSON only, no prose: {{"1": {{"accuracy": n, ...all six...}}, "2": {{...}}}}"""


@dataclass(frozen=True, kw_only=True)
class Probe:
    """One question and the ledger artifacts a good answer would mention."""

    kind: ProbeKind
    topic: str  # the key of the question asked (``constraints``, ``paths``, ``next`` …)
    question: str
    references: tuple[Artifact, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "topic": self.topic,
            "question": self.question,
            "references": [item.to_dict() for item in self.references],
        }


def make_probes(ledger: Ledger) -> tuple[Probe, ...]:
    """A probe per topic the ledger has artifacts for (and always the next-step question), in a fixed order."""
    probes: list[Probe] = []
    for topic, (kind, question, categories) in _QUESTIONS.items():
        references = tuple(
            sorted(
                (item for item in ledger.items if item.category in categories), key=lambda i: -i.last_index
            )
        )[:REFERENCES]
        if references or topic == "next":
            probes.append(Probe(kind=kind, topic=topic, question=question, references=references))
    return tuple(probes)


@dataclass(frozen=True)
class ProbeCost:
    """What grading would send before it is started: model calls and input tokens, with assumed output sizes."""

    probes: int
    calls: int
    input_tokens: int
    output_tokens: int  # assumed: ANSWER_TOKENS per answer, VERDICT_TOKENS per verdict

    def to_dict(self) -> dict[str, Any]:
        return {
            "probes": self.probes,
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
        }


def _question(context: Sequence[Message], probe: Probe) -> list[Message]:
    return [*context, Message(role="user", content=f"{probe.question}\n\n{_INSTRUCTION}")]


def _blind_order(probe: Probe) -> bool:
    """Whether the before-answer is shown second: fixed per question, so the judge cannot learn a side."""
    return hashlib.sha256(probe.question.encode("utf-8")).digest()[0] % 2 == 1


def _judge_messages(probe: Probe, before: str, after: str) -> list[Message]:
    references = (
        "\n".join(f"- [{item.category}] {item.text[:200]}" for item in probe.references) or "- (none)"
    )
    first, second = (after, before) if _blind_order(probe) else (before, after)
    prompt = _JUDGE.format(references=references, question=probe.question, first=first, second=second)
    return [Message(role="user", content=prompt)]


def estimate_probe_cost(
    probes: Sequence[Probe],
    before: Sequence[Message],
    after: Sequence[Message],
    *,
    counter: str | TokenCounter = "cl100k_base",
) -> ProbeCost:
    """The calls and tokens ``grade_probes`` would make, so a UI can ask before spending them."""
    priced = get_counter(counter) if isinstance(counter, str) else counter
    placeholder = "x " * ANSWER_TOKENS
    input_tokens = 0
    for probe in probes:
        input_tokens += priced.count(_question(before, probe)) + priced.count(_question(after, probe))
        input_tokens += priced.count(_judge_messages(probe, placeholder, placeholder))
    return ProbeCost(
        probes=len(probes),
        calls=3 * len(probes),
        input_tokens=input_tokens,
        output_tokens=len(probes) * (2 * ANSWER_TOKENS + VERDICT_TOKENS),
    )


@dataclass(frozen=True, kw_only=True)
class ProbeGrade:
    """One probe answered before and after, and the judge's scores of each (empty when ``reason`` says why)."""

    probe: Probe
    before_answer: str
    after_answer: str
    before: dict[str, int]
    after: dict[str, int]
    reason: str = ""  # "" | "answer_failed" | "judge_failed" | "verdict_unreadable"

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.probe.to_dict(),
            "before_answer": self.before_answer,
            "after_answer": self.after_answer,
            "before": dict(self.before),
            "after": dict(self.after),
            "reason": self.reason,
        }


def _means(grades: Sequence[ProbeGrade], side: str) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for dimension in DIMENSIONS:
        values = [getattr(g, side)[dimension] for g in grades if dimension in getattr(g, side)]
        out[dimension] = round(sum(values) / len(values), 3) if values else None
    return out


@dataclass(frozen=True)
class ProbeReport:
    """Every probe's grade, and the mean per dimension before (the ceiling) and after the compaction."""

    grades: tuple[ProbeGrade, ...]
    cost: ProbeCost

    @property
    def before(self) -> dict[str, float | None]:
        return _means(self.grades, "before")

    @property
    def after(self) -> dict[str, float | None]:
        return _means(self.grades, "after")

    def overall(self, side: str) -> float | None:
        values = [v for v in _means(self.grades, side).values() if v is not None]
        return round(sum(values) / len(values), 3) if values else None

    def to_dict(self) -> dict[str, Any]:
        before, after = self.overall("before"), self.overall("after")
        return {
            "cost": self.cost.to_dict(),
            "grades": [grade.to_dict() for grade in self.grades],
            "before": self.before,
            "after": self.after,
            "overall": {
                "before": before,
                "after": after,
                "share_of_ceiling": round(after / before, 4) if before and after is not None else None,
            },
        }


_JSON_OBJECT = re.compile(r"\{.*\}", re.S)


def read_verdict(text: str) -> tuple[dict[str, int], dict[str, int]] | None:
    """The judge's scores of answer 1 and answer 2, or None when the reply holds no complete verdict."""
    found = _JSON_OBJECT.search(text)
    if found is None:
        return None
    try:
        data = json.loads(found.group(0))
    except ValueError:
        return None
    sides: list[dict[str, int]] = []
    for key in ("1", "2"):
        scores = data.get(key) if isinstance(data, dict) else None
        if not isinstance(scores, dict):
            return None
        side: dict[str, int] = {}
        for dimension in DIMENSIONS:
            value = scores.get(dimension)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 5:
                return None
            side[dimension] = round(value)
        sides.append(side)
    return sides[0], sides[1]


async def _grade(
    probe: Probe, before: Sequence[Message], after: Sequence[Message], answerer: Backend, judge: Backend
) -> ProbeGrade:
    try:
        before_answer = (await answerer.complete(_question(before, probe), ())).content
        after_answer = (await answerer.complete(_question(after, probe), ())).content
    except BackendError:
        return ProbeGrade(
            probe=probe, before_answer="", after_answer="", before={}, after={}, reason="answer_failed"
        )
    try:
        verdict = (await judge.complete(_judge_messages(probe, before_answer, after_answer), ())).content
    except BackendError:
        return ProbeGrade(
            probe=probe,
            before_answer=before_answer,
            after_answer=after_answer,
            before={},
            after={},
            reason="judge_failed",
        )
    read = read_verdict(verdict)
    if read is None:
        return ProbeGrade(
            probe=probe,
            before_answer=before_answer,
            after_answer=after_answer,
            before={},
            after={},
            reason="verdict_unreadable",
        )
    first, second = read
    before_scores, after_scores = (second, first) if _blind_order(probe) else (first, second)
    return ProbeGrade(
        probe=probe,
        before_answer=before_answer,
        after_answer=after_answer,
        before=before_scores,
        after=after_scores,
    )


async def grade_probes(
    probes: Sequence[Probe],
    before: Sequence[Message],
    after: Sequence[Message],
    *,
    answerer: Backend,
    judge: Backend | None = None,
    counter: str | TokenCounter = "cl100k_base",
) -> ProbeReport:
    """Each probe answered from ``before`` (the context the compaction replaced, with what it kept) and from
    ``after`` (the context it left), then graded blind by ``judge`` (default: the answering model), one by one."""
    grades = [await _grade(probe, before, after, answerer, judge or answerer) for probe in probes]
    return ProbeReport(grades=tuple(grades), cost=estimate_probe_cost(probes, before, after, counter=counter))
