"""One file gets one answer: the Tune page and ``compaction-lab simulate`` recommend the same setting (issue 12)."""

from __future__ import annotations

import io
import json

from streamlit.testing.v1 import AppTest

from compressor.cli import main
from dashboard.roots import SAMPLES_DIR
from tests.dashboard.conftest import no_exception

DEMO = SAMPLES_DIR / "demo-conversation.json"


def test_the_demo_run_gets_the_same_recommendation_on_the_page_and_on_the_command_line(app: AppTest) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["simulate", str(DEMO), "--context-max", "16000", "--json"], out=out, err=err) == 0, (
        err.getvalue()
    )
    cli = json.loads(out.getvalue())["recommendation"]
    tune = app.switch_page("views/tune.py").run()
    no_exception(tune)
    assert tune.success[0].value == (
        f"Use trigger_context_ratio {cli['trigger_context_ratio']:g}, keep_recent_messages "
        f"{cli['keep_recent_messages']}, min_target_context_ratio {cli['min_target_context_ratio']:g}."
    )


def test_priced_as_one_model_the_page_and_the_command_line_agree_sentence_for_sentence(app: AppTest) -> None:
    from compressor.cost import find_price
    from compressor.replay import recommend
    from dashboard.i18n import recommendation_sentences
    from dashboard.state import keys
    from tests.dashboard.test_page_tune import CURRENT, swept
    from tests.dashboard.test_page_tune import recommendation_sentences as shown

    out, err = io.StringIO(), io.StringIO()
    command = ["simulate", str(DEMO), "--context-max", "16000", "--price-model", "gpt-4o", "--json"]
    assert main(command, out=out, err=err) == 0, err.getvalue()
    cli = json.loads(out.getvalue())["recommendation"]
    tune = app.switch_page("views/tune.py").run()
    tune.selectbox(key=keys.page_widget("tune", "price")).set_value("gpt-4o").run()
    no_exception(tune)
    assert tune.success[0].value == (
        f"Use trigger_context_ratio {cli['trigger_context_ratio']:g}, keep_recent_messages "
        f"{cli['keep_recent_messages']}, min_target_context_ratio {cli['min_target_context_ratio']:g}."
    )
    library = recommend(swept(), headroom=0.1, price=find_price("gpt-4o"), current=CURRENT)
    assert shown(tune) == recommendation_sentences(library, "en")
