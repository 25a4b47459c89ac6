"""What the cost ledger and the baselines add to a 100-setting sweep of a 5,000-message run.

Invariant: both sides start from a freshly parsed conversation and sweep the same 100 settings (ratios in one run,
as bench_sweep.py); the measured side then prices every setting (ledger, loop flags, recommendation) and plays
the two baselines, masking and hybrid, at the current setting — what ``tune()`` adds for the CLI and the Tune page.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.timing import best_of, ratio_result

ROOT = Path(__file__).resolve().parent.parent
MESSAGES = 5_000
CONTEXT_MAX = 200_000
RATIOS = tuple(round(0.5 + 0.05 * n, 2) for n in range(10))  # 0.5 … 0.95
KEEPS = tuple(range(10))  # 0 … 9
SUMMARY = "ratio:0.1"
PRICE_MODEL = "claude-sonnet-4-5"  # a cache-write surcharge: every price term is exercised
GOAL = 1.2


def run(repeat: int = 3) -> dict[str, Any]:
    from benchmarks.generate import conversation_dicts
    from compressor.cost import find_price
    from compressor.messages import Conversation
    from compressor.replay import BASELINES, assess, recommend, sweep

    dicts = conversation_dicts(MESSAGES)
    fresh: Iterator[Conversation] = iter([Conversation.from_messages(dicts) for _ in range(2 * repeat)])
    price = find_price(PRICE_MODEL)

    def swept(conversation: Conversation) -> Any:
        result = sweep(conversation, ratios=RATIOS, keeps=KEEPS, context_max=CONTEXT_MAX, summary=SUMMARY)
        if len(result.outcomes) != len(RATIOS) * len(KEEPS):
            raise RuntimeError(f"the sweep returned {len(result.outcomes)} settings")
        return result

    def sweep_only() -> None:
        swept(next(fresh))

    def sweep_priced_with_baselines() -> None:
        conversation = next(fresh)
        result = swept(conversation)
        recommendation = recommend(result, price=price, current=(0.8, 0, 0.1))
        if len(recommendation.assessments) != len(result.outcomes):
            raise RuntimeError("not every setting was priced")
        for strategy in BASELINES:  # as tune() plays them: a one-setting sweep at the current setting
            one = sweep(
                conversation,
                ratios=[0.8],
                keeps=[0],
                context_max=CONTEXT_MAX,
                summary=SUMMARY,
                strategy=strategy,
            )
            assess(one.outcomes[0], one.attempts[0], price, lines=False)

    return ratio_result(
        baseline=f"the same 100-setting sweep of a fresh {MESSAGES:,}-message run, outcomes only",
        baseline_seconds=best_of(sweep_only, repeat),
        seconds=best_of(sweep_priced_with_baselines, repeat),
        goal=GOAL,
        settings=len(RATIOS) * len(KEEPS),
        summary=SUMMARY,
        price_model=PRICE_MODEL,
        baselines=list(BASELINES),
    )


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    began = time.perf_counter()
    print(json.dumps(run(), indent=2), f"\n{time.perf_counter() - began:.1f} s in all")
