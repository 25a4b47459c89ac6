"""A fleet of hostile runs (issue 15): valid JSON that loads elsewhere — lone surrogates in content and in a run's
name — is catalogued and swept, never "unreadable" for a serialiser's reason (a file name that is not UTF-8 is one
broken line, as in Dump review, never a DuckDB traceback); and the
key the process holds (``API_KEY``), quoted by a run in any form, reaches no part of the catalog, its JSON or its
HTML report.
"""

from __future__ import annotations

import io
import json
import os
import zlib
from pathlib import Path
from typing import Any

import pytest

from compressor.cli.main import main
from compressor.fleet import Catalog
from tests.compressor.test_total_loading import conversation, strict_json, text_of, written
from tests.support.hostile_server import ENCODINGS
from tests.support.key_forms import spellings

KEY = "sk-canary-fleet-5e1a7c9b3d2f4068"


def fleet(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["fleet", *argv, "--jobs", "1"], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def catalog_texts(root: Path) -> dict[str, str]:
    """Everything the catalog holds as text: each table's rows as DuckDB reads them, and each kept conversation."""
    catalog = Catalog(root)
    texts = {
        table: json.dumps(catalog.query(f"SELECT * FROM {table}"), default=str)
        for table in ("files", "runs", "messages", "outcomes")
    }
    run_ids = [row[0] for row in catalog.query("SELECT run_id FROM runs")]
    for run_id, blob in catalog.kept(run_ids).items():
        texts[f"kept/{run_id}"] = zlib.decompress(blob).decode("utf-8")
    return texts


class TestHostileRunsAreCatalogued:
    def test_every_run_that_loads_is_read_and_swept(self, tmp_path: Path) -> None:
        runs = tmp_path / "runs"
        runs.mkdir()
        written(text_of(conversation(request="fix \ud800 this")), runs / "surrogate-content.json")
        written(text_of(conversation(output="\udfff" * 50)), runs / "surrogate-output.json")
        written(text_of([{"task_id": "t\udc80", "traj": conversation()}]), runs / "surrogate-name.json")
        written(text_of(conversation()), runs / os.fsdecode(b"name-\xff-not-utf8.json"))
        code, out, err = fleet(str(runs), "--catalog", str(tmp_path / "c"), "--json")
        document = strict_json(out)
        assert (code, err) == (0, "")
        assert len(document["runs"]) == 3  # as Dump review does, a name that is not UTF-8 is named, not read
        assert [(Path(b["path"]).name, b["error"]) for b in document["broken"]] == [
            ("name-\\udcff-not-utf8.json", "the file name is not valid UTF-8; rename it")
        ]
        texts = catalog_texts(tmp_path / "c")
        assert any("fix \\\\ud800 this" in text for name, text in texts.items() if name.startswith("kept/"))
        assert "t\\\\udc80" in texts["runs"]  # the run's name, written escaped


class TestTheKeyNeverReachesTheCatalog:
    @pytest.mark.parametrize("encoding", list(ENCODINGS))
    def test_a_run_quoting_the_key_leaves_no_form_of_it(
        self, encoding: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("API_KEY", KEY)
        quoted = ENCODINGS[encoding](KEY)
        run: list[dict[str, Any]] = conversation(output=f"export OPENAI_API_KEY={quoted}\n" * 20)
        runs = tmp_path / "runs"
        runs.mkdir()
        (runs / "leaky.json").write_text(json.dumps([{"task_id": f"run {quoted}", "traj": run}]), "utf-8")
        report = tmp_path / "fleet.html"
        code, out, err = fleet(str(runs), "--catalog", str(tmp_path / "c"), "--json", "--html", str(report))
        assert code == 0 and strict_json(out)["runs"]
        outputs = {
            "stdout": out,
            "stderr": err,
            "html": report.read_text("utf-8"),
            **catalog_texts(tmp_path / "c"),
        }
        leaks = {name: spellings(text, KEY) for name, text in outputs.items()}
        assert {name: found for name, found in leaks.items() if found} == {}
        assert any("[redacted]" in text for name, text in outputs.items() if name.startswith("kept/"))
        assert "[redacted]" in outputs["runs"]  # the run's name quoted it too
