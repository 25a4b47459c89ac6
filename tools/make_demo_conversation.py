"""Rewrite ``dashboard/samples/demo-conversation.json`` so the demo run compacts mid-run and then goes on.

The agent's first test run is verbose (``-vv -l``, every failure with its traceback and locals), its too-eager fix breaks the
import of every test module (the whole suite's collection errors), and its final check is the quiet one-line run, so the window reaches the trigger threshold (0.8 of the 16,000-token default capacity) near the
middle of the run and the agent keeps working for several calls after its compaction. The three tool calls and
their results are written from the templates below, so running the script again gives the same file.
Run: ``.venv/bin/python tools/make_demo_conversation.py`` (then ``tools/make_demo_dumps.py``).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "dashboard" / "samples" / "demo-conversation.json"

FIRST_RUN = "call_05_bash"
EAGER_RUN = "call_12_bash"
FINAL_RUN = "call_22_bash"
#: The test modules of the suite, with what each imports from the package (an import error names it).
TEST_MODULES: tuple[tuple[str, str], ...] = (
    ("tests/test_deadlines.py", "from timekit.deadlines import Deadline, budget_split"),
    (
        "tests/test_durations.py",
        "from timekit.durations import Duration, DurationError, parse_duration, total_of",
    ),
    ("tests/test_formatting.py", "from timekit.formatting import _SYMBOLS, describe, format_duration"),
    ("tests/test_units.py", "from timekit.units import UNIT_ALIASES, UNIT_SECONDS, canonical_unit"),
)
HEADER = (
    "============================= test session starts ==============================\n"
    "platform linux -- Python 3.11.9, pytest-8.2.1, pluggy-1.5.0{python}\n"
    "cachedir: .pytest_cache\n"
    "rootdir: {root}\n"
    "configfile: pyproject.toml\n"
)
KNOWN = (
    "d, day, h, hour, hr, hrs, m, micro, micros, microsecond, milli, millis, millisecond, min, mins, minute, ms, "
    "msec, s, sec, second, secs, us, usec, w, week, wk, wks, µs"
)
#: The 26 tests of tests/test_durations.py, and the unit each failing one cannot parse (None: it passes).
DURATION_TESTS: tuple[tuple[str, str | None, str], ...] = (
    ("TestSimpleUnits::test_one_part[1s-1.0]", None, ""),
    ("TestSimpleUnits::test_one_part[1 sec-1.0]", None, ""),
    ("TestSimpleUnits::test_one_part[2 seconds-2.0]", "seconds", "2 seconds"),
    ("TestSimpleUnits::test_one_part[1m-60.0]", None, ""),
    ("TestSimpleUnits::test_one_part[5 minutes-300.0]", "minutes", "5 minutes"),
    ("TestSimpleUnits::test_one_part[1h-3600.0]", None, ""),
    ("TestSimpleUnits::test_one_part[3 hours-10800.0]", "hours", "3 hours"),
    ("TestSimpleUnits::test_one_part[1d-86400.0]", None, ""),
    ("TestSimpleUnits::test_one_part[2 days-172800.0]", "days", "2 days"),
    ("TestSimpleUnits::test_one_part[1w-604800.0]", None, ""),
    ("TestSimpleUnits::test_one_part[250ms-0.25]", None, ""),
    ("TestSimpleUnits::test_one_part[15us-1.5e-05]", None, ""),
    ("TestSimpleUnits::test_case_does_not_matter", None, ""),
    ("TestCompound::test_parse_compound", "days", "2 days, 4 hours"),
    ("TestCompound::test_plural_and_singular_mix", "hours", "1 day 1 hours 1 minute"),
    ("TestCompound::test_repeated_unit_is_an_error", None, ""),
    ("TestErrors::test_empty", None, ""),
    ("TestErrors::test_unknown_unit_lists_the_known_ones", None, ""),
    ("TestErrors::test_garbage_after_a_valid_part", None, ""),
    ("TestTimeouts::test_number_is_seconds", None, ""),
    ("TestTimeouts::test_text_without_unit_is_seconds", None, ""),
    ("TestTimeouts::test_none_is_default", None, ""),
    ("TestTimeouts::test_boolean_is_refused", None, ""),
    ("TestArithmetic::test_total_of_steps", None, ""),
    ("TestArithmetic::test_subtraction_cannot_go_negative", None, ""),
    ("TestArithmetic::test_scaling", None, ""),
)


#: How the fictional parse_duration splits a text into (number, unit) parts.
_PART = re.compile(r"(\d+)\s*([a-zµ]+)")


def _failure(name: str, unit: str, text: str) -> str:
    title = f" {name.replace('::', '.')} "
    return (
        f"{title.center(80, '_')}\n\n"
        f"self = <tests.test_durations.{name.split('::')[0]} object at 0x7f3a1c2d5e10>\n"
        f"text = {text!r}\n\n"
        "    def test_case(self, text: str) -> None:\n"
        ">       assert parse_duration(text).seconds > 0\n\n"
        "tests/test_durations.py:25:\n" + "_ " * 40 + "\n\n"
        f"text = {text!r}\n\n"
        "    def parse_duration(text: str) -> Duration:\n"
        "        parts = _PART.findall(text)\n"
        "        if not parts:\n"
        '            raise DurationError(text, "no number and unit found")\n'
        "        total = 0\n"
        "        for number, unit in parts:\n"
        "            name = canonical_unit(unit)\n"
        "            if name is None:\n"
        '                known = ", ".join(sorted(UNIT_ALIASES))\n'
        '>               raise DurationError(text, f"unknown unit {unit!r} (known units: {known})")\n'
        "\n"
        f"known      = {KNOWN!r}\n"
        "name       = None\n"
        f"number     = {text.split()[0]!r}\n"
        f"parts      = {_PART.findall(text)!r}\n"
        f"text       = {text!r}\n"
        "total      = 0\n"
        f"unit       = {unit!r}\n\n"
        f"E               timekit.durations.DurationError: cannot parse duration {text!r}: unknown unit "
        f"{unit!r} (known units: {KNOWN})\n\n"
        "src/timekit/durations.py:121: DurationError\n"
    )


def first_run(root: str) -> str:
    """``pytest tests/test_durations.py -vv -l``: every test's line, then each failure with its traceback and locals."""
    count = len(DURATION_TESTS)
    lines = [
        HEADER.format(python=" -- /usr/bin/python3", root=root),
        f"collecting ... collected {count} items\n",
    ]
    for number, (name, unit, _) in enumerate(DURATION_TESTS, start=1):
        outcome = "FAILED" if unit else "PASSED"
        lines.append(f"tests/test_durations.py::{name} {outcome} [{round(100 * number / count):3d}%]")
    failed = [(name, unit, text) for name, unit, text in DURATION_TESTS if unit]
    lines.append("\n" + " FAILURES ".center(80, "=") + "\n")
    lines.extend(_failure(name, unit, text) for name, unit, text in failed if unit)
    lines.append(" short test summary info ".center(80, "="))
    for name, unit, text in failed:
        lines.append(
            f"FAILED tests/test_durations.py::{name} - timekit.durations.DurationError: cannot parse duration "
            f"{text!r}: unknown unit {unit!r}"
        )
    summary = f" {len(failed)} failed, {count - len(failed)} passed in 0.23s "
    lines.append(summary.center(80, "="))
    lines.append("exit code: 1")
    return "\n".join(lines)


def eager_run(root: str) -> str:
    """``pytest -q`` after the too-eager edit: the ambiguous alias breaks the import of every test module."""
    lines = [
        HEADER.format(python="", root=root).replace("cachedir: .pytest_cache\n", ""),
        "collected 0 items / 4 errors\n",
    ]
    lines.append(" ERRORS ".center(80, "="))
    for module, imports in TEST_MODULES:
        lines.append(f" ERROR collecting {module} ".center(80, "_"))
        lines.append(
            f"ImportError while importing test module '{root}/{module}'.\n"
            "Hint: make sure your test modules/packages have valid Python names.\n"
            "Traceback:\n"
            "/usr/lib/python3.11/importlib/__init__.py:126: in import_module\n"
            "    return _bootstrap._gcd_import(name[level:], package, level)\n"
            f"{module}:3: in <module>\n"
            f"    {imports}\n"
            "src/timekit/__init__.py:3: in <module>\n"
            "    from .durations import Duration, DurationError, parse_duration, parse_timeout, total_of\n"
            "src/timekit/durations.py:13: in <module>\n"
            "    from .units import UNIT_ALIASES, UNIT_SECONDS, canonical_unit\n"
            "src/timekit/units.py:42: in <module>\n"
            "    UNIT_ALIASES: dict[str, str] = _build_aliases()\n"
            "src/timekit/units.py:37: in _build_aliases\n"
            '    raise RuntimeError(f"alias {alias!r} is ambiguous")\n'
            "E   RuntimeError: alias 'ms' is ambiguous"
        )
    lines.append(" short test summary info ".center(80, "="))
    lines.extend(f"ERROR {module} - RuntimeError: alias 'ms' is ambiguous" for module, _ in TEST_MODULES)
    lines.append(" Interrupted: 4 errors during collection ".center(80, "!"))
    lines.append(" 4 errors in 0.27s ".center(80, "="))
    lines.append("exit code: 2")
    return "\n".join(lines)


def final_run(root: str) -> str:
    """``pytest -q`` over the whole suite, all passing."""
    return (
        HEADER.format(python="", root=root).replace("cachedir: .pytest_cache\n", "")
        + "collected 90 items\n\n"
        "tests/test_deadlines.py ...................                                [ 21%]\n"
        "tests/test_durations.py ..........................                         [ 50%]\n"
        "tests/test_formatting.py .....................                             [ 73%]\n"
        "tests/test_units.py ........................                               [100%]\n\n"
        + " 90 passed in 0.33s ".center(80, "=")
        + "\nexit code: 0"
    )


def _rootdir(messages: list[dict[str, Any]]) -> str:
    for message in messages:
        content = message.get("content")
        if isinstance(content, str) and "rootdir: " in content:
            return content.split("rootdir: ", 1)[1].split("\n", 1)[0]
    raise SystemExit("no pytest output with a rootdir in the demo conversation")


def rewrite(document: dict[str, Any]) -> dict[str, Any]:
    """The demo conversation with the first and the final test run written from the templates."""
    messages: list[dict[str, Any]] = document["messages"]
    root = _rootdir(messages)
    commands = {
        FIRST_RUN: ("python -m pytest tests/test_durations.py -vv -l", first_run(root)),
        EAGER_RUN: ("python -m pytest -q", eager_run(root)),
        FINAL_RUN: ("python -m pytest -q", final_run(root)),
    }
    for message in messages:
        for call in message.get("tool_calls") or ():
            if call.get("id") in commands:
                call["arguments"] = json.dumps({"command": commands[call["id"]][0]})
        if message.get("role") == "tool" and message.get("tool_call_id") in commands:
            message["content"] = commands[message["tool_call_id"]][1]
    return document


def main() -> int:
    document = json.loads(DEMO.read_text(encoding="utf-8"))
    DEMO.write_text(json.dumps(rewrite(document), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {DEMO.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
