"""The entry script: its pages, their addresses, and the folder layout Streamlit depends on."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from dashboard import app as entry
from dashboard import roots
from tests.dashboard.conftest import no_exception

ALL_PAGES = (*entry.CONVERSATION_PAGES, *entry.RUN_PAGES)


class TestPages:
    def test_every_page_file_exists(self) -> None:
        files = [spec[0] for spec in ALL_PAGES]
        assert files == [
            "views/load.py",
            "views/span.py",
            "views/compact.py",
            "views/dumps.py",
            "views/tune.py",
            "views/fleet.py",
            "views/demo.py",
        ]
        assert all((roots.PROJECT_DIR / "dashboard" / file).is_file() for file in files)

    def test_addresses_are_unique(self) -> None:
        paths = [spec[2] for spec in ALL_PAGES]
        assert len(set(paths)) == len(paths)

    def test_there_is_no_pages_folder_beside_the_entry_script(self) -> None:
        # Streamlit would treat it as a legacy multipage app: widget ids change after a fresh server's
        # first run (the sidebar loses its values) and AppTest loses them after every rerun.
        assert not (entry.APP_DIR / "pages").exists(), (
            "put page files in dashboard/views/, not dashboard/pages/"
        )

    def test_every_page_opens(self, app: AppTest) -> None:
        for file, *_ in ALL_PAGES:
            app.switch_page(file).run()
            no_exception(app)
            assert app.title, file
