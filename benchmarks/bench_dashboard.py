"""A Span & trigger page rerun after a slider change on a 5,000-message run, against one first analyze() of it.

Invariant: the rerun is measured warm (the run uploaded, parsed and tokenised by earlier runs of the same
AppTest session), exactly what a user waits for after moving a slider; the baseline tokenises a freshly
parsed copy. Each measured rerun uses a new trigger ratio, and its decision is checked against the library's.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.timing import best_of, ratio_result

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "dashboard" / "app.py"
MESSAGES = 5_000
RATIOS = (0.5, 0.6, 0.7, 0.9, 0.95)
GOAL = 1.0
APP_TIMEOUT = 300  # seconds for one AppTest run (the first one tokenises 5,000 messages on a busy machine)


def _open_span_page(data: bytes) -> Any:
    """An AppTest session with the run uploaded on the Load page and the Span & trigger page shown once."""
    from streamlit.testing.v1 import AppTest

    from dashboard.state import keys as state

    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()
    at.switch_page("views/load.py").run()
    at.file_uploader(key=state.W_UPLOAD).set_value([("bench-run.json", data, "application/json")]).run()
    at.switch_page("views/span.py").run()
    if at.exception:
        raise RuntimeError(f"the Span & trigger page failed: {at.exception[0].value}")
    shown = at.session_state[state.W_CONVERSATION]
    if not str(shown).startswith("upload:bench-run.json"):
        raise RuntimeError(f"the uploaded run is not the current conversation ({shown})")
    return at


def _quiet_streamlit() -> None:
    """AppTest outside a server logs a warning per run; a benchmark table should stay readable."""
    import streamlit.testing.v1  # noqa: F401 - creates Streamlit's loggers

    for name in list(logging.root.manager.loggerDict):
        if name.startswith("streamlit"):
            logging.getLogger(name).setLevel(logging.ERROR)


def run(repeat: int = len(RATIOS)) -> dict[str, Any]:
    _quiet_streamlit()
    from benchmarks.generate import conversation_dicts
    from compressor.analysis import analyze
    from compressor.config import CurrentRoundCompressorConfig
    from compressor.messages import Conversation
    from dashboard.settings import DEFAULTS
    from dashboard.state import keys as state

    dicts = conversation_dicts(MESSAGES)
    data = json.dumps({"messages": dicts}, ensure_ascii=False).encode()
    fresh = iter([Conversation.from_messages(dicts) for _ in range(3)])  # parsing is outside the baseline

    def first_analysis() -> None:
        analyze(next(fresh), context_max=DEFAULTS.context_max)

    baseline = best_of(first_analysis, 3)

    at = _open_span_page(data)
    ratios = iter(RATIOS * 2)
    reference = Conversation.from_messages(dicts)
    analyze(reference, context_max=DEFAULTS.context_max)  # tokenised once: the checks below are cheap

    def rerun_after_slider_change() -> None:
        ratio = next(ratios)
        at.slider(key=state.W_TRIGGER).set_value(ratio).run()
        expected = analyze(
            reference,
            CurrentRoundCompressorConfig(trigger_context_ratio=ratio),
            context_max=DEFAULTS.context_max,
        )
        shown = {metric.label: metric.value for metric in at.metric}
        if at.exception or shown.get("Trigger threshold") != f"{expected.threshold:,}":
            raise RuntimeError(
                f"the rerun at {ratio} shows {shown}, expected threshold {expected.threshold:,}"
            )

    return ratio_result(
        baseline=f"one analyze() of the same {MESSAGES:,}-message run, first time, tokenising included",
        baseline_seconds=baseline,
        seconds=best_of(rerun_after_slider_change, repeat),
        goal=GOAL,
        measured="Span & trigger page rerun through AppTest after a trigger slider change (warm)",
        messages=MESSAGES,
    )


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    began = time.perf_counter()
    print(json.dumps(run(), indent=2), f"\n{time.perf_counter() - began:.1f} s in all")
