"""Dump folders stay inside the roots; parsed dumps and their spans are cached by file version."""

from __future__ import annotations

import shutil
from pathlib import Path

from dashboard import roots
from dashboard.state import dumps, keys
from tests.dashboard.conftest import OPENJIUWEN_DUMPS, run_script

DUMP = next((OPENJIUWEN_DUMPS / "compact015").glob("*.json"))


class TestFolders:
    def test_the_demo_session_is_opened_first_where_a_root_has_it(self, tmp_path: Path) -> None:
        empty, holding = tmp_path / "empty", tmp_path / "holding"
        (holding / dumps.DEMO_DUMP_FOLDER).mkdir(parents=True)
        empty.mkdir()
        assert dumps.default_dump_folder([empty, holding]) == (1, dumps.DEMO_DUMP_FOLDER)
        assert dumps.default_dump_folder([empty]) == (0, "")

    def test_a_kept_live_dump_goes_to_the_projects_dumps(self) -> None:
        assert dumps.live_dump_dir(True) == roots.PROJECT_DIR / "dumps" / dumps.LIVE_DUMP_SUBFOLDER


def review() -> None:
    import streamlit as st

    from dashboard import roots
    from dashboard.state import dumps

    st.session_state["review"] = dumps.review_folder(roots.configured_roots())


class TestReviewFolder:
    def test_none_without_roots(self) -> None:
        assert dumps.review_folder([]) is None

    def test_the_chosen_folder_under_its_root(self, dump_root: Path) -> None:
        at = run_script(review, state={keys.K_DUMP_FOLDER: (0, "openjiuwen-dumps")})
        chosen = at.session_state["review"]
        assert chosen.path == (dump_root / "openjiuwen-dumps").resolve() and chosen.error is None
        assert chosen.label.endswith("openjiuwen-dumps")

    def test_a_folder_outside_the_root_is_refused_with_a_reason(self, dump_root: Path) -> None:
        at = run_script(review, state={keys.K_DUMP_FOLDER: (0, "../..")})
        chosen = at.session_state["review"]
        assert chosen.path is None and chosen.error


class TestCaches:
    def test_a_dump_and_its_span_are_read_once_per_version(self, tmp_path: Path) -> None:
        path = tmp_path / DUMP.name
        shutil.copy(DUMP, path)
        record = dumps.dump_record(str(path))
        assert dumps.dump_record(str(path)) is record
        span = dumps.dump_span(str(path), "cl100k_base")
        assert span == record.span("cl100k_base")
        assert dumps.dump_span(str(path), "cl100k_base") is span
        assert dumps.dump_span(str(path), "string_length").counter == "string_length"

    def test_the_index_walks_fresh_but_parses_each_file_once(self, tmp_path: Path) -> None:
        shutil.copytree(OPENJIUWEN_DUMPS, tmp_path / "dumps")
        first = dumps.dump_index(tmp_path / "dumps")
        read = dumps.dump_index_cache().files_read
        again = dumps.dump_index(tmp_path / "dumps")
        assert again.dumps == first.dumps and len(first.dumps) == 3
        assert dumps.dump_index_cache().files_read == read
