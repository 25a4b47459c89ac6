"""A run's plays: the settings asked for, in their order, each with the bill ``bill()`` gives it (the weights and
loop rules taken once per play), and an untouched outcome that made no attempt."""

from __future__ import annotations

from compressor.cost import find_price, price_table
from compressor.fleet.plays import bill, billed_outcomes, play, untouched_outcome
from compressor.replay import sweep
from tests.compressor.test_simulate import generated

from .runs import GRID


class TestBilledOutcomes:
    def test_each_setting_asked_for_has_its_outcome_and_bill_in_the_order_asked(self) -> None:
        conversation = generated(300, 3)  # peak 73,277 tokens: 0.9 of 100,000 never triggers, 0.3 does
        swept = sweep(
            conversation, ratios=(0.3, 0.6, 0.9), keeps=(0, 4), context_max=100_000, summary="ratio:0.1"
        )
        attempts = {o.key: a for o, a in zip(swept.outcomes, swept.attempts, strict=True)}
        wanted = [swept.outcomes[4].key, swept.outcomes[0].key, swept.outcomes[5].key]
        for price in (find_price("gpt-4o", price_table()), None):
            outcomes, bills = billed_outcomes(swept, wanted, price)
            assert [o.key for o in outcomes] == wanted
            assert list(bills) == [bill(o, attempts[o.key], price) for o in outcomes]
        assert any(attempts[key] for key in wanted) and any(not attempts[key] for key in wanted)


class TestPlay:
    def test_the_untouched_outcome_made_no_attempt_and_costs_what_bill_says(self) -> None:
        conversation = generated(120, 5)  # peak 32,576 tokens: GRID's 0.9 of 40,000 never triggers
        played = play(conversation, GRID, 40_000, GRID.settings, template=True)
        assert [o.key for o in played.outcomes] == list(GRID.settings)
        assert played.template is not None and untouched_outcome(played.template)
        assert played.template_bill == bill(played.template, (), None)
