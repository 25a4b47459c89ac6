"""Other summaries over the same spans: our offline memory block within the size of the summary written there
(or of the span's default budget where there is none), or a live model's reply to our prompt.

Invariant: an offline memory block never costs more tokens than the summary it is compared with (checked on
the block itself, with the budget lowered until it fits), unless the snapshot's bare skeleton — 11 headings,
the task, the resume point — is larger than that summary; a live call that fails leaves its compaction
unscored with reason "live_failed", and the others go on.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..backends import offline as offline_backend
from ..backends.base import Backend
from ..errors import BackendError
from ..messages import Message
from ..prompt import build_prompt, extract_summary, memory_message
from ..tokens import TokenCounter, get_counter
from .compactions import ScoreReport
from .sites import Site, report_of, score_site

#: Why a live re-summary has no retention.
LIVE_FAILED = "live_failed"
#: Attempts at fitting the offline block under the reference before giving up on the last one.
FIT_ATTEMPTS = 4


def reference_tokens(site: Site, counter: TokenCounter) -> int | None:
    """Tokens of the summary written at ``site`` (None when it has none)."""
    return counter.tok(site.summary) if site.summary.strip() else None


def offline_block(site: Site, counter: TokenCounter) -> str:
    """Our offline summary of the site's span: its memory block at most as large as the summary written there
    (in ``counter`` tokens), or within the default budget of the span when there is none."""
    carriers = [len(site.system) + (at - site.offset) for at in site.carriers if site.offset <= at < site.end]
    request = site.request()
    limit = reference_tokens(site, counter)
    if limit is None:
        return offline_backend.offline_summary(request, site.tools, carriers=carriers)
    overhead = counter.message_tokens(memory_message(""))
    budget = max(limit - overhead, 1)
    summary = ""
    for _ in range(FIT_ATTEMPTS):
        summary = offline_backend.offline_summary(
            request, site.tools, budget_tokens=budget, carriers=carriers
        )
        excess = counter.message_tokens(memory_message(summary)) - limit
        if excess <= 0:
            break
        budget = max(budget - excess, 1)
    return summary


def score_offline(
    sites: Sequence[Site],
    *,
    counter: str | TokenCounter = "cl100k_base",
    problems: Sequence[dict[str, str]] = (),
) -> ScoreReport:
    """Each site's span scored against our offline memory block for it (source "offline")."""
    priced = get_counter(counter) if isinstance(counter, str) else counter
    scored = [
        score_site(
            site, offline_block(site, priced), source="offline", origin=offline_backend.LABEL, counter=priced
        )
        for site in sites
    ]
    return report_of(
        sites, scored, problems, chain=False
    )  # each span still holds the agent's earlier summary


async def live_summary(site: Site, backend: Backend) -> str:
    """A live model's summary of the site's span: the request our compactor sends (SPEC §10.3), one call."""
    reply = await backend.complete(
        [*site.request(), Message(role="user", content=build_prompt(None))], site.tools
    )
    return extract_summary(reply.content)


async def score_live(
    sites: Sequence[Site],
    backend: Backend,
    *,
    counter: str | TokenCounter = "cl100k_base",
    problems: Sequence[dict[str, str]] = (),
) -> ScoreReport:
    """Each site's span scored against a live model's summary of it (source "live"), one call per site."""
    priced = get_counter(counter) if isinstance(counter, str) else counter
    scored = []
    for site in sites:
        try:
            summary: str | None = await live_summary(site, backend)
            reason = ""
        except BackendError:
            summary, reason = None, LIVE_FAILED
        scored.append(
            score_site(
                site, summary or "", source="live", origin=backend.label, reason=reason, counter=priced
            )
        )
    return report_of(
        sites, scored, problems, chain=False
    )  # each span still holds the agent's earlier summary
