"""Dump review and following a running agent, in Chromium against a server whose roots hold openJiuwen's sample
dumps and a folder the test writes into: the root of a tree lists every dump below it, each with its own debug
records (also uploaded as a zip or as six loose files), and a session file or a dump folder being written shows
what lands."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from compressor.dumps import read_dump
from dashboard.roots import root_label
from tests.conftest import OPENJIUWEN_DUMPS
from tests.e2e.conftest import Served, new_page
from tests.e2e.test_dashboard_e2e import after_rerun, assert_no_exception, demo_decision, go, wait_idle

pytestmark = pytest.mark.e2e

FOLDERS = ("compact000", "compact001", "compact015")


@pytest.fixture
def app(browser: Any, served: Served) -> Iterator[Any]:
    page = new_page(browser, 1440, 900)
    page.goto(f"{served.url}/")
    expect(page.get_by_text(demo_decision(), exact=True)).to_be_visible()
    wait_idle(page)
    yield page
    assert_no_exception(page)
    page.context.close()


def choose(page: Any, label: str, option: str, *, exact: bool = True) -> None:
    """Pick ``option`` in the select box called ``label``: typed into its search, then chosen from the list (the
    one option ending in it when not ``exact``), and its run awaited; an option already chosen is left as it is."""
    box = page.get_by_role("combobox", name=label, exact=True)
    box.click()
    box.fill(option)
    choice = page.get_by_role("option", name=option, exact=exact)
    if choice.get_attribute("aria-selected") == "true":  # the value chosen already: picking it reruns nothing
        box.press("Escape")
    else:
        after_rerun(page, choice.click)


def open_dumps_of(page: Any, root: Path) -> None:
    """Dump review on the top folder of ``root`` (one of the server's roots)."""
    go(page, "Dump review", "Dump review")
    page.get_by_text("Choose another folder").click()
    choose(page, "Root folder", root_label(root))
    after_rerun(page, page.get_by_role("button", name=f"Review {root_label(root)}", exact=True).click)
    expect(page.get_by_text(f"Reviewing every dump below {root_label(root)}", exact=True)).to_be_visible()


def own_records(folder: str) -> tuple[dict[str, Any], ...]:
    return read_dump(next((OPENJIUWEN_DUMPS / folder).glob("*.json"))).debug_records


def assert_each_dump_has_its_own_records(page: Any) -> None:
    """Every sample dump, picked in turn: its debug tab names its own log and holds its own records."""
    for folder in FOLDERS:
        dump = next((OPENJIUWEN_DUMPS / folder).glob("*.json"))
        choose(page, "Dump", f"{folder}/{dump.name}", exact=False)  # below the upload's own folders
        page.get_by_role("tab", name="Debug records").click()
        records = own_records(folder)
        count = f"{len(records)} record" if len(records) == 1 else f"{len(records)} records"
        caption = page.get_by_text(
            re.compile(f"^{count} of this dump's run, from .*{folder}/CurrentRoundCompressor.jsonl\\.$")
        )
        expect(caption).to_be_visible()
        grid = page.locator('[data-testid="stDataFrame"]').filter(
            has=page.locator('[role="columnheader"]', has_text="event")
        )
        for event in {str(record["event"]) for record in records}:
            expect(grid.locator('[role="gridcell"]', has_text=re.compile(f"^{event}$"))).not_to_have_count(0)


class TestDumpReview:
    def test_the_root_of_a_tree_lists_every_dump_below_it_with_its_own_records(self, app: Any) -> None:
        open_dumps_of(app, OPENJIUWEN_DUMPS)
        expect(app.get_by_text("3 of 3 dumps shown, in 3 folders", exact=True)).to_be_visible()
        assert_each_dump_has_its_own_records(app)

    def test_a_zip_of_the_tree_keeps_each_log_with_its_dump(self, app: Any, tmp_path: Path) -> None:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for path in sorted(OPENJIUWEN_DUMPS.rglob("*")):
                if path.is_file():
                    archive.write(path, path.relative_to(OPENJIUWEN_DUMPS.parent).as_posix())
        go(app, "Dump review", "Dump review")
        app.get_by_text("uploaded files", exact=True).click()
        app.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
            files=[
                {"name": "openjiuwen-dumps.zip", "mimeType": "application/zip", "buffer": buffer.getvalue()}
            ]
        )
        expect(app.get_by_text("3 of 3 dumps shown, in 3 folders", exact=True)).to_be_visible()
        assert_each_dump_has_its_own_records(app)

    def test_six_loose_files_keep_each_log_with_its_dump_and_say_so(self, app: Any) -> None:
        go(app, "Dump review", "Dump review")
        app.get_by_text("uploaded files", exact=True).click()
        files = [str(path) for folder in FOLDERS for path in sorted((OPENJIUWEN_DUMPS / folder).iterdir())]
        app.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(files)
        expect(app.get_by_text("3 of 3 dumps shown, in 3 folders", exact=True)).to_be_visible()
        expect(
            app.get_by_text(re.compile("^3 debug logs are called CurrentRoundCompressor.jsonl"))
        ).to_be_visible()
        assert_each_dump_has_its_own_records(app)


def line(role: str, content: str) -> str:
    return json.dumps({"role": role, "content": content}) + "\n"


def append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


class TestFollow:
    def test_a_session_file_being_written_shows_each_new_message(self, app: Any, served: Served) -> None:
        session = served.follow / "agent-session.jsonl"
        session.write_text(
            line("user", "make the failing test pass") + line("assistant", "Reading the test.")
        )
        go(app, "Load", "Load conversations")
        app.get_by_role("tab", name="Files on the server").click()
        choose(app, "Root folder", root_label(served.follow))
        app.get_by_role("button", name="Load this file").click()
        expect(app.get_by_text(re.compile(r"^agent-session\.jsonl: 1 conversation"))).to_be_visible()
        go(app, "Span & trigger", "Span & trigger")
        app.get_by_text("Follow this file", exact=True).click()
        expect(app.get_by_text(re.compile(r"^Following: 2 messages read"))).to_be_visible()
        append(session, line("user", "and run the linter") + line("assistant", "Running ruff now."))
        expect(app.get_by_text(re.compile(r"^Following: 4 messages read"))).to_be_visible()
        append(session, '{"role": "user", "content": "half a li')  # a line still being written
        append(session, 'ne"}\n' + line("assistant", "Done."))
        expect(app.get_by_text(re.compile(r"^Following: 6 messages read"))).to_be_visible()
        expect(app.get_by_text(re.compile(r"· 6 context messages,"))).to_be_visible()

    def test_a_dump_folder_being_filled_shows_each_new_dump(self, app: Any, served: Served) -> None:
        folder = served.follow / "dumps-being-written"
        folder.mkdir()
        shutil.copytree(OPENJIUWEN_DUMPS / "compact000", folder / "compact000")
        open_dumps_of(app, served.follow)
        app.get_by_text("Follow this folder", exact=True).click()
        expect(app.get_by_text(re.compile(r"^Following: 1 dump here"))).to_be_visible()
        for number, name in enumerate(("compact001", "compact015"), start=2):
            shutil.copytree(OPENJIUWEN_DUMPS / name, folder / name)
            expect(
                app.get_by_text(f"{number} of {number} dumps shown, in {number} folders", exact=True)
            ).to_be_visible()
