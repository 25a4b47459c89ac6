"""A user turn as its agent meant it: request, internal, or a tool result sent back as text."""

from __future__ import annotations

import re

import pytest

from compressor.formats.roles import TurnRules

RULES = TurnRules(
    internal_prefixes=("<system-reminder>", "[TASK RESUMPTION]x"),
    internal_tags=("environment_details", "note"),
    tool_result=re.compile(r"\[(\w+)(?: for '[^']*')?\] Result:"),
)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("please fix the bug", "request"),
        ("  <system-reminder>be brief</system-reminder>", "internal"),
        ("<environment_details>cwd: /x</environment_details>", "internal"),
        ("<environment_details>a</environment_details>\n\n<note>b</note>", "internal"),
        ("<environment_details>a</environment_details> and also fix it", "request"),
        ("<environment_details>never closed", "request"),
        ("[read_file for 'src/app.py'] Result: 1 | import os", "tool_result"),
        ("[attempt_completion] Result: done", "tool_result"),
        ("see [read_file] Result: later", "request"),
        ("", "request"),
        ("   ", "request"),
    ],
)
def test_kind(text: str, kind: str) -> None:
    assert RULES.kind(text) == kind


def test_no_rules_means_every_turn_is_a_request() -> None:
    assert TurnRules().kind("<environment_details>x</environment_details>") == "request"
