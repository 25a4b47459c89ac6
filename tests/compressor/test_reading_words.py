"""Every reading a reader makes of the bundled fixtures and samples has its own words (``census.READING_TEXT``, which
the dashboard translates): none falls back to its bare code or to a reader's one-off English note."""

from __future__ import annotations

from compressor.census import READING_TEXT
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversations
from tests.conftest import FIXTURES

NOT_RUNS = (".md", ".txt", ".py", ".zip", ".gz")


def readings_of_every_fixture() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in sorted(FIXTURES.rglob("*")):
        if not path.is_file() or path.suffix in NOT_RUNS:
            continue
        try:
            conversations = load_conversations(path)
        except ConversationFormatError:
            continue  # the bad-input fixtures
        for conversation in conversations:
            for reading in conversation.readings:
                found.setdefault(reading.code, set()).add(str(path.relative_to(FIXTURES)))
    return found


def test_every_reading_the_fixtures_give_has_words_of_its_own() -> None:
    found = readings_of_every_fixture()
    assert len(found) >= 10, sorted(found)  # the fixtures do exercise the readings
    unworded = {code: sorted(files)[:3] for code, files in found.items() if code not in READING_TEXT}
    assert not unworded, unworded
