"""Ledger values: categories by code, artifacts grouped in category order and by first mention, to_dict."""

from __future__ import annotations

from compressor.quality import CATEGORIES, EVIDENCE, PROSE, Artifact, Ledger


def artifact(category: str, key: str, index: int) -> Artifact:
    return Artifact(category=category, text=key, key=key, index=index, last_index=index)  # type: ignore[arg-type]


def test_the_categories_are_codes_in_a_fixed_order() -> None:
    assert CATEGORIES == (
        "paths",
        "commands",
        "errors",
        "identifiers",
        "numbers",
        "tools",
        "constraints",
        "todos",
        "decisions",
    )
    assert set(EVIDENCE) | set(PROSE) < set(CATEGORIES)


def test_a_ledger_groups_by_category_then_first_mention() -> None:
    ledger = Ledger.of_items(
        0, 9, [artifact("errors", "e", 1), artifact("paths", "b", 5), artifact("paths", "a", 2)]
    )
    assert [a.key for a in ledger.items] == ["a", "b", "e"]
    assert ledger.counts()["paths"] == 2 and ledger.counts()["todos"] == 0
    assert len(ledger) == 3 and ledger.of("errors")[0].key == "e"


def test_to_dict_lists_every_category() -> None:
    ledger = Ledger.of_items(3, 5, [artifact("tools", "bash", 3)])
    data = ledger.to_dict()
    assert data["span"] == [3, 5] and list(data["items"]) == list(CATEGORIES)
    assert data["items"]["tools"] == [
        {
            "category": "tools",
            "text": "bash",
            "key": "bash",
            "index": 3,
            "last_index": 3,
            "mentions": 1,
            "failures": 0,
        }
    ]
    assert "failures" not in artifact("paths", "p", 0).to_dict()
