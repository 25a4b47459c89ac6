"""Every table on every page of the demo is headed in words, in English and in Chinese: no column shows its
identifier (``tokens_before``, ``total_tokens``), no cell is empty (a grid draws it "None"), and whole numbers are
written with thousands separators."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.conftest import APP, APP_TIMEOUT, no_exception

PAGES = (
    "views/load.py",
    "views/span.py",
    "views/compact.py",
    "views/dumps.py",
    "views/tune.py",
    "views/demo.py",
)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_table_is_headed_in_words_and_has_no_empty_cell(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COMPACTION_LAB_ROOTS", raising=False)
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT)
    at.query_params["lang"] = language
    at.run()
    seen = 0
    for page in PAGES:
        at.switch_page(page).run()
        no_exception(at)
        for frame in at.dataframe:
            config = json.loads(frame.proto.columns or "{}")
            # a cell without a value is drawn as a grey "None": every table writes a dash instead
            assert not frame.value.isna().to_numpy().any(), (
                page,
                frame.value.columns[frame.value.isna().any()],
            )
            for column in frame.value.columns:
                label = config.get(column, {}).get("label")
                assert label and "_" not in label, (page, column, label)
                if str(frame.value[column].dtype) == "int64":
                    assert config[column]["type_config"]["format"] == "localized", (page, column)
            seen += 1
    assert seen >= 5  # the messages, the dump listing and its dump's tables, the replay's compactions
