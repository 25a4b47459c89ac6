"""Valid JSON never breaks a page (issue 15): the hostile conversations and dumps the CLI is held to
(``tests/compressor/test_total_loading.py``) load or show one error on every page, a live compaction of each that
loads ends without an exception, and a folder of hostile dumps is reviewed with its broken files listed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import zstandard
from streamlit.testing.v1 import AppTest

from compressor.formats import source
from dashboard import roots
from dashboard.state import keys
from tests.compressor.test_total_loading import DUMPS, INPUTS, dump_text
from tests.conftest import FIXTURES
from tests.dashboard.conftest import APP, APP_TIMEOUT, no_exception, unescaped
from tests.dashboard.test_page_robustness import PAGES

CODEX_ROLLOUT = "rollout-2025-09-19T17-02-12-01996135-afde-7911-97f0-d863511eca56.jsonl"


def upload(at: AppTest, name: str, text: str) -> AppTest:
    data = text.encode("utf-8", "surrogatepass")
    at.switch_page("views/load.py").run()
    at.file_uploader(key=keys.W_UPLOAD).set_value((name, data, "application/json")).run()
    no_exception(at)
    return at


class TestHostileConversations:
    @pytest.mark.parametrize(("name", "text", "expect"), INPUTS, ids=[case[0] for case in INPUTS])
    def test_it_loads_and_every_page_renders_or_it_is_one_error(
        self, app: AppTest, name: str, text: str, expect: str
    ) -> None:
        at = upload(app, f"{name}.json", text)
        errors = [unescaped(error.value) for error in at.error]
        if expect != "loads":
            assert len(errors) == 1 and expect in errors[0] and "Traceback" not in errors[0], errors
            return
        assert errors == []
        for page in PAGES:
            at.switch_page(page).run()
            no_exception(at)
        at.switch_page("views/compact.py").run()
        at.toggle(key=keys.W_FORCE).set_value(True).run()
        at.button(key=keys.page_widget("compact", "run")).click().run()
        no_exception(at)
        assert at.session_state[keys.K_LIVE_RESULT][1].status in (
            "compacted",
            "no_benefit",
            "failed",
            "skipped",
        )


class TestHostileDumpFolder:
    def test_the_good_dumps_are_shown_and_each_broken_one_listed(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        folder = tmp_path / "hostile"  # a folder in the root: the page reviews every dump below the root
        folder.mkdir()
        for name, text, _ in DUMPS:
            (folder / name).write_text(text, encoding="utf-8", errors="surrogatepass")
        (folder / os.fsdecode(b"1800000000013_name-\xff-not-utf8.json")).write_text(dump_text(), "utf-8")
        monkeypatch.setenv(roots.ROOTS_ENV, str(tmp_path))
        at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()
        at.switch_page("views/dumps.py").run()
        no_exception(at)
        listed = sum(1 for _, _, expect in DUMPS if expect == "listed")
        assert f"{listed} of {listed} dumps shown, in 1 folder" in [caption.value for caption in at.caption]
        broken = (
            len(DUMPS) + 1 - listed
        )  # the file whose name is not UTF-8 among them, and the page still stands
        assert any(e.label == f"{broken} files could not be read as dumps" for e in at.expander)
        for option in at.selectbox(key=keys.W_DUMP_PICK).proto.options:  # each listed dump in detail
            at.selectbox(key=keys.W_DUMP_PICK).set_value(option).run()
            no_exception(at)


class TestCompressedUploads:
    """A compressed upload (Codex's week-old rollouts are zstd) loads as the file inside; a damaged one or one
    that decompresses past the size limit is one error, and the page goes on."""

    def rollout(self) -> bytes:
        return (FIXTURES / "formats" / "codex" / CODEX_ROLLOUT).read_bytes()

    def load(self, at: AppTest, name: str, data: bytes) -> AppTest:
        at.switch_page("views/load.py").run()
        at.file_uploader(key=keys.W_UPLOAD).set_value((name, data, "application/octet-stream")).run()
        no_exception(at)
        return at

    def test_a_zstd_rollout_loads_as_the_plain_one(self, app: AppTest) -> None:
        at = self.load(app, CODEX_ROLLOUT + ".zst", zstandard.ZstdCompressor().compress(self.rollout()))
        assert [unescaped(error.value) for error in at.error] == []
        loaded = list(at.session_state[keys.K_ITEMS].values())
        assert [item.source_format for item in loaded if item.origin == "upload"] == ["codex"]

    @pytest.mark.parametrize("damage", ["cut", "bomb"])
    def test_a_damaged_or_oversized_one_is_one_error(
        self, app: AppTest, damage: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        packed = zstandard.ZstdCompressor().compress(self.rollout())
        if damage == "cut":
            data, expect = packed[: len(packed) // 2], "is zstd-compressed but does not decompress"
        else:
            monkeypatch.setattr(source, "MAX_FILE_BYTES", 1 << 20)
            data = zstandard.ZstdCompressor().compress(
                b'{"role": "user", "content": "' + b"a" * (3 << 20) + b'"}'
            )
            expect = "once decompressed, over the limit"
        at = self.load(app, "rollout.jsonl.zst", data)
        errors = [unescaped(error.value) for error in at.error]
        assert len(errors) == 1 and expect in errors[0] and "Traceback" not in errors[0], errors
        at.switch_page("views/span.py").run()
        no_exception(at)
