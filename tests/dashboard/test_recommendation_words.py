"""The recommendation says the same things in English and 简体中文: one sentence per reason code, same numbers."""

from __future__ import annotations

import re

import pytest

from compressor.replay import Outcome, Recommendation, Sweep, recommend
from compressor.windows import Capacity
from dashboard.i18n import recommendation_sentences

NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?%?")


def outcome(ratio: float, keep: int, *, peak: int, compactions: int = 1, cost: int = 1000) -> Outcome:
    return Outcome(
        trigger_context_ratio=ratio, keep_recent_messages=keep, min_target_context_ratio=0.1, context_max=1000,
        threshold=int(1000 * ratio), min_target_tokens=100, steps=10, first_trigger_index=3,
        compactions=compactions, refused=0, peak_tokens=peak, steps_over_capacity=0, compaction_calls=compactions,
        compaction_input_tokens=cost, agent_input_tokens=50_000, agent_input_tokens_uncompacted=60_000,
    )


def swept(*outcomes: Outcome, steps: int = 10) -> Sweep:
    return Sweep(
        ratios=tuple(sorted({o.trigger_context_ratio for o in outcomes})),
        keeps=tuple(sorted({o.keep_recent_messages for o in outcomes})),
        min_targets=(0.1,),
        outcomes=outcomes,
        capacity=Capacity(1000, "explicit"),
        counter="cl100k_base",
        summary="ratio:0.1",
        source="hand-made",
        steps=steps,
    )


CASES = {
    "one pick, no tie": recommend(swept(outcome(0.5, 0, peak=600), outcome(0.7, 0, peak=880))),
    "a tie at the best ratio": recommend(
        swept(outcome(0.8, 0, peak=700, compactions=4, cost=100), outcome(0.8, 4, peak=700, compactions=2, cost=500))
    ),
    "compaction never fires": recommend(swept(outcome(0.9, 0, peak=500, compactions=0, cost=0))),
    "nothing qualifies": recommend(swept(outcome(0.5, 0, peak=1200), outcome(0.8, 0, peak=1500)), headroom=0.2),
    "no model call": recommend(swept(outcome(0.5, 0, peak=0), steps=0)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_languages_say_the_same_things(name: str) -> None:
    recommendation: Recommendation = CASES[name]
    english = recommendation_sentences(recommendation, "en")
    chinese = recommendation_sentences(recommendation, "zh")
    assert len(english) == len(chinese) == len(recommendation.reasons)
    for en, zh in zip(english, chinese, strict=True):
        assert sorted(NUMBER.findall(en)) == sorted(NUMBER.findall(zh)), (en, zh)


def test_a_tie_break_is_mentioned_only_when_there_was_one() -> None:
    tie_words = {"en": "settings at that ratio", "zh": "该比例下共有"}
    for name, recommendation in CASES.items():
        for language, words in tie_words.items():
            said = any(words in sentence for sentence in recommendation_sentences(recommendation, language))
            assert said == ("tie_break" in recommendation.codes), (name, language)


def test_the_tie_case_has_a_tie_and_the_others_do_not() -> None:
    assert [name for name, rec in CASES.items() if "tie_break" in rec.codes] == ["a tie at the best ratio"]
