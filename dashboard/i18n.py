"""Every UI string of the dashboard, in English and Simplified Chinese, and ``t(key, **fmt)`` to fetch one.

Invariant: both languages hold exactly the same keys with the same format fields (a test checks it);
only our own wording lives here: message content is never translated or formatted through these strings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from compressor.replay import Recommendation
from compressor.trigger import Decision
from compressor.windows import Capacity

LANGUAGE_NAMES: dict[str, str] = {"en": "English", "zh": "简体中文"}

EN: dict[str, str] = {
    # navigation
    "nav.group.conversation": "Conversation",
    "nav.group.runs": "Runs and dumps",
    "nav.load": "Load",
    "nav.span": "Span & trigger",
    "nav.compact": "Live compaction",
    "nav.dumps": "Dump review",
    "nav.tune": "Tune",
    "nav.demo": "Demo",
    # sidebar
    "sidebar.language": "Language",
    "sidebar.conversation": "Conversation",
    "sidebar.conversation_help": "The conversation every page shows. Load more on the Load page.",
    "sidebar.settings": "Compressor settings",
    "sidebar.trigger": "trigger_context_ratio",
    "sidebar.trigger_help": "Compact when the window total reaches this share of context_max (openJiuwen default 0.8).",
    "sidebar.min_target": "min_target_context_ratio",
    "sidebar.min_target_help": (
        "Skip the compaction when the span to compress holds fewer tokens than this share of context_max "
        "(openJiuwen default 0.1)."
    ),
    "sidebar.keep": "keep_recent_messages",
    "sidebar.keep_help": (
        "Messages always kept verbatim at the end (openJiuwen default 0). A kept tool result also keeps "
        "the assistant message that called it."
    ),
    "sidebar.capacity": "Context capacity",
    "sidebar.capacity.number": "a number",
    "sidebar.capacity.model": "a model's window",
    "sidebar.capacity_help": "context_max: type a number, or take a model's window from openJiuwen's table.",
    "sidebar.context_max": "context_max (tokens)",
    "sidebar.model": "Model (window in tokens)",
    "sidebar.capacity_used": "Capacity used: {capacity}",
    "sidebar.counter": "Token counter",
    "sidebar.counter_help": "How tokens are counted: tiktoken encodings, or openJiuwen's fallback of characters / 3.",
    "sidebar.reset": "Reset to defaults",
    "sidebar.share": "The page address holds these settings: copy it to share them.",
    "counter.cl100k_base": "cl100k_base (tiktoken)",
    "counter.o200k_base": "o200k_base (tiktoken)",
    "counter.string_length": "string length / 3 (openJiuwen fallback)",
    # capacity and decisions
    "capacity.explicit": "{tokens:,} tokens (set explicitly)",
    "capacity.model": "{tokens:,} tokens (window of {model})",
    "capacity.default": "{tokens:,} tokens (the 200,000 default)",
    "capacity.default_unknown": "{tokens:,} tokens (default; {model} is not in the table)",
    "decision.below_threshold": "No compaction: {total:,} tokens is below the threshold of {threshold:,}.",
    "decision.no_compressible_span": (
        "No compaction: {total:,} tokens reached the threshold of {threshold:,}, but nothing lies between "
        "the last user request and the kept tail."
    ),
    "decision.target_below_min": (
        "No compaction: {total:,} tokens reached the threshold of {threshold:,}, but the span holds "
        "{target:,} tokens, under the minimum of {min_target:,}."
    ),
    "decision.reached_threshold": (
        "Compaction fires: {total:,} tokens reached the threshold of {threshold:,} and the span holds {target:,} tokens."
    ),
    "status.compacted": "Compacted",
    "status.skipped": "Not compacted",
    "status.no_benefit": "Compaction discarded",
    "status.failed": "Compaction failed",
    "status_text.compacted": "Compacted {count} messages: {before:,} → {after:,} context tokens ({ratio:.1%} saved).",
    "status_text.skipped": "Not compacted: {reason}.",
    "status_text.no_benefit": (
        "Compaction discarded: the result would hold {after:,} tokens, not fewer than the original {before:,}."
    ),
    "status_text.failed": "Compaction failed after {calls} call(s): {reason}; the context is unchanged.",
    "reason.below_threshold": "the window is below the trigger threshold",
    "reason.no_compressible_span": "there is nothing to compress after the last user request",
    "reason.target_below_min": "the span to compress is smaller than the minimum worth compressing",
    "reason.reached_threshold": "the window reached the threshold and the span is big enough",
    "reason.context_overflow": "the request was larger than the model's context window",
    "reason.rate_limit": "the endpoint is rate limiting requests",
    "reason.authentication": "the endpoint refused the credentials",
    "reason.timeout": "the model did not answer in time",
    "reason.server_unstable": "the endpoint had a server error",
    "reason.api_request_error": "the endpoint rejected the request as invalid",
    "reason.unknown": "the call failed for an unrecognised reason",
    "reason.empty_summary": "the model's reply held no summary text",
    # segments and chart labels
    "segment.system": "system",
    "segment.prefix": "preserved prefix",
    "segment.compress": "to compress",
    "segment.tail": "protected tail",
    "segment.unanchored": "unanchored (no user request)",
    "note.last_user": "last real user message",
    "note.internal": "internal",
    "chart.internal": "internal message",
    "chart.last_user": "last real user message",
    "chart.tool_boundary": "tail widened by the tool boundary",
    "chart.tokens": "tokens",
    "chart.message": "message",
    "chart.window": "window total",
    "chart.span": "span to compress",
    "chart.threshold": "threshold",
    "chart.min_target": "minimum span",
    "chart.context_max": "context_max",
    "chart.before": "before",
    "chart.after": "after",
    "chart.memory": "memory block",
    "chart.reinjection": "reinjection",
    "chart.compressed": "compressed span",
    "chart.reduction_ratio": "reduction ratio",
    "chart.dumps": "dumps",
    "chart.tokens_before": "tokens before",
    "chart.tokens_after": "tokens after",
    "chart.time": "time",
    # metrics
    "metric.total": "Window total",
    "metric.total_usage": "From the usage an assistant message reported, plus characters / 3 of the messages after it.",
    "metric.total_counted": "Counted over the system messages, the context and the tool definitions.",
    "metric.threshold": "Trigger threshold",
    "metric.threshold_help": "max(int(context_max × trigger_context_ratio), 1)",
    "metric.context_max": "context_max",
    "metric.span_tokens": "Span to compress",
    "metric.min_target": "Minimum span",
    "metric.min_target_help": "int(context_max × min_target_context_ratio)",
    "metric.span_counts": "Prefix / compress / tail",
    "metric.tokens_before": "Context tokens before",
    "metric.tokens_after": "Context tokens after",
    "metric.saved": "Saved",
    "metric.saved_help": "Share of the context tokens the compaction removed.",
    "metric.request_tokens": "Request tokens",
    "metric.request_help": "Tokens of the last request sent to the model (messages, prompt and tools).",
    "metric.calls": "Model calls",
    # messages
    "message.tool_calls": "Tool calls",
    "message.fields": "Other fields",
    "message.none": "No messages.",
    "message.pick": "Show message (0–{last})",
    # folder browser
    "browse.root": "Root folder",
    "browse.root_help": "Folders the server allows, set by {env} (default: the project's dumps/ and the samples).",
    "browse.no_roots": "No folders are configured. Set {env} on the server to folders the dashboard may read.",
    "browse.missing_root": "The root {root} does not exist on the server.",
    "browse.here": "Folder: {path}",
    "browse.up": "Up one folder",
    "browse.empty": "This folder is empty.",
    "browse.entries": "Folders and files ({count})",
    "browse.open": "Open folder",
    # Load page
    "load.title": "Load conversations",
    "load.intro": (
        "Upload agent transcripts (openJiuwen or OpenAI message lists, JSONL, Claude Code sessions, SWE-agent "
        ".traj, records with traj, or a zip of many), open a bundled sample, or pick a file on the server."
    ),
    "load.current": "Current conversation: {name} (format: {format})",
    "load.clear": "Remove all loaded conversations",
    "load.nothing": "Nothing is loaded. Upload a file, or open a bundled sample below.",
    "load.ok": "{file}: {count} conversation(s), format {format}",
    "load.tab.upload": "Upload",
    "load.tab.samples": "Bundled samples",
    "load.tab.server": "Files on the server",
    "load.upload": "Conversation files",
    "load.upload_help": "JSON, JSONL, .traj, or a zip of such files (up to 200 MB in total).",
    "load.pick_hint": "Several conversations were loaded: the first is shown; pick another in the sidebar.",
    "load.no_samples": "No bundled samples were found in dashboard/samples/.",
    "load.sample": "Sample",
    "load.sample_help": "demo-conversation.json is an openJiuwen agent run fixing a failing test.",
    "load.open_sample": "Open sample",
    "load.server_intro": "Only folders listed in {env} can be browsed; paths cannot be typed.",
    "load.open_file": "Load this file",
    "load.review_folder": "Review dumps in {folder}",
    # Span page
    "span.title": "Span & trigger",
    "span.empty": "No conversation is loaded. Open the Load page to upload one or to pick a sample.",
    "span.subtitle": "{name} · format {format} · {messages} context messages, {system} system, {tools} tools",
    "span.no_model": (
        "No model is configured: openJiuwen itself would never compact with this config (it needs both model "
        "and model_client). Below is what it would decide once they are set. Configure an OpenAI-compatible "
        "backend on the Live compaction page to lift this."
    ),
    "span.total_usage": (
        "The window total {total:,} comes from reported usage: message #{index} of system + context reported "
        "{reported:,} tokens, plus characters / 3 of every message after it."
    ),
    "span.total_counted": (
        "The window total {total:,} was counted with {counter} over the system messages, the context and the tools "
        "(no assistant message reported usage)."
    ),
    "span.spans": "The three spans",
    "span.ranges": "prefix {prefix} · compress {compress} · tail {tail}   (messages: {counts})",
    "span.unanchored": (
        "There is no real user message, so messages {start} to {end} belong to no span: nothing can be compressed."
    ),
    "span.last_user": "The last real user message is #{index}; compression starts after it.",
    "span.tool_boundary": (
        "keep_recent_messages = {keep} would start the tail at #{naive}; a kept tool result pulls it back to "
        "#{start} so the tool call stays with its result ({effective} messages kept)."
    ),
    "span.grouped": "More than {bars} bars: consecutive messages of one segment are drawn as groups ({messages} messages).",
    "span.messages": "Messages",
    "span.system_messages": "System messages ({count})",
    "span.system_heading": "System message {number}",
    "span.pick": "Show a context message in full (0–{last})",
    "span.message_heading": "Message #{index} · {role} · {tokens:,} tokens · {segment}",
    # Live compaction page
    "compact.title": "Live compaction",
    "compact.empty": "No conversation is loaded. Open the Load page first.",
    "compact.unavailable": "The compactor is not part of this build yet; this page will work once it is installed.",
    "compact.subject": "Compacting {name} ({messages} context messages) with the sidebar settings.",
    "compact.backend": "Backend",
    "compact.backend.offline": "Offline (extractive, no network)",
    "compact.backend.openai": "OpenAI-compatible endpoint",
    "compact.backend_help": "The offline backend builds the summary from the messages themselves; no key needed.",
    "compact.base_url": "Base URL",
    "compact.model_name": "Model name",
    "compact.api_key": "API key",
    "compact.api_key_help": "Kept only in this browser session on the server; never put in the address, a file or a log.",
    "compact.server_key": "Leave the key empty to use the API_KEY set on the server.",
    "compact.live_cost": "A live run sends up to about {tokens:,} tokens of this conversation to the endpoint.",
    "compact.preserve": "Preserve instruction (optional)",
    "compact.preserve_help": "Appended to the prompt as a priority for what to keep, never as a new task.",
    "compact.force": "Compact even if the trigger does not fire",
    "compact.force_help": "Runs the compaction on the current span whatever the decision says.",
    "compact.keep_dump": "Keep the dump in {folder}",
    "compact.keep_dump_help": "Otherwise the dump is written to a private temporary folder, only for the download.",
    "compact.will_skip": "The trigger does not fire with these settings: a run will report it and change nothing.",
    "compact.run": "Run compaction",
    "compact.running": "Compacting…",
    "compact.config_error": "The backend is not fully configured",
    "compact.step.backend": "Backend: {backend}",
    "compact.step.request": "Sending the span of {messages} messages with the compaction prompt…",
    "compact.not_run": "Press Run compaction to compact this conversation.",
    "compact.stale": "This result was computed with other settings or another backend; run again to update it.",
    "compact.downloads": "Downloads",
    "compact.download_conversation": "Compacted conversation (openJiuwen JSON)",
    "compact.download_dump": "Compaction dump (JSON)",
    "compact.dump_kept": "Dump kept at {path}",
    # results
    "result.parts": "prefix {prefix:,} · memory block {memory:,} · reinjection {reinjection:,} · tail {tail:,} tokens",
    "result.reinjected": "{count} file(s) re-added by state reinjection ({tokens:,} tokens):",
    "result.reinjection_heavy": "The reinjected files cost at least as much as the summary itself.",
    "result.tab.summary": "Summary",
    "result.tab.prompt": "Prompt",
    "result.tab.request": "Request",
    "result.tab.reply": "Raw reply",
    "result.tab.attempts": "Attempts",
    "result.tab.context": "New context",
    "result.tab.debug": "Debug records",
    "result.sections": "{present} of {total} snapshot sections present",
    "result.request": "The last request: {messages} messages, {tokens:,} tokens with the tools.",
    "result.request_message": "Request message",
    "result.no_attempts": "No model call was made.",
    "result.context": "The context after compaction: {messages} messages.",
    "result.context_message": "Message",
    "result.no_debug": "No debug records.",
    # secrets flagged in messages and summaries (shown by kind and a masked preview, never in full)
    "secrets.messages": (
        "{count} possible secret(s) in this conversation's messages, shown masked below: remove them before "
        "sharing the conversation, a compaction of it or its dumps."
    ),
    "secrets.summary": (
        "The summary holds {count} possible secret(s), shown masked below: a compaction carries them into the "
        "new context, the download and the dump."
    ),
    "secrets.line": "{where} · {kind} · {preview}",
    "secrets.more": "…and {count} more.",
    "secrets.where.message": "message #{index}",
    "secrets.where.system": "system message {number}",
    "secrets.where.summary": "summary",
    "secrets.kind.private_key": "private key block",
    "secrets.kind.anthropic_key": "Anthropic API key",
    "secrets.kind.openai_key": "OpenAI-style API key",
    "secrets.kind.aws_access_key": "AWS access key id",
    "secrets.kind.github_token": "GitHub token",
    "secrets.kind.slack_token": "Slack token",
    "secrets.kind.google_api_key": "Google API key",
    "secrets.kind.url_credentials": "password in a URL",
    "secrets.kind.bearer_token": "bearer token",
    "secrets.kind.assignment": "secret assigned to a name",
    # Dump review page
    "dumps.title": "Dump review",
    "dumps.intro": "Compression dumps written by openJiuwen or by this tool, with the debug log when it is there.",
    "dumps.source": "Dumps from",
    "dumps.source.folder": "a folder on the server",
    "dumps.source.upload": "uploaded files",
    "dumps.folder": "Folder: {path}",
    "dumps.choose_folder": "Choose another folder",
    "dumps.use_folder": "Review {path}",
    "dumps.upload": "Dump files",
    "dumps.upload_help": "Dump JSON files, the CurrentRoundCompressor.jsonl debug log, or a zip of them.",
    "dumps.no_folder": "Choose a dump folder, or upload dump files.",
    "dumps.broken": "{count} file(s) could not be read as dumps",
    "dumps.broken_more": "…and {count} more.",
    "dumps.empty": (
        "No dumps here yet. Run a compaction on the Live compaction page with 'Keep the dump' on, upload dump "
        "files, point openJiuwen's OPENJIUWEN_COMPRESSION_DUMP_DIR at a folder under the roots, or run:"
    ),
    "dumps.sessions": "Sessions",
    "dumps.min_ratio": "Minimum reduction ratio",
    "dumps.search": "File or context contains",
    "dumps.retried": "Retried",
    "dumps.count": "{shown} of {total} dumps",
    "dumps.filtered_out": "No dump matches these filters.",
    "dumps.chart.ratio": "Reduction ratio",
    "dumps.chart.before_after": "Before vs after",
    "dumps.chart.time": "Over time",
    "dumps.page": "Page (of {pages})",
    "dumps.detail": "One dump",
    "dumps.pick": "Dump",
    "dumps.record": "session {session} · context {context} · backend {backend}",
    "dumps.openjiuwen_dump": "openJiuwen (not recorded)",
    "dumps.tab.messages": "Before / after",
    "dumps.tab.span": "Span",
    "dumps.tab.prompt": "Prompt",
    "dumps.tab.reply": "Raw reply",
    "dumps.tab.summary": "Summary",
    "dumps.tab.debug": "Debug records",
    "dumps.tab.rerun": "Re-run",
    "dumps.before": "Before: {count} messages (rebuilt from the dump)",
    "dumps.after": "After: {count} messages",
    "dumps.before_message": "Before",
    "dumps.after_message": "After",
    "dumps.span_note": "Segments from the dump's span counts; tokens counted with {counter}.",
    "dumps.reinjection": "State reinjection message",
    "dumps.no_debug": "No debug log records for this dump.",
    "dumps.rerun_intro": "Compact the context before this dump again, with the sidebar settings.",
    "dumps.use_context_max": "Use this dump's context_max ({context_max:,}) in the sidebar",
    "dumps.rerun_backend": "Model",
    "dumps.rerun_backend.replay": "Replay the recorded reply",
    "dumps.rerun_backend.live": "The Live compaction page's backend",
    "dumps.rerun": "Re-run with current settings",
    "dumps.rerun_compare": "The recorded compaction went from {before:,} to {after:,} tokens.",
    # Tune page
    "tune.title": "Tune",
    "tune.empty": (
        "No conversation is loaded. Open the Load page to upload an agent run or to pick a sample, then come "
        "back here to replay it."
    ),
    "tune.subtitle": (
        "{name} · {messages} context messages, replayed model call by model call with the sidebar settings."
    ),
    "tune.summary": "Summary model",
    "tune.summary_kind": "How big is each simulated summary?",
    "tune.summary.ratio": "a share of the span (ratio:X)",
    "tune.summary.fixed": "a fixed size (fixed:N)",
    "tune.summary.offline": "the offline backend",
    "tune.summary.live": "the Live compaction page's backend",
    "tune.summary_help": (
        "ratio:X and fixed:N are instant. The offline backend writes a real extractive summary at every "
        "compaction (about 1 ms per message each time). The live backend calls a model, after you confirm."
    ),
    "tune.summary_tokens": "Summary tokens (N)",
    "tune.summary_ratio": "Summary share of the compressed span (X)",
    "tune.offline_note": (
        "The offline backend runs once per compaction: quick on short runs, slow on long ones and on large sweeps."
    ),
    "tune.live_estimate": (
        "A live replay would make about {calls:,} compaction call(s) sending about {tokens:,} input tokens "
        "(largest request {largest:,}), assuming summaries of {ratio} of the span; retries would add more."
    ),
    "tune.live_backend": "Backend: {backend} (set it on the Live compaction page).",
    "tune.live_unconfigured": "The Live compaction page's endpoint is not ready: {problem}",
    "tune.live_confirm": "I accept sending about {tokens:,} tokens in {calls:,} call(s) to this backend",
    "tune.live_run": "Run the live replay",
    "tune.live_running": "Calling the backend for up to {calls:,} compaction(s)…",
    "tune.live_pending": (
        "Until the live replay runs, this page shows the replay with summaries sized {summary}."
    ),
    "tune.replaying": "Replaying the run…",
    "tune.run": "This setting over the run",
    "tune.run_caption": "{steps:,} model calls · summaries: {summary} · context_max {capacity}",
    "tune.no_steps": (
        "This conversation has no assistant message, so there is no model call to replay. Load an agent run "
        "on the Load page."
    ),
    "tune.metric.first_trigger": "Trigger first fires",
    "tune.metric.first_trigger_help": (
        "The first model call (message index) where the window reaches the threshold of {threshold:,} tokens "
        "on the uncompacted run and a compaction would be attempted."
    ),
    "tune.never": "never",
    "tune.metric.compactions": "Compactions",
    "tune.metric.compactions_help": "Compactions kept over the run; {refused} more were attempted and refused.",
    "tune.metric.peak": "Peak utilisation",
    "tune.metric.peak_help": "The largest window sent to the model: {peak:,} of {context_max:,} tokens.",
    "tune.metric.compaction_input": "Compaction input tokens",
    "tune.metric.compaction_input_help": "Tokens sent to the compaction model over {calls} call(s).",
    "tune.metric.agent_input": "Agent input, with compaction",
    "tune.metric.agent_input_help": "Tokens the agent sends over all its model calls with this setting.",
    "tune.metric.agent_input_uncompacted": "Agent input, without compaction",
    "tune.over_capacity": "{over} of {steps} model calls send more than context_max.",
    "tune.no_model": (
        "openJiuwen compacts only with a model and a model client configured; this replay shows what it "
        "would do with one."
    ),
    "tune.trace.uncompacted": "without compaction",
    "tune.trace.read": "window the trigger read",
    "tune.trace.sent": "window sent to the model",
    "tune.trace.compaction": "compaction",
    "tune.trace.refused": "refused compaction",
    "tune.trace.settings": "settings",
    "tune.trace.recommended": "recommended",
    "tune.chart.context": "Context over the run",
    "tune.chart.context_x": "message index of the model call",
    "tune.col.message": "Message",
    "tune.col.outcome": "Outcome",
    "tune.col.compress": "Span tokens",
    "tune.col.files": "Files reinjected",
    "tune.no_events": "No compaction is attempted with this setting.",
    "tune.sweep": "Sweep",
    "tune.grid.ratios": "trigger_context_ratio from … to",
    "tune.grid.step": "Step",
    "tune.grid.keeps": "keep_recent_messages values",
    "tune.grid.keeps_help": "The sidebar's value is always added.",
    "tune.grid.size": (
        "{settings} settings: {ratios} ratios × {keeps} keep values at min_target_context_ratio {min_target}, "
        "summaries {summary}. The sidebar's setting is one of them."
    ),
    "tune.offline_sweep": (
        "The offline backend summarises at every compaction of every setting: on a long run choose ratio:X."
    ),
    "tune.sweeping": "Replaying {settings} settings…",
    "tune.heat.compactions": "Compactions over the run",
    "tune.heat.cost": "Tokens sent to the compaction model",
    "tune.heat.peak": "Peak context, share of context_max",
    "tune.recommendation": "Recommendation",
    "tune.headroom": "Headroom to keep free at every model call",
    "tune.headroom_help": "The recommended setting keeps the context at or below (1 − headroom) × context_max.",
    "tune.chart.tradeoff": "Compaction cost against headroom",
    "tune.chart.tradeoff_x": "headroom at the peak (1 − peak / context_max)",
    "tune.chart.tradeoff_y": "tokens sent to the compaction model",
    "tune.recommend.use": (
        "Use trigger_context_ratio {ratio}, keep_recent_messages {keep}, min_target_context_ratio {min_target}."
    ),
    "tune.recommend.none": "No setting of this sweep keeps {headroom} of context_max free at every model call.",
    "why.no_steps": (
        "The run has no assistant messages, so there is no model call to simulate and nothing to recommend."
    ),
    "why.none_qualify": (
        "No setting keeps the context at or below {limit:.0%} of context_max ({limit_tokens:,} tokens) at every "
        "model call."
    ),
    "why.lowest_peak": (
        "The lowest peak is {peak_tokens:,} tokens ({peak_utilisation:.1%}), with trigger_context_ratio {ratio:g}, "
        "keep_recent_messages {keep}, min_target_context_ratio {min_target:g}."
    ),
    "why.only_after_request": (
        "CurrentRoundCompressor only compacts the work after the latest user request; what came before it stays, "
        "so try lower trigger ratios, a lower min_target_context_ratio, fewer kept messages, less headroom or a "
        "larger context."
    ),
    "why.qualifying": (
        "{qualifying} of {considered} settings keep the context at or below {limit:.0%} of context_max "
        "({limit_tokens:,} tokens) at every model call."
    ),
    "why.highest_ratio": (
        "The highest trigger_context_ratio among them is {ratio:g}: compaction waits longest, so the agent keeps "
        "the most of its raw work in context."
    ),
    "why.tie_break": (
        "Of the {tied} settings at that ratio, keep_recent_messages {keep} with min_target_context_ratio "
        "{min_target:g} needs the fewest compactions ({compactions}) and the least compaction input "
        "({compaction_input_tokens:,} tokens)."
    ),
    "why.compaction_cost": (
        "It needs {compactions} compaction(s), sending {compaction_input_tokens:,} tokens to the compaction model."
    ),
    "why.never_fires": (
        "With it, compaction never fires on this run: the context stays within the limit without it."
    ),
    "why.peak": (
        "Its context peaks at {peak_tokens:,} tokens ({peak_utilisation:.1%} of context_max), and the agent sends "
        "{agent_input_tokens:,} input tokens over the run instead of {agent_input_tokens_uncompacted:,} without "
        "compaction."
    ),
    "tune.apply": "Apply to sidebar",
    "tune.applied": "The sidebar already holds this setting.",
    "tune.downloads": "Downloads",
    "tune.download_csv": "Sweep (CSV)",
    "tune.download_report": "Report (HTML)",
    "tune.report_title": "Compaction report: {name}",
    # Demo page
    "demo.title": "Demo",
    "demo.empty": (
        "No conversation is loaded. Open the Load page to upload an agent run or to pick a sample, then come "
        "back here to play it."
    ),
    "demo.subtitle": "{name} · {steps} model calls · summaries: {summary} · context_max {capacity}",
    "demo.no_steps": "This conversation has no assistant message, so there is no model call to play back.",
    "demo.no_compaction": (
        "With these settings compaction never fires on this run: the threshold is {threshold:,} tokens and the "
        "context peaks at {peak:,}. Lower trigger_context_ratio or context_max in the sidebar to see one."
    ),
    "demo.play": "Play",
    "demo.pause": "Pause",
    "demo.restart": "Start over",
    "demo.step": "Model call",
    "demo.where": "Model call {step} of {steps} · message #{index} · context messages: {messages}",
    "demo.caption.used": "The agent has used {used:,} of {capacity:,} tokens.",
    "demo.caption.starts": "Compaction starts at {threshold:,} tokens ({ratio} of the context).",
    "demo.caption.without": "Without compaction the context would hold {uncompacted:,} tokens by now.",
    "demo.caption.compacted": (
        "Threshold crossed at {tokens:,} of {threshold:,} tokens: compaction replaces {count} messages with "
        "one summary."
    ),
    "demo.caption.replaced": (
        "{compress:,} tokens of this round's work become a memory block of {memory:,} tokens: the window drops "
        "from {before:,} to {after:,} tokens."
    ),
    "demo.caption.crossed": "Threshold crossed at {tokens:,} of {threshold:,} tokens.",
    "demo.caption.held": "No compaction yet: {reason}.",
    "demo.caption.refused": "The compaction was refused: {reason}.",
    "demo.no_benefit": "the result would not be smaller than the original",
    "demo.over": "Over capacity: this call sends {tokens:,} tokens to a model that holds {capacity:,}.",
    "demo.now": "now",
    "demo.export": "Take it away",
    "demo.export_help": (
        "One HTML file with the run, its compactions, the sweep and the recommendation; it opens without a "
        "server or a network."
    ),
    "demo.export_button": "Export report (HTML)",
    # table column headers (the DataFrame column names stay the same)
    "col.index": "index",
    "col.role": "role",
    "col.tokens": "tokens",
    "col.segment": "segment",
    "col.notes": "notes",
    "col.preview": "preview",
    "col.conversation": "conversation",
    "col.format": "format",
    "col.messages": "messages",
    "col.system": "system",
    "col.tools": "tools",
    "col.origin": "origin",
    "col.file": "file",
    "col.attempt": "attempt",
    "col.request_tokens": "request_tokens",
    "col.outcome": "outcome",
    "col.error": "error",
    "col.delay_seconds": "delay_seconds",
    "col.budget_ratio": "budget_ratio",
    "col.seconds": "seconds",
    "col.number": "number",
    "col.section": "section",
    "col.present": "present",
    "col.time": "time",
    "col.session": "session",
    "col.context": "context",
    "col.tokens_before": "tokens_before",
    "col.tokens_after": "tokens_after",
    "col.reduction": "reduction",
    "col.reduction_ratio": "reduction_ratio",
    "col.target_tokens": "target_tokens",
    "col.context_max": "context_max",
    "col.prefix": "prefix",
    "col.compress": "compress",
    "col.tail": "tail",
    "col.retries": "retries",
    "col.backend": "backend",
    "col.source": "source",
    "col.processor": "processor",
    "col.timestamp": "timestamp",
    "col.event": "event",
}

ZH: dict[str, str] = {
    "nav.group.conversation": "会话",
    "nav.group.runs": "运行与转储",
    "nav.load": "加载",
    "nav.span": "分段与触发",
    "nav.compact": "实时压缩",
    "nav.dumps": "转储回顾",
    "nav.tune": "调参",
    "nav.demo": "演示",
    "sidebar.language": "语言",
    "sidebar.conversation": "会话",
    "sidebar.conversation_help": "所有页面展示的会话。可在“加载”页面加载更多。",
    "sidebar.settings": "压缩器设置",
    "sidebar.trigger": "trigger_context_ratio",
    "sidebar.trigger_help": "当窗口总量达到 context_max 的这一比例时触发压缩（openJiuwen 默认 0.8）。",
    "sidebar.min_target": "min_target_context_ratio",
    "sidebar.min_target_help": "待压缩片段的 token 数低于 context_max 的这一比例时跳过压缩（openJiuwen 默认 0.1）。",
    "sidebar.keep": "keep_recent_messages",
    "sidebar.keep_help": "末尾始终原样保留的消息数（openJiuwen 默认 0）。保留的工具结果也会保留发起该调用的助手消息。",
    "sidebar.capacity": "上下文容量",
    "sidebar.capacity.number": "输入数值",
    "sidebar.capacity.model": "模型窗口",
    "sidebar.capacity_help": "context_max：直接输入数值，或从 openJiuwen 的模型表中选取模型窗口。",
    "sidebar.context_max": "context_max（token）",
    "sidebar.model": "模型（窗口 token 数）",
    "sidebar.capacity_used": "使用的容量：{capacity}",
    "sidebar.counter": "Token 计数器",
    "sidebar.counter_help": "token 的计数方式：tiktoken 编码，或 openJiuwen 的后备方式（字符数 / 3）。",
    "sidebar.reset": "恢复默认值",
    "sidebar.share": "页面地址包含这些设置：复制地址即可分享。",
    "counter.cl100k_base": "cl100k_base（tiktoken）",
    "counter.o200k_base": "o200k_base（tiktoken）",
    "counter.string_length": "字符数 / 3（openJiuwen 后备方式）",
    "capacity.explicit": "{tokens:,} token（手动设置）",
    "capacity.model": "{tokens:,} token（{model} 的窗口）",
    "capacity.default": "{tokens:,} token（默认值 200,000）",
    "capacity.default_unknown": "{tokens:,} token（默认值；模型表中没有 {model}）",
    "decision.below_threshold": "不压缩：{total:,} token 低于阈值 {threshold:,}。",
    "decision.no_compressible_span": (
        "不压缩：{total:,} token 已达到阈值 {threshold:,}，但最后一条用户请求与保留尾部之间没有可压缩的消息。"
    ),
    "decision.target_below_min": (
        "不压缩：{total:,} token 已达到阈值 {threshold:,}，但待压缩片段只有 {target:,} token，低于最小值 {min_target:,}。"
    ),
    "decision.reached_threshold": "触发压缩：{total:,} token 已达到阈值 {threshold:,}，待压缩片段有 {target:,} token。",
    "status.compacted": "已压缩",
    "status.skipped": "未压缩",
    "status.no_benefit": "压缩结果已丢弃",
    "status.failed": "压缩失败",
    "status_text.compacted": "已压缩 {count} 条消息：上下文 token {before:,} → {after:,}（节省 {ratio:.1%}）。",
    "status_text.skipped": "未压缩：{reason}。",
    "status_text.no_benefit": "压缩结果已丢弃：结果为 {after:,} token，并不少于原来的 {before:,}。",
    "status_text.failed": "调用 {calls} 次后压缩失败：{reason}；上下文保持不变。",
    "reason.below_threshold": "窗口低于触发阈值",
    "reason.no_compressible_span": "最后一条用户请求之后没有可压缩的内容",
    "reason.target_below_min": "待压缩片段小于值得压缩的最小值",
    "reason.reached_threshold": "窗口达到阈值且片段足够大",
    "reason.context_overflow": "请求超过了模型的上下文窗口",
    "reason.rate_limit": "接口正在限流",
    "reason.authentication": "接口拒绝了凭据",
    "reason.timeout": "模型没有按时回复",
    "reason.server_unstable": "接口发生了服务器错误",
    "reason.api_request_error": "接口认为请求无效并拒绝",
    "reason.unknown": "调用因未知原因失败",
    "reason.empty_summary": "模型的回复中没有摘要文本",
    "segment.system": "系统",
    "segment.prefix": "保留前缀",
    "segment.compress": "待压缩",
    "segment.tail": "保护尾部",
    "segment.unanchored": "无归属（没有用户请求）",
    "note.last_user": "最后一条真实用户消息",
    "note.internal": "内部消息",
    "chart.internal": "内部消息",
    "chart.last_user": "最后一条真实用户消息",
    "chart.tool_boundary": "因工具边界而扩展的尾部",
    "chart.tokens": "token",
    "chart.message": "消息",
    "chart.window": "窗口总量",
    "chart.span": "待压缩片段",
    "chart.threshold": "阈值",
    "chart.min_target": "最小片段",
    "chart.context_max": "context_max",
    "chart.before": "压缩前",
    "chart.after": "压缩后",
    "chart.memory": "记忆块",
    "chart.reinjection": "状态回注",
    "chart.compressed": "被压缩片段",
    "chart.reduction_ratio": "压缩比例",
    "chart.dumps": "转储数",
    "chart.tokens_before": "压缩前 token",
    "chart.tokens_after": "压缩后 token",
    "chart.time": "时间",
    "metric.total": "窗口总量",
    "metric.total_usage": "取自助手消息上报的用量，加上其后各消息的字符数 / 3。",
    "metric.total_counted": "对系统消息、上下文和工具定义计数得出。",
    "metric.threshold": "触发阈值",
    "metric.threshold_help": "max(int(context_max × trigger_context_ratio), 1)",
    "metric.context_max": "context_max",
    "metric.span_tokens": "待压缩片段",
    "metric.min_target": "最小片段",
    "metric.min_target_help": "int(context_max × min_target_context_ratio)",
    "metric.span_counts": "前缀 / 压缩 / 尾部",
    "metric.tokens_before": "压缩前上下文 token",
    "metric.tokens_after": "压缩后上下文 token",
    "metric.saved": "节省",
    "metric.saved_help": "压缩去掉的上下文 token 占比。",
    "metric.request_tokens": "请求 token",
    "metric.request_help": "最后一次发送给模型的请求的 token 数（消息、提示词和工具）。",
    "metric.calls": "模型调用次数",
    "message.tool_calls": "工具调用",
    "message.fields": "其他字段",
    "message.none": "没有消息。",
    "message.pick": "显示消息（0–{last}）",
    "browse.root": "根目录",
    "browse.root_help": "服务器允许访问的目录，由 {env} 设置（默认：项目的 dumps/ 和示例目录）。",
    "browse.no_roots": "尚未配置目录。请在服务器上将 {env} 设置为仪表盘可以读取的目录。",
    "browse.missing_root": "服务器上不存在根目录 {root}。",
    "browse.here": "目录：{path}",
    "browse.up": "上一级目录",
    "browse.empty": "此目录为空。",
    "browse.entries": "目录和文件（{count}）",
    "browse.open": "打开目录",
    "load.title": "加载会话",
    "load.intro": (
        "上传智能体对话记录（openJiuwen 或 OpenAI 消息列表、JSONL、Claude Code 会话、SWE-agent .traj、"
        "含 traj 的记录，或包含多个文件的 zip），打开内置示例，或选择服务器上的文件。"
    ),
    "load.current": "当前会话：{name}（格式：{format}）",
    "load.clear": "移除所有已加载的会话",
    "load.nothing": "尚未加载任何内容。请上传文件，或在下方打开内置示例。",
    "load.ok": "{file}：{count} 个会话，格式 {format}",
    "load.tab.upload": "上传",
    "load.tab.samples": "内置示例",
    "load.tab.server": "服务器上的文件",
    "load.upload": "会话文件",
    "load.upload_help": "JSON、JSONL、.traj，或由这些文件组成的 zip（总计不超过 200 MB）。",
    "load.pick_hint": "加载了多个会话：当前显示第一个；可在侧边栏选择其他会话。",
    "load.no_samples": "在 dashboard/samples/ 中没有找到内置示例。",
    "load.sample": "示例",
    "load.sample_help": "demo-conversation.json 是一个 openJiuwen 智能体修复失败测试的运行记录。",
    "load.open_sample": "打开示例",
    "load.server_intro": "只能浏览 {env} 中列出的目录，不能手动输入路径。",
    "load.open_file": "加载此文件",
    "load.review_folder": "回顾 {folder} 中的转储",
    "span.title": "分段与触发",
    "span.empty": "尚未加载会话。请打开“加载”页面上传文件或选择示例。",
    "span.subtitle": "{name} · 格式 {format} · {messages} 条上下文消息，{system} 条系统消息，{tools} 个工具",
    "span.no_model": (
        "未配置模型：使用此配置时 openJiuwen 本身永远不会压缩（需要同时设置 model 和 model_client）。"
        "下面展示的是设置好之后它会做出的决定。在“实时压缩”页面配置 OpenAI 兼容后端即可解除此提示。"
    ),
    "span.total_usage": (
        "窗口总量 {total:,} 来自上报的用量：系统消息 + 上下文中的第 {index} 条消息上报了 {reported:,} token，"
        "再加上其后每条消息的字符数 / 3。"
    ),
    "span.total_counted": "窗口总量 {total:,} 由 {counter} 对系统消息、上下文和工具计数得出（没有助手消息上报用量）。",
    "span.spans": "三个片段",
    "span.ranges": "前缀 {prefix} · 压缩 {compress} · 尾部 {tail}   （消息数：{counts}）",
    "span.unanchored": "没有真实的用户消息，因此第 {start} 到 {end} 条消息不属于任何片段：无法压缩。",
    "span.last_user": "最后一条真实用户消息是 #{index}；压缩从它之后开始。",
    "span.tool_boundary": (
        "keep_recent_messages = {keep} 时尾部本应从 #{naive} 开始；由于保留了工具结果，尾部前移到 #{start}，"
        "使工具调用与其结果保持在一起（保留 {effective} 条消息）。"
    ),
    "span.grouped": "超过 {bars} 个条形：同一片段的连续消息合并显示（共 {messages} 条消息）。",
    "span.messages": "消息",
    "span.system_messages": "系统消息（{count}）",
    "span.system_heading": "系统消息 {number}",
    "span.pick": "完整显示一条上下文消息（0–{last}）",
    "span.message_heading": "消息 #{index} · {role} · {tokens:,} token · {segment}",
    "compact.title": "实时压缩",
    "compact.empty": "尚未加载会话。请先打开“加载”页面。",
    "compact.unavailable": "当前版本还不包含压缩器；安装后此页面即可使用。",
    "compact.subject": "使用侧边栏设置压缩 {name}（{messages} 条上下文消息）。",
    "compact.backend": "后端",
    "compact.backend.offline": "离线（抽取式，无需网络）",
    "compact.backend.openai": "OpenAI 兼容接口",
    "compact.backend_help": "离线后端直接从消息中抽取内容生成摘要，无需密钥。",
    "compact.base_url": "Base URL",
    "compact.model_name": "模型名称",
    "compact.api_key": "API 密钥",
    "compact.api_key_help": "只保存在服务器端的本次浏览器会话中；不会写入地址、文件或日志。",
    "compact.server_key": "密钥留空则使用服务器上设置的 API_KEY。",
    "compact.live_cost": "实时运行最多会向接口发送此会话约 {tokens:,} 个 token。",
    "compact.preserve": "保留指令（可选）",
    "compact.preserve_help": "作为需要优先保留内容的说明附加到提示词之后，不会成为新任务。",
    "compact.force": "即使未触发也执行压缩",
    "compact.force_help": "无论触发判断结果如何，都对当前片段执行压缩。",
    "compact.keep_dump": "将转储保存到 {folder}",
    "compact.keep_dump_help": "否则转储只写入私有的临时目录，仅供下载。",
    "compact.will_skip": "在这些设置下不会触发：运行时会报告这一点且不做任何改动。",
    "compact.run": "执行压缩",
    "compact.running": "正在压缩…",
    "compact.config_error": "后端配置不完整",
    "compact.step.backend": "后端：{backend}",
    "compact.step.request": "正在发送 {messages} 条消息的片段和压缩提示词…",
    "compact.not_run": "点击“执行压缩”来压缩此会话。",
    "compact.stale": "此结果是用其他设置或其他后端得到的；请重新运行以更新。",
    "compact.downloads": "下载",
    "compact.download_conversation": "压缩后的会话（openJiuwen JSON）",
    "compact.download_dump": "压缩转储（JSON）",
    "compact.dump_kept": "转储已保存到 {path}",
    "result.parts": "前缀 {prefix:,} · 记忆块 {memory:,} · 状态回注 {reinjection:,} · 尾部 {tail:,} token",
    "result.reinjected": "状态回注重新加入了 {count} 个文件（{tokens:,} token）：",
    "result.reinjection_heavy": "回注文件的开销不低于摘要本身。",
    "result.tab.summary": "摘要",
    "result.tab.prompt": "提示词",
    "result.tab.request": "请求",
    "result.tab.reply": "原始回复",
    "result.tab.attempts": "调用记录",
    "result.tab.context": "新上下文",
    "result.tab.debug": "调试记录",
    "result.sections": "快照包含 {present}/{total} 个章节",
    "result.request": "最后一次请求：{messages} 条消息，连同工具共 {tokens:,} token。",
    "result.request_message": "请求消息",
    "result.no_attempts": "没有调用模型。",
    "result.context": "压缩后的上下文：{messages} 条消息。",
    "result.context_message": "消息",
    "result.no_debug": "没有调试记录。",
    "secrets.messages": "此会话的消息中有 {count} 处疑似密钥（下方已打码显示）：分享会话、其压缩结果或转储之前请先删除。",
    "secrets.summary": "摘要中有 {count} 处疑似密钥（下方已打码显示）：压缩会把它们带入新上下文、下载文件和转储。",
    "secrets.line": "{where}：{kind}（{preview}）",
    "secrets.more": "……另有 {count} 处。",
    "secrets.where.message": "消息 #{index}",
    "secrets.where.system": "系统消息 {number}",
    "secrets.where.summary": "摘要",
    "secrets.kind.private_key": "私钥块",
    "secrets.kind.anthropic_key": "Anthropic API 密钥",
    "secrets.kind.openai_key": "OpenAI 风格的 API 密钥",
    "secrets.kind.aws_access_key": "AWS 访问密钥 ID",
    "secrets.kind.github_token": "GitHub 令牌",
    "secrets.kind.slack_token": "Slack 令牌",
    "secrets.kind.google_api_key": "Google API 密钥",
    "secrets.kind.url_credentials": "URL 中的密码",
    "secrets.kind.bearer_token": "Bearer 令牌",
    "secrets.kind.assignment": "赋值给变量的密钥",
    "dumps.title": "转储回顾",
    "dumps.intro": "由 openJiuwen 或本工具写出的压缩转储，若有调试日志也一并读取。",
    "dumps.source": "转储来源",
    "dumps.source.folder": "服务器上的目录",
    "dumps.source.upload": "上传的文件",
    "dumps.folder": "目录：{path}",
    "dumps.choose_folder": "选择其他目录",
    "dumps.use_folder": "回顾 {path}",
    "dumps.upload": "转储文件",
    "dumps.upload_help": "转储 JSON 文件、CurrentRoundCompressor.jsonl 调试日志，或它们组成的 zip。",
    "dumps.no_folder": "请选择转储目录，或上传转储文件。",
    "dumps.broken": "{count} 个文件无法作为转储读取",
    "dumps.broken_more": "……还有 {count} 个。",
    "dumps.empty": (
        "这里还没有转储。可以在“实时压缩”页面开启“保存转储”后运行一次压缩，上传转储文件，"
        "将 openJiuwen 的 OPENJIUWEN_COMPRESSION_DUMP_DIR 指向根目录下的某个目录，或者运行："
    ),
    "dumps.sessions": "会话",
    "dumps.min_ratio": "最小压缩比例",
    "dumps.search": "文件名或上下文包含",
    "dumps.retried": "有重试",
    "dumps.count": "共 {total} 个转储，显示 {shown} 个",
    "dumps.filtered_out": "没有符合筛选条件的转储。",
    "dumps.chart.ratio": "压缩比例",
    "dumps.chart.before_after": "压缩前后对比",
    "dumps.chart.time": "随时间变化",
    "dumps.page": "页码（共 {pages} 页）",
    "dumps.detail": "单个转储",
    "dumps.pick": "转储",
    "dumps.record": "会话 {session} · 上下文 {context} · 后端 {backend}",
    "dumps.openjiuwen_dump": "openJiuwen（未记录）",
    "dumps.tab.messages": "压缩前 / 压缩后",
    "dumps.tab.span": "片段",
    "dumps.tab.prompt": "提示词",
    "dumps.tab.reply": "原始回复",
    "dumps.tab.summary": "摘要",
    "dumps.tab.debug": "调试记录",
    "dumps.tab.rerun": "重新运行",
    "dumps.before": "压缩前：{count} 条消息（由转储重建）",
    "dumps.after": "压缩后：{count} 条消息",
    "dumps.before_message": "压缩前",
    "dumps.after_message": "压缩后",
    "dumps.span_note": "片段取自转储记录的片段数量；token 用 {counter} 计数。",
    "dumps.reinjection": "状态回注消息",
    "dumps.no_debug": "此转储没有调试日志记录。",
    "dumps.rerun_intro": "用侧边栏的设置重新压缩此转储压缩前的上下文。",
    "dumps.use_context_max": "在侧边栏使用此转储的 context_max（{context_max:,}）",
    "dumps.rerun_backend": "模型",
    "dumps.rerun_backend.replay": "重放记录的回复",
    "dumps.rerun_backend.live": "“实时压缩”页面配置的后端",
    "dumps.rerun": "用当前设置重新运行",
    "dumps.rerun_compare": "记录中的压缩将 token 从 {before:,} 降到 {after:,}。",
    "tune.title": "调参",
    "tune.empty": "尚未加载会话。请打开“加载”页面上传智能体运行记录或选择示例，再回到这里回放。",
    "tune.subtitle": "{name} · {messages} 条上下文消息，按侧边栏设置逐次模型调用回放。",
    "tune.summary": "摘要模型",
    "tune.summary_kind": "每次模拟的摘要有多大？",
    "tune.summary.ratio": "片段的一定比例（ratio:X）",
    "tune.summary.fixed": "固定大小（fixed:N）",
    "tune.summary.offline": "离线后端",
    "tune.summary.live": "“实时压缩”页面配置的后端",
    "tune.summary_help": (
        "ratio:X 和 fixed:N 即时完成。离线后端在每次压缩时生成真实的抽取式摘要（每次约每条消息 1 毫秒）。"
        "实时后端会调用模型，需先确认。"
    ),
    "tune.summary_tokens": "摘要 token 数（N）",
    "tune.summary_ratio": "摘要占被压缩片段的比例（X）",
    "tune.offline_note": "离线后端每次压缩运行一次：短运行很快，长运行和大规模扫描较慢。",
    "tune.live_estimate": (
        "实时回放约需 {calls:,} 次压缩调用，共发送约 {tokens:,} 个输入 token（最大一次请求 {largest:,}），"
        "按摘要为片段的 {ratio} 估算；重试会更多。"
    ),
    "tune.live_backend": "后端：{backend}（在“实时压缩”页面设置）。",
    "tune.live_unconfigured": "“实时压缩”页面的接口尚未就绪：{problem}",
    "tune.live_confirm": "我同意向此后端分 {calls:,} 次调用发送约 {tokens:,} 个 token",
    "tune.live_run": "运行实时回放",
    "tune.live_running": "正在调用后端，最多 {calls:,} 次压缩……",
    "tune.live_pending": "在实时回放运行之前，本页显示摘要大小为 {summary} 的回放。",
    "tune.replaying": "正在回放运行记录……",
    "tune.run": "此设置下的整个运行",
    "tune.run_caption": "{steps:,} 次模型调用 · 摘要：{summary} · context_max {capacity}",
    "tune.no_steps": "此会话没有助手消息，因此没有可回放的模型调用。请在“加载”页面加载智能体运行记录。",
    "tune.metric.first_trigger": "首次触发",
    "tune.metric.first_trigger_help": (
        "在未压缩的运行中，窗口首次达到 {threshold:,} token 阈值并会尝试压缩的那次模型调用（消息序号）。"
    ),
    "tune.never": "从不",
    "tune.metric.compactions": "压缩次数",
    "tune.metric.compactions_help": "整个运行中保留的压缩次数；另有 {refused} 次尝试被拒绝。",
    "tune.metric.peak": "峰值占用",
    "tune.metric.peak_help": "发送给模型的最大窗口：{peak:,} / {context_max:,} token。",
    "tune.metric.compaction_input": "压缩输入 token",
    "tune.metric.compaction_input_help": "{calls} 次调用中发送给压缩模型的 token。",
    "tune.metric.agent_input": "智能体输入（有压缩）",
    "tune.metric.agent_input_help": "此设置下智能体在所有模型调用中发送的 token。",
    "tune.metric.agent_input_uncompacted": "智能体输入（无压缩）",
    "tune.over_capacity": "{steps} 次模型调用中有 {over} 次发送的内容超过 context_max。",
    "tune.no_model": "openJiuwen 只有在配置了模型和模型客户端时才会压缩；此回放展示配置后它会怎么做。",
    "tune.trace.uncompacted": "不压缩",
    "tune.trace.read": "触发器读取的窗口",
    "tune.trace.sent": "发送给模型的窗口",
    "tune.trace.compaction": "压缩",
    "tune.trace.refused": "被拒绝的压缩",
    "tune.trace.settings": "设置",
    "tune.trace.recommended": "推荐",
    "tune.chart.context": "整个运行中的上下文",
    "tune.chart.context_x": "模型调用对应的消息序号",
    "tune.col.message": "消息",
    "tune.col.outcome": "结果",
    "tune.col.compress": "片段 token",
    "tune.col.files": "回注的文件",
    "tune.no_events": "此设置下不会尝试压缩。",
    "tune.sweep": "参数扫描",
    "tune.grid.ratios": "trigger_context_ratio 范围",
    "tune.grid.step": "步长",
    "tune.grid.keeps": "keep_recent_messages 取值",
    "tune.grid.keeps_help": "侧边栏中的取值总会加入。",
    "tune.grid.size": (
        "共 {settings} 个设置：{ratios} 个比例 × {keeps} 个保留值，min_target_context_ratio 为 {min_target}，"
        "摘要 {summary}。侧边栏的设置也在其中。"
    ),
    "tune.offline_sweep": "离线后端会在每个设置的每次压缩时生成摘要：长运行请选择 ratio:X。",
    "tune.sweeping": "正在回放 {settings} 个设置……",
    "tune.heat.compactions": "整个运行的压缩次数",
    "tune.heat.cost": "发送给压缩模型的 token",
    "tune.heat.peak": "上下文峰值占 context_max 的比例",
    "tune.recommendation": "推荐设置",
    "tune.headroom": "每次模型调用时保留的余量",
    "tune.headroom_help": "推荐的设置让上下文始终不超过 (1 − 余量) × context_max。",
    "tune.chart.tradeoff": "压缩成本与余量",
    "tune.chart.tradeoff_x": "峰值时的余量（1 − 峰值 / context_max）",
    "tune.chart.tradeoff_y": "发送给压缩模型的 token",
    "tune.recommend.use": (
        "建议使用 trigger_context_ratio {ratio}、keep_recent_messages {keep}、"
        "min_target_context_ratio {min_target}。"
    ),
    "tune.recommend.none": "此次扫描中没有任何设置能在每次模型调用时保留 context_max 的 {headroom} 空闲。",
    "why.no_steps": "此运行没有助手消息，因此没有可模拟的模型调用，也无从推荐。",
    "why.none_qualify": (
        "没有任何设置能在每次模型调用时让上下文不超过 context_max 的 {limit:.0%}（{limit_tokens:,} 个 token）。"
    ),
    "why.lowest_peak": (
        "最低峰值为 {peak_tokens:,} 个 token（{peak_utilisation:.1%}），对应 trigger_context_ratio {ratio:g}、"
        "keep_recent_messages {keep}、min_target_context_ratio {min_target:g}。"
    ),
    "why.only_after_request": (
        "CurrentRoundCompressor 只压缩最后一条用户请求之后的工作，之前的内容保持不变：请尝试更低的触发比例、"
        "更低的 min_target_context_ratio、更少的保留消息、更小的余量或更大的上下文。"
    ),
    "why.qualifying": (
        "{considered} 个设置中有 {qualifying} 个在每次模型调用时让上下文不超过 context_max 的 {limit:.0%}"
        "（{limit_tokens:,} 个 token）。"
    ),
    "why.highest_ratio": (
        "其中最高的 trigger_context_ratio 是 {ratio:g}：压缩等待最久，智能体在上下文中保留的原始工作最多。"
    ),
    "why.tie_break": (
        "该比例下共有 {tied} 个设置，其中 keep_recent_messages {keep} 配合 min_target_context_ratio "
        "{min_target:g} 所需压缩次数最少（{compactions} 次），压缩输入也最少（{compaction_input_tokens:,} 个 token）。"
    ),
    "why.compaction_cost": "它需要 {compactions} 次压缩，向压缩模型发送 {compaction_input_tokens:,} 个 token。",
    "why.never_fires": "使用它时，此运行中从不触发压缩：不压缩上下文也不会超出限制。",
    "why.peak": (
        "其上下文峰值为 {peak_tokens:,} 个 token（context_max 的 {peak_utilisation:.1%}），智能体在整个运行中发送 "
        "{agent_input_tokens:,} 个输入 token，不压缩时为 {agent_input_tokens_uncompacted:,} 个。"
    ),
    "tune.apply": "应用到侧边栏",
    "tune.applied": "侧边栏已是此设置。",
    "tune.downloads": "下载",
    "tune.download_csv": "扫描结果（CSV）",
    "tune.download_report": "报告（HTML）",
    "tune.report_title": "压缩报告：{name}",
    "demo.title": "演示",
    "demo.empty": "尚未加载会话。请打开“加载”页面上传智能体运行记录或选择示例，再回到这里播放。",
    "demo.subtitle": "{name} · {steps} 次模型调用 · 摘要：{summary} · context_max {capacity}",
    "demo.no_steps": "此会话没有助手消息，因此没有可播放的模型调用。",
    "demo.no_compaction": (
        "在这些设置下，此运行中从不触发压缩：阈值为 {threshold:,} token，上下文峰值为 {peak:,}。"
        "在侧边栏调低 trigger_context_ratio 或 context_max 即可看到压缩。"
    ),
    "demo.play": "播放",
    "demo.pause": "暂停",
    "demo.restart": "从头开始",
    "demo.step": "模型调用",
    "demo.where": "第 {step} / {steps} 次模型调用 · 消息 #{index} · 上下文中有 {messages} 条消息",
    "demo.caption.used": "智能体已使用 {capacity:,} 个 token 中的 {used:,} 个。",
    "demo.caption.starts": "上下文达到 {threshold:,} token（容量的 {ratio}）时开始压缩。",
    "demo.caption.without": "如果不压缩，此时上下文将有 {uncompacted:,} 个 token。",
    "demo.caption.compacted": "在 {tokens:,} token 时越过阈值 {threshold:,}：压缩把 {count} 条消息替换为一条摘要。",
    "demo.caption.replaced": (
        "本轮工作的 {compress:,} 个 token 变成 {memory:,} token 的记忆块：窗口从 {before:,} 降到 {after:,} token。"
    ),
    "demo.caption.crossed": "在 {tokens:,} token 时越过阈值 {threshold:,}。",
    "demo.caption.held": "暂不压缩：{reason}。",
    "demo.caption.refused": "压缩被拒绝：{reason}。",
    "demo.no_benefit": "压缩结果不比原来更小",
    "demo.over": "超出容量：这次调用向只能容纳 {capacity:,} token 的模型发送了 {tokens:,} 个 token。",
    "demo.now": "当前",
    "demo.export": "带走报告",
    "demo.export_help": "一个 HTML 文件，包含运行过程、各次压缩、参数扫描和推荐设置；无需服务器或网络即可打开。",
    "demo.export_button": "导出报告（HTML）",
    # 表格列名
    "col.index": "序号",
    "col.role": "角色",
    "col.tokens": "token 数",
    "col.segment": "片段",
    "col.notes": "备注",
    "col.preview": "预览",
    "col.conversation": "对话",
    "col.format": "格式",
    "col.messages": "消息数",
    "col.system": "系统消息",
    "col.tools": "工具",
    "col.origin": "来源",
    "col.file": "文件",
    "col.attempt": "第几次",
    "col.request_tokens": "请求 token",
    "col.outcome": "结果",
    "col.error": "错误",
    "col.delay_seconds": "等待秒数",
    "col.budget_ratio": "预算比例",
    "col.seconds": "耗时（秒）",
    "col.number": "编号",
    "col.section": "章节",
    "col.present": "已包含",
    "col.time": "时间",
    "col.session": "会话",
    "col.context": "上下文",
    "col.tokens_before": "压缩前 token",
    "col.tokens_after": "压缩后 token",
    "col.reduction": "减少 token",
    "col.reduction_ratio": "压缩率",
    "col.target_tokens": "目标 token",
    "col.context_max": "context_max",
    "col.prefix": "前缀",
    "col.compress": "压缩片段",
    "col.tail": "保留尾部",
    "col.retries": "重试",
    "col.backend": "后端",
    "col.source": "出处",
    "col.processor": "处理器",
    "col.timestamp": "时间戳",
    "col.event": "事件",
}

STRINGS: dict[str, dict[str, str]] = {"en": EN, "zh": ZH}

SEGMENT_KEYS: tuple[str, ...] = ("system", "prefix", "compress", "tail", "unanchored")
CHART_KEYS: tuple[str, ...] = (
    "internal",
    "last_user",
    "tool_boundary",
    "tokens",
    "message",
    "window",
    "span",
    "threshold",
    "min_target",
    "context_max",
    "before",
    "after",
    "memory",
    "reinjection",
    "compressed",
    "reduction_ratio",
    "dumps",
    "tokens_before",
    "tokens_after",
    "time",
)


#: DataFrame columns whose header is shown translated (``col.<name>`` in both languages).
COLUMN_KEYS: tuple[str, ...] = ("index", "role", "tokens", "segment", "notes", "preview", "conversation", "format", "messages", "system", "tools", "origin", "file", "attempt", "request_tokens", "outcome", "error", "delay_seconds", "budget_ratio", "seconds", "number", "section", "present", "time", "session", "context", "tokens_before", "tokens_after", "reduction", "reduction_ratio", "target_tokens", "context_max", "prefix", "compress", "tail", "retries", "backend", "source", "processor", "timestamp", "event")


def column_labels(language: str | None = None) -> dict[str, str]:
    """Column name → header in one language, for every column a dashboard table may show."""
    language = language or current_language()
    return {key: translate(language, f"col.{key}") for key in COLUMN_KEYS}


def translate(language: str, key: str, **fmt: Any) -> str:
    """The string for ``key`` in ``language`` (English when the language is unknown), formatted with ``fmt``.

    A key missing from both languages comes back as the key itself, so a slip never breaks a page.
    """
    table = STRINGS.get(language, EN)
    text = table.get(key) or EN.get(key) or key
    return text.format(**fmt) if fmt else text


def current_language() -> str:
    from . import state

    return state.language()


def t(key: str, **fmt: Any) -> str:
    """``translate`` in the language chosen in the sidebar."""
    return translate(current_language(), key, **fmt)


def option_labels(prefix: str, language: str | None = None) -> Callable[[Any], str]:
    """A widget ``format_func`` showing ``prefix + value`` in the language of this run.

    The language is fixed when the function is made: Streamlit may call a format_func after the run
    (to map a stored value back to its label), when the session's language can no longer be read.
    """
    fixed = language or current_language()
    return lambda value: translate(fixed, f"{prefix}{value}")


def segment_names(language: str | None = None) -> dict[str, str]:
    language = language or current_language()
    return {key: translate(language, f"segment.{key}") for key in SEGMENT_KEYS}


def chart_labels(language: str | None = None) -> dict[str, str]:
    """Every label a chart draws, in one language (segments included)."""
    language = language or current_language()
    labels = {key: translate(language, f"chart.{key}") for key in CHART_KEYS}
    labels.update(segment_names(language))
    return labels


#: Trace names the report figures draw (in English, dashboard/report.py) → their string keys.
TRACE_KEYS: dict[str, str] = {
    "without compaction": "tune.trace.uncompacted",
    "window the trigger read": "tune.trace.read",
    "window sent to the model": "tune.trace.sent",
    "threshold": "chart.threshold",
    "context_max": "chart.context_max",
    "compaction": "tune.trace.compaction",
    "refused": "tune.trace.refused",
    "settings": "tune.trace.settings",
    "recommended": "tune.trace.recommended",
}


def trace_names(language: str | None = None) -> dict[str, str]:
    """The report figures' trace names in one language."""
    language = language or current_language()
    return {name: translate(language, key) for name, key in TRACE_KEYS.items()}


def capacity_text(capacity: Capacity, language: str | None = None) -> str:
    """Where ``context_max`` came from, in words."""
    language = language or current_language()
    if capacity.source == "default" and capacity.model:
        return translate(language, "capacity.default_unknown", tokens=capacity.tokens, model=capacity.model)
    return translate(
        language, f"capacity.{capacity.source}", tokens=capacity.tokens, model=capacity.model or ""
    )


def explain(decision: Decision, language: str | None = None) -> str:
    """The decision in one sentence with its exact numbers (English is ``Decision.explain()`` itself)."""
    language = language or current_language()
    if language == "en":
        return decision.explain()
    return translate(
        language,
        f"decision.{decision.reason}",
        total=decision.total_tokens,
        threshold=decision.threshold,
        target=decision.target_tokens or 0,
        min_target=decision.min_target_tokens or 0,
    )


def reason_text(reason: str, language: str | None = None) -> str:
    language = language or current_language()
    key = f"reason.{reason}"
    return translate(language, key) if key in EN else reason


def status_text(result: Any, language: str | None = None) -> str:
    """A compaction result in one sentence (English is the result's own ``status_text``)."""
    language = language or current_language()
    if language == "en":
        return str(result.status_text)
    fields: Mapping[str, Any] = {
        "count": result.span_counts[1],
        "before": result.tokens_before,
        "after": result.tokens_after,
        "ratio": result.reduction_ratio,
        "calls": result.calls,
        "reason": reason_text(result.reason, language),
    }
    return translate(language, f"status_text.{result.status}", **fields)


def recommendation_sentences(recommendation: Recommendation, language: str) -> list[str]:
    """Why a setting is recommended, one sentence per reason code, in ``language`` (the CLI uses English)."""
    return [translate(language, f"why.{reason.code}", **reason.values) for reason in recommendation.reasons]


def recommendation_reasons(recommendation: Recommendation) -> list[str]:
    """``recommendation_sentences`` in the language chosen in the sidebar."""
    return recommendation_sentences(recommendation, current_language())
