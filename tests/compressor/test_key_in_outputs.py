"""A key the run holds (``API_KEY``) never leaves through any output of any command (issue 15), whatever form an
input quotes it in: stdout, stderr, ``--out``, ``--html``, ``--otel``, the dumps and the debug log hold no spelling
of it (``tests/support/key_forms.py``), so the key in a user's own transcript is redacted on the way out."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from compressor.cli import main
from tests.compressor.test_total_loading import conversation
from tests.support.hostile_server import ENCODINGS
from tests.support.key_forms import spellings

KEY = "sk-canary-outputs-3c5e7a9b1d2f4860"

#: Each command with the outputs it writes into ``folder``.
COMMANDS = {
    "inspect": lambda source, folder: ["inspect", "--json", str(source)],
    "compact": lambda source, folder: ["compact", str(source), "--force", "--json", "--out", str(folder / "out.json"),
                                       "--dump-dir", str(folder / "dumps")],
    "simulate": lambda source, folder: ["simulate", str(source), "--json", "--summary", "offline",
                                        "--html", str(folder / "report.html")],
    "export": lambda source, folder: ["export", str(source), "--summary", "offline", "--otel", str(folder / "otel.json")],
}  # fmt: skip


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_no_output_holds_any_form_of_the_key(
    command: str, encoding: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("API_KEY", KEY)
    quoted = ENCODINGS[encoding](KEY)
    run: list[dict[str, Any]] = conversation(
        request=f"deploy with the key {quoted}", output=f"curl -H 'Authorization: Bearer {quoted}'\n" * 30
    )
    source = tmp_path / "input" / "run.json"
    source.parent.mkdir()
    source.write_text(json.dumps(run), encoding="utf-8")
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    out, err = io.StringIO(), io.StringIO()
    code = main(COMMANDS[command](source, outputs), out=out, err=err)
    assert code == 0, err.getvalue()
    written = {
        path.relative_to(outputs).as_posix(): path.read_text("utf-8")
        for path in outputs.rglob("*")
        if path.is_file()
    }
    assert command == "inspect" or written, "the command wrote its output"
    leaks = {
        name: spellings(text, KEY)
        for name, text in {"stdout": out.getvalue(), "stderr": err.getvalue(), **written}.items()
    }
    assert {name: found for name, found in leaks.items() if found} == {}
