"""``compaction-lab inspect FILE…``: the span split, window total and trigger decision of each conversation."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from pydantic import ValidationError

from dashboard.i18n import counted

from ..analysis import Analysis, analyze
from ..census import count_messages, describe_reading
from .common import EXIT_BAD_INPUT, EXIT_OK, add_settings, bad, load_all, settings_config, validation_line


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "inspect", help="span split, window total and trigger decision of conversations"
    )
    parser.add_argument("files", nargs="+", metavar="FILE")
    add_settings(parser)
    parser.set_defaults(run=run)


def _format_analysis(analysis: Analysis) -> str:
    d, span = analysis.decision, analysis.span
    prefix, compress, tail = (
        analysis.segment_tokens["prefix"],
        analysis.segment_tokens["compress"],
        analysis.segment_tokens["tail"],
    )
    keep_note = (
        f" (tool boundary moved the tail start from {analysis.naive_tail_start} to {span.tail[0]})"
        if analysis.keep_moved_by_tool_boundary
        else ""
    )
    rows = [
        f"{analysis.conversation.name or '(unnamed)'}  [{analysis.conversation.source_format}, "
        f"{len(analysis.conversation.messages)} context messages, {len(analysis.conversation.system)} system, "
        f"{len(analysis.conversation.tools)} tools, counter {analysis.counter}]",
        f"  window total     {analysis.total_tokens:>10,}  ({'reported usage' if analysis.total_source == 'usage' else 'counted'})",
        f"  context_max      {analysis.context_max:>10,}  ({analysis.capacity.describe()})",
        f"  threshold        {analysis.threshold:>10,}  (trigger_context_ratio {analysis.config.trigger_context_ratio})",
        f"  min target       {analysis.min_target_tokens:>10,}  (min_target_context_ratio {analysis.config.min_target_context_ratio})",
        f"  last real user   {analysis.last_user_index:>10}",
        f"  keep recent      {analysis.keep_requested:>10}  → effective {analysis.effective_keep}{keep_note}",
        "  span             range          messages      tokens",
        f"    prefix         [{span.prefix[0]}, {span.prefix[1]}){'':<6} {span.counts[0]:>8} {prefix:>11,}",
        f"    compress       [{span.compress[0]}, {span.compress[1]}){'':<6} {span.counts[1]:>8} {compress:>11,}",
        f"    tail           [{span.tail[0]}, {span.tail[1]}){'':<6} {span.counts[2]:>8} {tail:>11,}",
    ]
    if span.unanchored[1] > span.unanchored[0]:
        rows.append(
            f"    (no span)      [{span.unanchored[0]}, {span.unanchored[1]})  no real user message to anchor on"
        )
    counts = count_messages(analysis.conversation)
    rows.append(
        f"  turns            {counts.real_user} real user, {counts.internal_user} internal user, {counts.assistant} "
        f"assistant, {counted(counts.tool, 'tool_result', 'en')} for {counted(counts.tool_calls, 'tool_call', 'en')}"
        + (
            f" ({counted(counts.unmatched_tool_calls, 'call', 'en')} unanswered)"
            if counts.unmatched_tool_calls
            else ""
        )
        + (
            f" ({counted(counts.unmatched_tool_results, 'tool_result', 'en')} without a call)"
            if counts.unmatched_tool_results
            else ""
        )
    )
    for compaction in analysis.conversation.recorded_compactions:
        sizes = (
            f", {compaction.tokens_before:,} → {compaction.tokens_after:,} tokens"
            if compaction.tokens_before is not None and compaction.tokens_after is not None
            else ""
        )
        rows.append(f"  recorded         {compaction.source} compaction at message {compaction.index}{sizes}")
    rows.extend(
        f"  reading          {describe_reading(reading)}" for reading in analysis.conversation.readings
    )
    rows.append(f"  decision         {'HIT' if d.hit else 'no'}: {d.reason} — {d.explain()}")
    if not analysis.config.model_configured:
        rows.append(
            "  note             no model configured: openJiuwen itself would not compact with this config"
        )
    return "\n".join(rows)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        config = settings_config(args)
    except ValidationError as error:
        bad(validation_line(error), err)
        return EXIT_BAD_INPUT
    conversations, ok = load_all(args.files, err)
    for conversation in conversations:
        analysis = analyze(
            conversation, config, context_max=args.context_max, model=args.model, counter=args.counter
        )
        if args.json:  # written a batch of rows at a time: a million messages never make one giant string
            out.writelines(analysis.json_chunks())
            out.write("\n")
        else:
            print(_format_analysis(analysis), file=out)
    return EXIT_OK if ok else EXIT_BAD_INPUT
