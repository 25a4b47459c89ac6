"""Retention: the hand-written span's summary scores exactly; counts add up; kept messages turn a miss into
"elsewhere"; to_dict names categories, statuses and match codes."""

from __future__ import annotations

from compressor.quality import CATEGORIES, build_ledger, score
from compressor.quality.retention import Tally, macro
from tests.compressor.quality.handmade import MATCHES, RETENTION, SPAN, SUMMARY


def test_the_hand_written_span_scores_exactly() -> None:
    retention = score(build_ledger(SPAN), SUMMARY)
    assert {c: (t.kept, t.total, t.exact) for c, t in retention.by_category.items()} == RETENTION
    assert {i.artifact.key: i.match for i in retention.items if i.status == "kept"} == MATCHES
    assert (retention.overall.kept, retention.overall.total) == (15, 25)


def test_counts_add_up_in_every_category() -> None:
    retention = score(build_ledger(SPAN), SUMMARY, kept_text="Never push to main.")
    for category, tally in retention.by_category.items():
        assert tally.kept + tally.elsewhere + tally.lost == tally.total
        assert len(retention.of(category)) == tally.total


def test_kept_messages_make_a_miss_elsewhere_not_lost() -> None:
    retention = score(build_ledger(SPAN), SUMMARY, kept_text="Never push to main.")
    constraints = retention.by_category["constraints"]
    assert (constraints.kept, constraints.elsewhere, constraints.lost) == (1, 1, 0)
    assert retention.lost()["constraints"] == ()


def test_an_empty_summary_keeps_nothing() -> None:
    retention = score(build_ledger(SPAN), "")
    assert retention.overall.kept == 0 and retention.overall.total == 25


def test_to_dict_shape() -> None:
    data = score(build_ledger(SPAN), SUMMARY).to_dict()
    assert list(data) == ["retention", "lost", "overall"]
    assert list(data["retention"]) == list(CATEGORIES) and list(data["lost"]) == list(CATEGORIES)
    assert data["retention"]["paths"] == {
        "kept": 3,
        "total": 4,
        "exact": 2,
        "elsewhere": 0,
        "lost": 1,
        "ratio": 0.75,
    }
    assert [i["key"] for i in data["lost"]["paths"]] == ["CHANGELOG.md"]
    assert {i["status"] for i in data["lost"]["paths"]} == {"lost"}
    assert data["overall"]["kept"] == 15 and data["overall"]["macro"] is not None


def test_tallies_add_and_a_category_without_items_has_no_ratio() -> None:
    total = Tally(total=2, kept=1, exact=1) + Tally(total=3, kept=3, elsewhere=0)
    assert (total.total, total.kept, total.exact, total.lost) == (5, 4, 1, 1)
    assert Tally().ratio is None
    assert macro({"paths": Tally(total=2, kept=1), "todos": Tally()}) == 0.5
