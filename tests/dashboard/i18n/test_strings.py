"""The string tables (``en.py``, ``zh.py``): the same keys with the same format fields, every key a page or
renderer asks for present, every string used, and the Chinese strings Chinese."""

from __future__ import annotations

import re
import string
from pathlib import Path
from typing import get_args

import pytest

from compressor.compaction_result import Status
from compressor.errors import ErrorKind
from compressor.glossary import GLOSSARY
from compressor.replay import ReasonCode
from compressor.tokens import COUNTER_NAMES
from compressor.trigger import REASON_TEXT
from dashboard import report
from dashboard.i18n import (
    CHART_KEYS,
    COLUMN_KEYS,
    COMPACTION_HEADERS,
    COUNT_NOUNS,
    EN,
    NOTE_KEYS,
    PART_KEYS,
    ROLE_KEYS,
    SEGMENT_KEYS,
    STRINGS,
    ZH,
    zh,
)
from dashboard.i18n.phrases import SECRET_KINDS

DASHBOARD = Path(report.__file__).resolve().parent
#: A key written out where it is looked up: t("…"), say("…"), stop_when_empty("…") or translate(language, "…").
LITERAL_KEY = re.compile(
    r"""(?:\b(?:t|say|stop_when_empty)\(|\btranslate\(\s*\w+\s*,)\s*["']([a-z_.]+)["']"""
)


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def used_literal_keys() -> set[str]:
    keys: set[str] = set()
    for path in DASHBOARD.rglob("*.py"):
        keys.update(LITERAL_KEY.findall(path.read_text(encoding="utf-8")))
    return keys


def dynamic_keys() -> set[str]:
    """Keys built from values (f-strings), listed from the values they can take."""
    from dashboard.app import CONVERSATION_PAGES, RUN_PAGES

    keys = {spec[1] for spec in (*CONVERSATION_PAGES, *RUN_PAGES)}
    keys |= {f"status.{s}" for s in get_args(Status)} | {f"status_text.{s}" for s in get_args(Status)}
    keys |= {f"decision.{r}" for r in REASON_TEXT} | {f"reason.{r}" for r in REASON_TEXT}
    keys |= {f"reason.{kind.value}" for kind in ErrorKind} | {"reason.empty_summary"}
    keys |= {f"counter.{name}" for name in COUNTER_NAMES}
    keys |= {f"why.{code}" for code in get_args(ReasonCode)}
    keys |= {f"segment.{name}" for name in SEGMENT_KEYS} | {f"chart.{name}" for name in CHART_KEYS}
    keys |= {f"role.{name}" for name in ROLE_KEYS}
    keys |= {f"col.{name}" for name in COLUMN_KEYS} | {f"note.{name}" for name in NOTE_KEYS}
    keys |= set(COMPACTION_HEADERS.values()) | {f"secrets.kind.{kind}" for kind in SECRET_KINDS}
    keys |= {f"report.col.{name}" for name in (*report.COMPACTION_COLUMNS, *report.SWEEP_COLUMNS)}
    keys |= {
        f"report.fact.{name}"
        for name in (
            "first_trigger",
            "compactions",
            "peak_read",
            "peak",
            "over_capacity",
            "compaction_input",
            "agent_input",
        )
    }
    keys |= {
        "capacity.explicit",
        "capacity.model",
        "capacity.recorded",
        "capacity.default",
        "capacity.default_unknown",
    }
    keys |= {
        "sidebar.capacity.number",
        "sidebar.capacity.model",
    }
    keys |= {
        "compact.backend.offline",
        "compact.backend.openai",
        "dumps.source.folder",
        "dumps.source.upload",
    }
    keys |= {"dumps.rerun_backend.replay", "dumps.rerun_backend.live"}
    keys |= {f"tune.summary.{kind}" for kind in ("ratio", "fixed", "offline", "live")}
    keys |= {f"dumps.{side}" for side in ("before", "after")} | {
        f"dumps.{side}_message" for side in ("before", "after")
    }
    keys |= {
        f"result.tab.{n}" for n in ("summary", "prompt", "request", "reply", "attempts", "context", "debug")
    }
    keys |= {f"dumps.tab.{n}" for n in ("messages", "span", "prompt", "reply", "summary", "debug", "rerun")}
    keys |= {f"dumps.rerun.{slot}" for slot in ("recorded", "sidebar")}
    keys |= {f"term.{code}" for code in GLOSSARY} | {f"term.{code}.help" for code in GLOSSARY}
    keys |= {f"part.{code}" for code in PART_KEYS}
    keys |= {f"count.{noun}.{form}" for noun in COUNT_NOUNS for form in ("one", "other")}
    keys |= {"decision.condition.offline", "decision.condition.no_model"}
    keys |= quality_keys()
    return keys


def quality_keys() -> set[str]:
    """What a compaction kept and how a file was read (``i18n.quality``): keys built from the library's codes."""
    from typing import get_args as args_of

    from compressor import quality
    from compressor.census import READING_TEXT
    from dashboard.i18n.quality import COUNT_FIELDS

    keys = {f"quality.{kind}.{c}" for c in quality.CATEGORIES for kind in ("category", "kept")}
    keys |= {f"quality.status.{s}" for s in args_of(quality.Status)}
    keys |= {f"quality.match.{m}" for m in quality.MATCH_KINDS}
    reasons = (
        quality.NO_TEXT,
        quality.SIZED,
        quality.LIVE,
        quality.MISMATCH,
        quality.REFUSED,
        quality.LIVE_FAILED,
    )
    keys |= {f"quality.reason.{r}" for r in reasons}
    keys |= {f"reading.{code}.{form}" for code in READING_TEXT for form in ("one", "other")}
    return keys | {f"census.{name}" for name in COUNT_FIELDS}


class TestCompleteness:
    def test_both_languages_have_the_same_keys(self) -> None:
        assert set(EN) == set(ZH), {"only en": set(EN) - set(ZH), "only zh": set(ZH) - set(EN)}

    @pytest.mark.parametrize("key", sorted(EN))
    def test_translations_use_the_same_format_fields(self, key: str) -> None:
        assert fields(EN[key]) == fields(ZH[key])

    def test_no_empty_strings(self) -> None:
        assert [
            (lang, key) for lang, table in STRINGS.items() for key, text in table.items() if not text.strip()
        ] == []

    def test_every_key_a_page_uses_exists(self) -> None:
        used = used_literal_keys()
        assert len(used) > 150  # the scan found the pages' strings
        assert used - set(EN) == set()

    def test_every_string_is_used(self) -> None:
        assert set(EN) - used_literal_keys() - dynamic_keys() == set()

    def test_every_key_built_from_a_value_exists(self) -> None:
        assert dynamic_keys() - set(EN) == set()

    def test_every_term_of_the_glossary_has_a_chinese_formula(self) -> None:
        assert set(zh.FORMULAS) == set(GLOSSARY)

    def test_the_chinese_strings_are_chinese(self) -> None:
        untranslated = [
            key
            for key, text in ZH.items()
            if text == EN[key] and not re.fullmatch(r"[\w.{}:,()× =]+", EN[key]) and "tiktoken" not in text
        ]
        assert untranslated == []
