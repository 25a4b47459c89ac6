"""The dashboard's English strings, as data: one key per piece of our own wording.

Invariant: ``zh.py`` holds exactly these keys with the same format fields (a test checks it); message content
is never translated or formatted through these strings.
"""

from compressor.census import READING_TEXT

STRINGS: dict[str, str] = {
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
    "capacity.recorded": "{tokens:,} tokens (the window the run's file records)",
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
    "status.skipped_because": "{status}: {reason}",
    "status.no_benefit": "Compaction discarded",
    "status.failed": "Compaction failed",
    "status_text.compacted": "Compacted {count} messages: {before:,} → {after:,} context tokens ({ratio:.1%} saved).",
    "status_text.skipped": "Not compacted: {reason}.",
    "status_text.no_benefit": (
        "Compaction discarded: the result would hold {after:,} tokens, not fewer than the original {before:,}."
    ),
    "status_text.failed": "Compaction failed after {calls}: {reason}; the context is unchanged.",
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
    "role.system": "system",
    "role.user": "user",
    "role.assistant": "assistant",
    "role.tool": "tool",
    "segment.system": "system",
    "segment.prefix": "preserved prefix",
    "segment.compress": "span to compress",
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
    "chart.context_max": "capacity",
    "chart.before": "before",
    "chart.after": "after",
    "chart.memory": "memory block",
    "chart.reinjection": "reinjection",
    "chart.compressed": "compressed span",
    "chart.reduction_ratio": "reduction ratio",
    "chart.dumps": "dumps",
    "chart.tokens_before": "context messages before",
    "chart.tokens_after": "context messages after",
    "chart.time": "time",
    "chart.uncompacted": "without compaction",
    "chart.read": "window total (read by the trigger)",
    "chart.sent": "context sent (after compaction)",
    "chart.compaction": "compaction",
    "chart.refused": "refused compaction",
    "chart.settings": "settings",
    "chart.recommended": "recommended",
    "chart.context_title": "Context over the run",
    "chart.context_x": "message index of the model call",
    "chart.tradeoff_title": "Compaction cost against headroom",
    "chart.tradeoff_x": "headroom at the peak (1 − peak / context_max)",
    "chart.tradeoff_y": "tokens sent to the compaction model",
    "chart.heat.cost": "Run cost, agent and compaction calls",
    "chart.heat.compactions": "Compactions over the run",
    "chart.heat.compaction_input_tokens": "Tokens sent to the compaction model",
    "chart.heat.peak_utilisation": "Peak context sent, share of the capacity",
    "chart.heat_title": "{title} (min_target_context_ratio {target})",
    "chart.hover.step": "message %{x}: %{y:,} tokens<br>%{text}",
    "chart.hover.heat": "ratio %{x}, keep %{y}: %{text}",
    "chart.hover.setting": "ratio {ratio}, keep {keep}, min target {min_target}, compactions: {compactions}",
    "chart.hover.tradeoff": "headroom %{x:.1%}, cost %{y:,} tokens",
    # metrics
    "metric.span_counts": "Prefix / compress / tail",
    "metric.tokens_before": "Context messages before",
    "metric.tokens_after": "Context messages after",
    "metric.saved": "Saved",
    "metric.saved_help": "Share of the context tokens the compaction removed.",
    "metric.request_tokens": "Request tokens",
    "metric.request_help": "Tokens of the last request sent to the model (messages, prompt and tools).",
    "metric.calls": "Model calls",
    "term.formula": "Formula: {formula}",
    "term.window_total": "Window total",
    "term.window_total.help": (
        "Everything the next model call reads, as the trigger compares it with its threshold: system "
        "messages, tool definitions, hidden overhead and every context message."
    ),
    "term.context_sent": "Context sent",
    "term.context_sent.help": "The window a replayed model call sends, once a compaction at that call is applied.",
    "term.context_tokens": "Context messages",
    "term.context_tokens.help": (
        "The context messages only, without the system messages and the tools: what the benefit check "
        "compares before and after a compaction."
    ),
    "term.span_to_compress": "Span to compress",
    "term.span_to_compress.help": "The messages after the last real user request and before the kept tail.",
    "term.hidden_overhead": "Hidden overhead",
    "term.hidden_overhead.help": (
        "What the run's reported usage holds beyond what its file shows (the agent's own system prompt "
        "and tools), measured once, at the first call that reports usage."
    ),
    "term.memory_block": "Memory block",
    "term.memory_block.help": "The one message that replaces the compressed span.",
    "term.reinjection": "Reinjection",
    "term.reinjection.help": "The message that re-adds the files the compressed span had read.",
    "term.threshold": "Trigger threshold",
    "term.threshold.help": "The window total at which the trigger fires.",
    "term.min_span": "Minimum span",
    "term.min_span.help": "The smallest span to compress that is worth a compaction.",
    "term.capacity": "Capacity",
    "term.capacity.help": "The tokens the model's context window holds (context_max).",
    "term.left": "Left",
    "term.left.help": "The share of the capacity still free.",
    "term.until_compaction": "Until compaction",
    "term.until_compaction.help": (
        "How much the window may still grow, as a share of the capacity, before the trigger fires."
    ),
    "term.peak_read": "Peak window read",
    "term.peak_read.help": "The largest window total of the run, read before any compaction at that call.",
    "term.peak_sent": "Peak context sent",
    "term.peak_sent.help": "The largest window the run sends to its model, after compactions.",
    "part.system": "system",
    "part.tools": "tools",
    "part.hidden": "hidden overhead",
    "part.prefix": "preserved prefix",
    "part.span": "span to compress",
    "part.tail": "protected tail",
    "part.unanchored": "unanchored",
    "part.rest": "other messages",
    "part.drift": "counter drift",
    "part.free": "free",
    "breakdown.caption": (
        "{total:,} of {capacity:,} tokens used ({used}): {left} left, {until} until compaction at "
        "{threshold:,}."
    ),
    "breakdown.parts": "The window total is {parts}.",
    "breakdown.over": "Over capacity by {over:,} tokens: this call would not fit the model's window.",
    "breakdown.drift_negative": (
        "Our counter finds {drift:,} tokens more in the messages than the reported usage holds; the bar "
        "shows the counted parts."
    ),
    "breakdown.caption_reached": (
        "{total:,} of {capacity:,} tokens used ({used}): {left} left, and the window has reached the threshold "
        "of {threshold:,}."
    ),
    "breakdown.now": "after message #{index} (all {messages})",
    "breakdown.at_call": "at the model call for message #{index}",
    "decision.condition.no_model": (
        "Condition: openJiuwen would not compact: no model is configured (it needs both model and "
        "model_client). Set an OpenAI-compatible endpoint on the Live compaction page; the decision "
        "above is what it makes once one is set."
    ),
    "decision.condition.offline": (
        "Condition: openJiuwen itself would not compact without a model; this page compacts with the "
        "offline backend all the same."
    ),
    "result.failed_detail": "What the endpoint or the client said",
    "count.call.one": "{n} call",
    "count.call.other": "{n:,} calls",
    "count.compaction.one": "{n} compaction",
    "count.compaction.other": "{n:,} compactions",
    "count.conversation.one": "{n} conversation",
    "count.conversation.other": "{n:,} conversations",
    "count.dump.one": "{n} dump",
    "count.dump.other": "{n:,} dumps",
    "count.file.one": "{n} file",
    "count.file.other": "{n:,} files",
    "count.folder.one": "{n} folder",
    "count.folder.other": "{n:,} folders",
    "count.field.one": "{n} field",
    "count.field.other": "{n:,} fields",
    "count.item.one": "{n} item",
    "count.item.other": "{n:,} items",
    "cell.yes": "yes",
    "cell.no": "no",
    "count.message.one": "{n} message",
    "count.message.other": "{n:,} messages",
    "count.record.one": "{n} record",
    "count.record.other": "{n:,} records",
    "count.run.one": "{n} run",
    "count.run.other": "{n:,} runs",
    "count.secret.one": "{n} possible secret",
    "count.secret.other": "{n:,} possible secrets",
    "count.setting.one": "{n} setting",
    "count.setting.other": "{n:,} settings",
    "count.attempt.one": "{n} attempt",
    "count.attempt.other": "{n:,} attempts",
    "count.flagged_attempt.one": "{n} flagged attempt",
    "count.flagged_attempt.other": "{n:,} flagged attempts",
    "count.compaction_call.one": "{n} compaction call",
    "count.compaction_call.other": "{n:,} compaction calls",
    "count.compaction_span.one": "{n} compaction span",
    "count.compaction_span.other": "{n:,} compaction spans",
    "count.masking.one": "{n} masking",
    "count.masking.other": "{n:,} maskings",
    "count.summary.one": "{n} summary",
    "count.summary.other": "{n:,} summaries",
    "count.tool_call.one": "{n} tool call",
    "count.tool_call.other": "{n:,} tool calls",
    "count.tool_result.one": "{n} tool result",
    "count.tool_result.other": "{n:,} tool results",
    "dumps.folders": "Folders",
    "dumps.by_sequence": (
        "These dumps were written within moments of each other, so they are drawn in the order they "
        "were written rather than against a clock."
    ),
    "dumps.debug_from": "{records} of this dump's run, from {log}.",
    "dumps.rerun.recorded_title": "1. Reproduce the recorded compaction",
    "dumps.rerun.recorded_help": (
        "With the dump's own settings (context_max {context_max:,}, keep_recent_messages {keep}), "
        "forced as the recorded run fired: the split should come out as recorded, {split}."
    ),
    "dumps.rerun.recorded": "Re-run with the dump's settings",
    "dumps.rerun.sidebar_title": "2. Try the sidebar's settings",
    "dumps.rerun.sidebar": "Re-run with the sidebar's settings",
    "dumps.rerun_badge.recorded": "Re-run now with the dump's own settings: not the recorded compaction",
    "dumps.rerun_badge.sidebar": "Re-run now with the sidebar's settings: not the recorded compaction",
    "dumps.split_same": "The split is the recorded one: prefix / compress / tail {split}.",
    "dumps.split_differs": "The split differs from the recorded {split}: this run made {now}.",
    "tune.hidden_overhead": (
        "The run reports usage: its hidden overhead of {tokens:,} tokens (the agent's own prompt and "
        "tools) is carried in every window the replay counts, after a compaction too."
    ),
    "result.sizing": (
        "Memory block: {ours:,} tokens as we sent it (our own wording); openJiuwen's block for the same "
        "summary counts {theirs:,}, and the context after would hold {after:,} with it. The replay "
        "counts openJiuwen's."
    ),
    "result.no_summary": "No summary came back, so there are no sections to check.",
    "follow.file": "Follow this file",
    "follow.file_help": (
        "While on, the page reads the file again every few seconds and shows the messages the agent has "
        "added (what was already read is not counted again; a half-written last line waits for the next "
        "read)."
    ),
    "follow.folder": "Follow this folder",
    "follow.folder_help": "While on, new dumps and debug records show as they land (checked every few seconds).",
    "follow.watching_file": "Following: {messages} read, checked at {at}.",
    "follow.watching_folder": "Following: {dumps} here, checked at {at}.",
    "chart.sequence": "dump number, in the order written",
    "compact.use_server": "Use the server's endpoint",
    "compact.use_server_help": (
        "The endpoint set on the server (API_BASE), called with the server's key (API_KEY); neither is "
        "shown here. Turn it off to type another endpoint and its key."
    ),
    "compact.server_endpoint": (
        "Calling the server's own endpoint with the server's key. Leave the model name empty for the "
        "server's MODEL_NAME."
    ),
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
    "browse.here": "Browsing {path}",
    "browse.up": "Up one folder",
    "browse.empty": "This folder is empty.",
    "browse.entries": "Folders and files ({count})",
    "browse.open": "Open folder",
    # Load page
    "load.title": "Load conversations",
    "load.intro": (
        "Upload agent runs in any format the README lists (openJiuwen, OpenAI and Anthropic messages, LangChain, "
        "Claude Code, Codex, Gemini CLI, OpenHands, OpenCode, SWE-agent …, or a zip of many), open a bundled sample, "
        "or pick a file or a session store on the server."
    ),
    "load.current": "Current conversation: {name} (format: {format})",
    "load.clear": "Remove all loaded conversations",
    "load.nothing": "Nothing is loaded. Upload a file, or open a bundled sample below.",
    "load.ok": "{file}: {conversations}, format {format}",
    "origin.sample": "bundled sample",
    "origin.upload": "uploaded",
    "origin.root": "a file on the server",
    "origin.store": "a session store on the server",
    "origin.fleet": "opened from Fleet",
    "load.tab.upload": "Upload",
    "load.tab.samples": "Bundled samples",
    "load.tab.server": "Files on the server",
    "load.upload": "Conversation files",
    "load.upload_help": "JSON, JSONL, .traj (compressed too: .zst, as Codex keeps a week-old rollout, or .gz), Parquet rows of runs (.parquet, as Hub trajectory datasets keep them), an SQLite session store (.db, .sqlite, Cursor's state.vscdb), or a zip of such files (up to 200 MB in total).",
    "load.pick_hint": "Several conversations were loaded: the first is shown; pick another in the sidebar.",
    "load.no_samples": "No bundled samples were found in dashboard/samples/.",
    "load.sample": "Sample",
    "load.sample_help": "demo-conversation.json is an openJiuwen agent run fixing a failing test.",
    "load.open_sample": "Open sample",
    "load.server_intro": "Only folders listed in {env} can be browsed; paths cannot be typed.",
    "load.open_file": "Load this file",
    "load.open_store": "Open the sessions stored in {folder}",
    "load.review_folder": "Review dumps in {folder}",
    # Span page
    "span.title": "Span & trigger",
    "span.empty": "No conversation is loaded. Open the Load page to upload one or to pick a sample.",
    "span.subtitle": "{name} · format {format} · {messages} context messages, {system} system, {tools} tools",
    "span.total_usage": (
        "The window total {total:,} comes from reported usage: message #{index} of system + context reported "
        "{reported:,} tokens, plus characters / 3 of every message after it."
    ),
    "span.total_counted": (
        "The window total {total:,} was counted with {counter} over the system messages, the context and the tools "
        "(no assistant message reported usage)."
    ),
    "span.spans": "The three spans",
    "span.range": "{part}: {where} ({count})",
    "span.range_empty": "{part}: none",
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
    "compact.subject": "Compacting {name} ({messages} in the context) with the sidebar settings.",
    "compact.backend": "Backend",
    "compact.backend.offline": "Offline (extractive, no network)",
    "compact.backend.openai": "OpenAI-compatible endpoint",
    "compact.backend_help": "The offline backend builds the summary from the messages themselves; no key needed.",
    "compact.base_url": "Base URL",
    "compact.model_name": "Model name",
    "compact.api_key": "API key",
    "compact.api_key_help": "Kept only in this browser session on the server; never put in the address, a file or a log.",
    "compact.server_key": (
        "The server has its own endpoint (API_BASE) and key: tick 'Use the server's endpoint' to call "
        "it. A URL you type needs a key you type; the server's key is never sent anywhere else."
    ),
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
    "result.parts": (
        "prefix {prefix:,} · memory block {memory:,} · reinjection {reinjection:,} · tail {tail:,} tokens, each part "
        "counted as openJiuwen counts a message list (its messages + 3), so a part is 3 more than the same "
        "messages in the window breakdown"
    ),
    "result.reinjected": "{files} re-added by state reinjection ({tokens:,} tokens):",
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
        "{secrets} in this conversation's messages, shown masked below: remove them before sharing the "
        "conversation, a compaction of it or its dumps."
    ),
    "secrets.summary": (
        "The summary holds {secrets}, shown masked below: a compaction carries them into the new "
        "context, the download and the dump."
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
    "dumps.intro": (
        "Compression dumps written by openJiuwen or by this tool, with the debug log when it is there; "
        "every dump below the folder is listed, grouped by the folder it lies in."
    ),
    "dumps.source": "Dumps from",
    "dumps.source.folder": "a folder on the server",
    "dumps.source.upload": "uploaded files",
    "dumps.folder": "Reviewing every dump below {path}",
    "dumps.this_folder": "(this folder)",
    "dumps.choose_folder": "Choose another folder",
    "dumps.use_folder": "Review {path}",
    "dumps.upload": "Dump files",
    "dumps.upload_help": (
        "Dump JSON files, CurrentRoundCompressor.jsonl debug logs, or a zip of them. A zip keeps its "
        "folders; loose debug logs are each put beside the dump they describe, so logs with the same "
        "name stay apart."
    ),
    "dumps.no_folder": "Choose a dump folder, or upload dump files.",
    "dumps.broken": "{files} could not be read as dumps",
    "dumps.broken_more": "…and {count} more.",
    "dumps.empty": (
        "No dumps here yet. Run a compaction on the Live compaction page with 'Keep the dump' on, upload dump "
        "files, point openJiuwen's OPENJIUWEN_COMPRESSION_DUMP_DIR at a folder under the roots, or run:"
    ),
    "dumps.sessions": "Sessions",
    "dumps.min_ratio": "Minimum reduction ratio",
    "dumps.search": "File or context contains",
    "dumps.retried": "Retried",
    "dumps.count": "{shown} of {total} shown, in {folders}",
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
    "dumps.before": "Before: {messages} (rebuilt from the dump)",
    "dumps.after": "After: {messages}",
    "dumps.before_message": "Before",
    "dumps.after_message": "After",
    "dumps.span_note": "Segments from the dump's span counts; tokens counted with {counter}.",
    "dumps.reinjection": "State reinjection message",
    "dumps.no_debug": "No debug log records for this dump.",
    "dumps.rerun_intro": "Compact the context before this dump again, with the sidebar settings.",
    "dumps.use_context_max": "Put this dump's settings in the sidebar (context_max {context_max:,}, keep {keep})",
    "dumps.rerun_backend": "Model",
    "dumps.rerun_backend.replay": "Replay the recorded reply",
    "dumps.rerun_backend.live": "The Live compaction page's backend",
    "dumps.rerun_compare": "The recorded compaction went from {before:,} to {after:,} tokens.",
    "dumps.cost.title": "What it cost",
    "dumps.cost.note": (
        "Each dump's compaction call: its tokens in and out are the usage the dump reports when it has one "
        "(reported), else counted (counted) from the request it sent and its raw reply, with the counter the "
        "dump's own numbers were counted with (the sidebar's, {counter}, when the dump does not say). A dump says "
        "nothing of the cache: the saving is the tokens it took out of the context, at the input price, at every "
        "later call, and it pays back after call ÷ saving calls."
    ),
    "dumps.cost.from.reported": "reported",
    "dumps.cost.from.counted": "counted",
    "dumps.cost.col.input": "Call input (tokens)",
    "dumps.cost.col.output": "Call output (tokens)",
    "dumps.cost.col.usage": "Tokens",
    "dumps.cost.payback": "after {calls}",
    "dumps.cost.never": "never: it saves nothing per call",
    "dumps.cost.tokens": "Compaction call, tokens in / out",
    "dumps.cost.total": "Compaction calls, {dumps} shown",
    "dumps.cost.total_saving": "Saved per later call (uncached), together",
    "dumps.cost.col.saving": "Saved per later call (uncached)",
    "dumps.cost.sources": "Tokens: {reported} reported, {counted} counted.",
    "dumps.cost.total_button": "Price all {dumps} shown",
    "dumps.time.calls": "Model calls",
    "dumps.time.backoff": "Backoff waited",
    "dumps.time.took": "Took",
    "dumps.time.unknown": "not recorded",
    "dumps.time.from_log": (
        "From the debug log beside the dump: one call per attempt (each retry is one more), the backoff waited "
        "before retrying, and the time from the trigger's threshold check to the dump written."
    ),
    "dumps.time.from_dump": "From the dump's own record of its attempts; the debug log beside it has no record of them.",
    "dumps.time.none": "Neither the dump nor a debug log beside it says how many calls the compaction made or how long it took.",
    "dumps.cost.detail.reported": "The compaction call's tokens are the usage the dump reports.",
    "dumps.cost.detail.counted": (
        "The compaction call's tokens are counted with {counter} (the dump reports no usage): the request it sent "
        "and its raw reply."
    ),
    # Tune page
    "tune.bill": "What it costs",
    "tune.price": "Price the run as",
    "tune.price.own": "the run's own model ({model})",
    "tune.price.none": "tokens: {model} is not in the price table",
    "tune.price.unnamed": "tokens: the run names no model",
    "tune.price_help": (
        "A row of the bundled price table (USD per million tokens, with the page and the date it comes from). "
        "The run's own model is the one the sidebar's model window names, else the one its file names, as "
        "compaction-lab simulate chooses it. Without a price every cost is counted in tokens."
    ),
    "tune.price_caption": (
        "Priced as {model}, USD per 1M tokens: input ${input}, cached ${cached}, cache write ${write}, output "
        "${output} (from {source}, {date}); cache reads and writes are billed as the provider bills them."
    ),
    "tune.price_caption.tokens": (
        "No price: costs are counted in tokens, every input token as one, cached or not. Pick a model to "
        "price the run."
    ),
    "tune.cost.tokens": "{tokens:,} tokens",
    "tune.cost.with": "Run cost, with compaction",
    "tune.cost.with_help": "The agent's calls with this setting and the compaction calls, cache reads and writes priced.",
    "tune.cost.without": "Run cost, without compaction",
    "tune.cost.saved": "Compaction saves",
    "tune.cost.saved_help": "Without compaction minus with it (negative: on this run compaction costs more than it saves).",
    "tune.cost.in_usd": " ($)",
    "tune.cost.in_tokens": " (tokens)",
    "tune.cost.col.message": "Message",
    "tune.cost.col.call": "Compaction call",
    "tune.cost.col.invalidated": "Cache lost (tokens)",
    "tune.cost.col.written": "Cache rewritten (tokens)",
    "tune.cost.col.next_call": "Next call, extra",
    "tune.cost.col.saving": "Saved per later call",
    "tune.cost.col.payback": "Pays back",
    "tune.payback.paid": "after {calls}, of the {horizon} it had",
    "tune.payback.never": "never, in the {horizon} it had",
    "tune.title": "Tune",
    "tune.empty": (
        "No conversation is loaded. Open the Load page to upload an agent run or to pick a sample, then come "
        "back here to replay it."
    ),
    "tune.subtitle": (
        "{name} · {messages} in the context, replayed model call by model call with the sidebar settings."
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
        "A live replay would make about {calls} sending about {tokens:,} input tokens (largest request "
        "{largest:,}), assuming summaries of {ratio} of the span; retries would add more."
    ),
    "tune.live_backend": "Backend: {backend} (set it on the Live compaction page).",
    "tune.live_unconfigured": "The Live compaction page's endpoint is not ready: {problem}",
    "tune.live_confirm": "I accept sending about {tokens:,} tokens in {calls} to this backend",
    "tune.live_run": "Run the live replay",
    "tune.live_running": "Calling the backend for up to {compactions}…",
    "tune.live_pending": (
        "Until the live replay runs, this page shows the replay with summaries sized {summary}."
    ),
    "tune.replaying": "Replaying the run…",
    "tune.run": "This setting over the run",
    "tune.run_caption": "{steps} · summaries: {summary} · capacity {capacity}",
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
    "tune.metric.peak": "Peak window read",
    "tune.metric.peak_help": (
        "The largest window total the trigger read, at message #{index}: {peak:,} of {context_max:,} "
        "tokens, the same quantity as the threshold of {threshold:,}. The largest context sent, after "
        "compactions, is {sent:,} tokens ({sent_share})."
    ),
    "tune.metric.compaction_input": "Compaction input tokens",
    "tune.metric.compaction_input_help": "Tokens sent to the compaction model over {calls}.",
    "tune.metric.agent_input": "Agent input, with compaction",
    "tune.metric.agent_input_help": "Tokens the agent sends over all its model calls with this setting.",
    "tune.metric.agent_input_uncompacted": "Agent input, without compaction",
    "tune.over_capacity": "{over} of {steps} model calls send more than context_max.",
    "tune.no_model": (
        "openJiuwen compacts only with a model and a model client configured; this replay shows what it "
        "would do with one."
    ),
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
        "{settings}: {ratios} ratios × {keeps} keep values at min_target_context_ratio {min_target}, "
        "summaries {summary}. The sidebar's setting is one of them."
    ),
    "tune.offline_sweep": (
        "The offline backend summarises at every compaction of every setting: on a long run choose ratio:X."
    ),
    "tune.sweeping": "Replaying {settings}…",
    "tune.recommendation": "Recommendation",
    "tune.headroom": "Headroom to keep free at every model call",
    "tune.headroom_help": "The recommended setting keeps the context at or below (1 − headroom) × context_max.",
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
    "why.compaction_cost": (
        "It needs {compactions_counted}, sending {compaction_input_tokens:,} tokens to the compaction model."
    ),
    "why.none_clean": (
        "{qualifying} settings keep the headroom, but each raises a loop flag ({flagged} flagged): a "
        "compaction that reclaims too little, comes back within a few calls or leaves the window above "
        "the trigger."
    ),
    "why.least_flagged": (
        "The fewest flagged attempts ({flagged}) come with trigger_context_ratio {ratio:g}, "
        "keep_recent_messages {keep}, min_target_context_ratio {min_target:g}; a lower ratio, fewer kept "
        "messages or a larger context may break the loop."
    ),
    "why.loop_flagged": "{flagged} of them are set aside: a compaction attempt there raises a loop flag.",
    "why.cheapest_price": (
        "Of those, trigger_context_ratio {ratio:g}, keep_recent_messages {keep}, "
        "min_target_context_ratio {min_target:g} costs the least: ${price:,.4f} over the run "
        "({price_tokens:,} tokens, cache reads and writes priced as the provider bills them)."
    ),
    "why.cheapest_tokens": (
        "Of those, trigger_context_ratio {ratio:g}, keep_recent_messages {keep}, "
        "min_target_context_ratio {min_target:g} sends the fewest tokens: {tokens:,} over the run, agent "
        "and compaction calls together (no price is known for this run's model)."
    ),
    "why.tie_break": (
        "{tied} settings cost exactly as much; this one has the fewest compactions and the earliest "
        "trigger, which leaves the most room on a run that grows faster."
    ),
    "why.is_current": "It is the current setting.",
    "why.versus_current_price": (
        "The current setting (trigger_context_ratio {ratio:g}, keep_recent_messages {keep}, "
        "min_target_context_ratio {min_target:g}) costs ${current_price:,.4f} over the run: this one "
        "saves ${saved:,.4f}."
    ),
    "why.versus_current_tokens": (
        "The current setting (trigger_context_ratio {ratio:g}, keep_recent_messages {keep}, "
        "min_target_context_ratio {min_target:g}) sends {current_tokens:,} tokens over the run: this one "
        "saves {saved:,}."
    ),
    "why.current_cheaper_price": (
        "The current setting (trigger_context_ratio {ratio:g}, keep_recent_messages {keep}, "
        "min_target_context_ratio {min_target:g}) costs ${current_price:,.4f}, ${difference:,.4f} less, "
        "but it does not keep the headroom or it raises a loop flag."
    ),
    "why.current_cheaper_tokens": (
        "The current setting (trigger_context_ratio {ratio:g}, keep_recent_messages {keep}, "
        "min_target_context_ratio {min_target:g}) sends {current_tokens:,} tokens, {difference:,} fewer, "
        "but it does not keep the headroom or it raises a loop flag."
    ),
    "why.never_fires": (
        "With it, compaction never fires on this run (the window stays below its {threshold:,}-token "
        "trigger), so it costs exactly what not compacting does; it is untried here: a longer run reaches "
        "the trigger and compacts."
    ),
    "why.edge_ratio_low": (
        "It is the lowest trigger_context_ratio of the grid ({ratio:g}): a lower one might cost less; "
        "widen the grid to see."
    ),
    "why.edge_ratio_high": (
        "It is the highest trigger_context_ratio of the grid ({ratio:g}): a higher one might cost less; "
        "widen the grid to see."
    ),
    "why.edge_keep_high": (
        "It keeps the most recent messages the grid tries ({keep}): a larger keep_recent_messages might "
        "cost less; widen the grid to see."
    ),
    "why.edge_keep_low": (
        "It keeps the fewest recent messages the grid tries ({keep}): a smaller keep_recent_messages "
        "might cost less; widen the grid to see."
    ),
    "why.runner_up_price": (
        "Runner-up: trigger_context_ratio {ratio:g}, keep_recent_messages {keep}, "
        "min_target_context_ratio {min_target:g}, at ${price:,.4f} ({price_tokens:,} tokens), "
        "${difference:,.4f} more."
    ),
    "why.runner_up_tokens": (
        "Runner-up: trigger_context_ratio {ratio:g}, keep_recent_messages {keep}, "
        "min_target_context_ratio {min_target:g}, at {tokens:,} tokens, {difference:,} more."
    ),
    "why.cheapest_firing_price": (
        "The cheapest setting at which compaction does fire is trigger_context_ratio {ratio:g}, "
        "keep_recent_messages {keep}, min_target_context_ratio {min_target:g}: ${price:,.4f} "
        "({price_tokens:,} tokens), ${difference:,.4f} more."
    ),
    "why.cheapest_firing_tokens": (
        "The cheapest setting at which compaction does fire is trigger_context_ratio {ratio:g}, "
        "keep_recent_messages {keep}, min_target_context_ratio {min_target:g}: {tokens:,} tokens, "
        "{difference:,} more."
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
    "demo.subtitle": "{name} · {steps} · summaries: {summary} · capacity {capacity}",
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
    # the exported HTML report
    "report.unnamed": "(unnamed run)",
    "report.meta": (
        "{source} · {messages:,} context messages, {steps:,} model calls · counter {counter} · context_max "
        "{capacity} · summary model {summary}"
    ),
    "report.setting": (
        "Simulated setting: trigger_context_ratio {ratio} (threshold {threshold:,} tokens), keep_recent_messages "
        "{keep}, min_target_context_ratio {min_target} ({min_target_tokens:,} tokens)."
    ),
    "report.fact.first_trigger": "trigger first fires",
    "report.fact.compactions": "compactions",
    "report.fact.peak": "peak context sent",
    "report.fact.peak_read": "peak window read (the threshold's quantity)",
    "report.col.window": "window total",
    "report.fact.over_capacity": "model calls over capacity",
    "report.fact.compaction_input": "tokens sent to the compaction model",
    "report.fact.agent_input": "tokens the agent sends",
    "report.value.never": "never",
    "report.value.first_trigger": "message {index:,}",
    "report.value.compactions": "{compactions:,} ({refused:,} refused)",
    "report.value.peak": "{tokens:,} tokens ({share:.1%})",
    "report.value.over_capacity": "{over:,} of {steps:,}",
    "report.value.agent_input": "{tokens:,} instead of {uncompacted:,} ({saved:,} saved)",
    "report.recommendation": "Recommendation",
    "report.use": "Use trigger_context_ratio {ratio}, keep_recent_messages {keep}, min_target_context_ratio {min_target}.",
    "report.none": "No recommendation with {headroom} headroom.",
    "report.compactions": "Compactions",
    "report.no_events": "No compaction was attempted with this setting.",
    "report.sweep": "Sweep: {settings} settings, summary model {summary}",
    "report.col.message": "message",
    "report.col.outcome": "outcome",
    "report.col.span": "prefix / compress / tail",
    "report.col.span_tokens": "span to compress",
    "report.col.context_tokens": "context messages before → after",
    "report.col.memory": "memory block",
    "report.col.reinjection": "reinjection",
    "report.col.files": "files reinjected",
    "report.col.request_tokens": "request tokens",
    "report.col.calls": "calls",
    "report.col.ratio": "trigger ratio",
    "report.col.keep": "keep",
    "report.col.min_target": "min target",
    "report.col.first_trigger": "first trigger",
    "report.col.compactions": "compactions",
    "report.col.peak_tokens": "peak context sent",
    "report.col.peak": "share of the capacity",
    "report.col.over_capacity": "calls over capacity",
    "report.col.compaction_input": "compaction input",
    "report.col.agent_input": "agent input",
    "report.footer": "Written by compaction-lab from a replay of the run; no network was used to draw it.",
    # table column headers (the DataFrame column names stay the same)
    "col.folder": "Folder",
    "col.sequence": "Order written",
    "col.index": "Index",
    "col.message": "Message",
    "col.role": "Role",
    "col.tokens": "Tokens",
    "col.segment": "Segment",
    "col.notes": "Notes",
    "col.preview": "Preview",
    "col.conversation": "Conversation",
    "col.format": "Format",
    "col.messages": "Messages",
    "col.system": "System messages",
    "col.tools": "Tools",
    "col.origin": "Origin",
    "col.file": "File",
    "col.attempt": "Attempt",
    "col.request_tokens": "Request tokens",
    "col.outcome": "Outcome",
    "col.error": "Error",
    "col.delay_seconds": "Delay (s)",
    "col.budget_ratio": "Budget ratio",
    "col.seconds": "Seconds",
    "col.number": "Number",
    "col.section": "Section",
    "col.present": "Present",
    "col.time": "Time",
    "col.session": "Session",
    "col.context": "Context",
    "col.tokens_before": "Context messages before",
    "col.tokens_after": "Context messages after",
    "col.reduction": "Saved tokens",
    "col.reduction_ratio": "Saved",
    "col.target_tokens": "Span to compress",
    "col.context_max": "Capacity",
    "col.prefix": "Prefix messages",
    "col.compress": "Compressed messages",
    "col.tail": "Tail messages",
    "col.retries": "Retries",
    "col.took": "Took (s)",
    "col.backend": "Backend",
    "col.source": "Written by",
    "col.processor": "Processor",
    "col.timestamp": "Time",
    "col.event": "Event",
    "col.phase": "Phase",
    "col.total_tokens": "Window total",
    "col.threshold": "Trigger threshold",
    "col.hit": "Fires",
    "col.reason": "Reason",
    "col.messages_to_compress": "Span messages",
    "col.preserved_prefix": "Preserved prefix",
    "col.protected_tail": "Protected tail",
    "col.retried": "Retried",
    "col.error_type": "Error type",
    "col.error_message": "Error message",
}

# What a compaction kept, and how a file was read (issues 11 and 10): one block, kept apart.
STRINGS.update(
    {
        # -- what a compaction kept (issue 11) and how a file was read (issue 10) ---------------------------
        "quality.category.paths": "File paths",
        "quality.category.commands": "Commands run",
        "quality.category.errors": "Errors seen",
        "quality.category.identifiers": "Identifiers (ids, hashes, URLs, tickets)",
        "quality.category.numbers": "Numbers with units",
        "quality.category.tools": "Tools used",
        "quality.category.constraints": "User constraints",
        "quality.category.todos": "Open to-dos",
        "quality.category.decisions": "Decisions",
        "quality.kept.paths": "{kept}/{total} files",
        "quality.kept.commands": "{kept}/{total} commands",
        "quality.kept.errors": "{kept}/{total} errors",
        "quality.kept.identifiers": "{kept}/{total} identifiers",
        "quality.kept.numbers": "{kept}/{total} numbers",
        "quality.kept.tools": "{kept}/{total} tools",
        "quality.kept.constraints": "{kept}/{total} constraints",
        "quality.kept.todos": "{kept}/{total} to-dos",
        "quality.kept.decisions": "{kept}/{total} decisions",
        "quality.status.kept": "kept in the summary",
        "quality.status.elsewhere": "still in the kept messages",
        "quality.status.lost": "lost",
        "quality.match.exact": "exact",
        "quality.match.extended": "a longer form",
        "quality.match.suffix": "the path's end",
        "quality.match.basename": "the file name",
        "quality.match.inside": "inside a longer text",
        "quality.match.normalised": "case and spaces folded",
        "quality.match.prefix": "its opening words",
        "quality.match.paraphrase": "paraphrased",
        "quality.reason.no_summary_text": "no summary text to score",
        "quality.reason.sized_summary": "this replay only sizes its summaries (no text), so what they keep is not scored",
        "quality.reason.live_summary_not_recorded": "a live model wrote the summary and the replay keeps only its size",
        "quality.reason.replay_mismatch": "the rebuilt context differs from the replay's, so it is not scored",
        "quality.reason.not_compacted": "it did not compact",
        "quality.reason.live_failed": "the live model did not answer",
        "quality.badge": "kept {kept}/{total} ({share}); {elsewhere} still in the kept messages, {lost} lost",
        "quality.badge_label": "What the summary kept",
        "quality.badge_line": "{label}: {badge}",
        "quality.nothing_to_keep": "nothing in the span to keep",
        "quality.replay_line": "At message #{index}: {text}",
        "quality.report_title": "What each compaction kept",
        "quality.saved_unscored": "saved {saved}; {reason}",
        "quality.list_separator": ", ",
        "quality.saved_kept": "saved {saved}, kept {kept}",
        "quality.open": "What it kept — {lost} lost",
        "quality.intro": (
            "Every file path, command, error, identifier, number, tool, constraint, to-do and decision in the "
            "replaced messages, and whether the summary kept it."
        ),
        "quality.nothing_lost": "Nothing was lost: every item is in the summary or still in the kept messages.",
        "quality.by_category": "Kept per category",
        "quality.lost_title": "What it forgot",
        "quality.col.category": "Category",
        "quality.col.item": "Item",
        "quality.col.message": "Message",
        "quality.col.elsewhere": "Still in the kept messages",
        "quality.col.mentions": "Mentions",
        "quality.show_all": "Every item, with how it was kept",
        "quality.col.status": "Fate",
        "quality.col.match": "Matched as",
        "quality.col.kept": "Kept",
        "quality.col.total": "Items",
        "quality.col.share": "Share kept",
        "quality.jump": "Show the message it came from",
        "quality.message": "Message #{index} before the compaction",
        "quality.lost_more": "{count} more lost items are not listed.",
        "quality.folder_title": "What each dump forgot",
        "quality.folder_caption": "{dumps} on this page; items lost in all: {lost}.",
        "quality.col.dump": "Dump",
        "quality.col.retention": "Kept by the summary",
        "quality.col.lost": "Lost",
        "quality.recorded_title": "The agent's own compactions, scored",
        "quality.recorded_none": "The file records no compaction of the agent's own.",
        "quality.col.number": "No.",
        "quality.col.summary_at": "Summary at message",
        "quality.col.origin": "Written by",
        "quality.col.span_tokens": "Span tokens",
        "quality.col.summary_tokens": "Summary tokens",
        "census.real_user": "Real user requests",
        "census.internal_user": "Internal user turns",
        "census.assistant": "Assistant turns",
        "census.tool": "Tool results",
        "census.tool_calls": "Tool calls",
        "census.unmatched_tool_calls": "Tool calls without a result",
        "census.unmatched_tool_results": "Tool results without a call",
        "load.readings_title": "How the file was read",
        "load.readings_none": "Read as written: no turn needed re-reading.",
        "load.picker_title": "Sessions your agents wrote",
        "load.picker": "Session (newest first)",
        "load.picker_load": "Load this session",
        "load.picker_none": "No agent session folder lies inside the allowed roots.",
        "tune.cannot_compact.no_real_user": (
            "This run cannot compact: it has no real user request, so there is no span to summarise (a lower "
            "ratio would not help)."
        ),
        "tune.cannot_compact.nothing_after": (
            "This run cannot compact: every model call comes straight after a real user request, so there is "
            "never work after the latest request to summarise (a lower ratio would not help)."
        ),
    }
)


# How a file was read: the library's own words (``compressor.census.READING_TEXT``, which the CLI prints), one form
# for a count of one and one for the rest.
STRINGS.update(
    {
        f"reading.{code}.{form}": text
        for code, forms in READING_TEXT.items()
        for form, text in zip(("one", "other"), forms, strict=True)
    }
)

# The Fleet page: one setting for many runs.
STRINGS.update(
    {
        "nav.fleet": "Fleet",
        "fleet.title": "Fleet: one setting for many runs",
        "fleet.subtitle": (
            "Every run of a folder catalogued once, swept over a grid of settings, and the cheapest setting "
            "that keeps the headroom on the chosen share of runs, with the runs it hurts."
        ),
        "fleet.source": "Runs from",
        "fleet.source.folder": "A folder on the server",
        "fleet.source.upload": "A zip to upload",
        "fleet.root": "Root",
        "fleet.folder": "Folder or file below the root",
        "fleet.folder_help": "Relative to the root, e.g. transcripts or runs/week-42; empty for the root itself.",
        "fleet.upload": "Zip of run files",
        "fleet.upload_help": "Every supported file in it is one or more runs; other files are left out.",
        "fleet.upload_ready": "{name} ({size}) is on the server: build when ready.",
        "fleet.no_upload": "Choose a zip to upload first.",
        "fleet.grid": "Grid, capacity and goal",
        "fleet.ratios": "trigger_context_ratio from … to (by 0.05)",
        "fleet.keeps": "keep_recent_messages",
        "fleet.summary": "Summary size, as a share of the span",
        "fleet.capacity": "context_max (0: each run's own model)",
        "fleet.capacity_help": "0 gives each run the window of the model its file names (else the 200,000 default).",
        "fleet.headroom": "Headroom to keep free",
        "fleet.share": "Share of runs that must keep it",
        "fleet.build": "Build and sweep",
        "fleet.starting": "Starting…",
        "fleet.progress.build": (
            "Cataloguing: {done:,} of {total:,} files ({processed:,} read, {reused:,} from the catalog, "
            "{broken:,} unreadable){eta}"
        ),
        "fleet.progress.sweep": "Sweeping: {done:,} of {total:,} runs{eta}",
        "fleet.progress.done": "Done: {done:,} runs",
        "fleet.eta": " · about {seconds:,} s left",
        "fleet.cancel": "Cancel",
        "fleet.cancelled": "Cancelled: {processed:,} files were catalogued and stay in the catalog; build again to go on.",
        "fleet.runs_axis": "runs",
        "fleet.metric.runs": "Runs",
        "fleet.metric.files": "Files",
        "fleet.metric.processed": "Read and counted",
        "fleet.metric.reused": "From the catalog",
        "fleet.metric.broken": "Unreadable",
        "fleet.broken": "{files} could not be read as runs",
        "fleet.start": (
            "Choose a folder of agent runs (the bundled samples are one) or upload a zip of run files, then "
            "press {build}."
        ),
        "fleet.no_runs": (
            "No run was found there: nothing holds a conversation to replay (compaction dumps are read on "
            "Dump review). Choose a folder of agent runs, such as the bundled samples, or upload a zip."
        ),
        "fleet.recommendation": "Recommendation",
        "fleet.pick": "Use trigger_context_ratio {ratio}, keep_recent_messages {keep}, min_target_context_ratio {target}.",
        "fleet.no_pick": "No setting of the grid keeps the headroom on the chosen share of runs.",
        "fleet.reason.no_runs": "There is no run to recommend from.",
        "fleet.reason.none_reach_share": (
            "No setting keeps {headroom} free on {share} of the runs; the best, trigger_context_ratio {ratio}, "
            "keep_recent_messages {keep}, min_target_context_ratio {min_target}, does on {best_share}."
        ),
        "fleet.reason.reaches_share": "It keeps {headroom} free on {keeping:,} of {runs:,} runs ({share}; goal {goal}).",
        "fleet.reason.qualifying": "{qualifying} of {considered} settings reach that share.",
        "fleet.reason.cheapest_price": "It is the cheapest of them: {cost} over the fleet ({tokens:,} tokens).",
        "fleet.reason.cheapest_tokens": "It is the cheapest of them: {tokens:,} tokens over the fleet.",
        "fleet.reason.loop_flagged": "With it {runs:,} runs raise a loop flag.",
        "fleet.reason.never_fires": "With it no run compacts.",
        "fleet.unit.usd": "Costs in USD at each run's price.",
        "fleet.unit.tokens": "Costs in tokens: not every run names a priced model.",
        "fleet.retention.measured": (
            "Retention, measured on the offline summaries: {mean} of what the spans held is kept on average over "
            "{runs:,} compacting runs (p50 {p50}, p5 {low})."
        ),
        "fleet.retention.summary_size": (
            "Retention by the summary size model: a summary is {mean} of its span on average over {runs:,} "
            "compacting runs (offline summaries measure what is kept)."
        ),
        "fleet.retention.no_compaction": "Nothing to retain: with this setting no run compacts.",
        "fleet.hurt": "Runs it hurts most",
        "fleet.hurt.overflows": "{steps_over_capacity} calls over capacity (peak {peak_utilisation})",
        "fleet.hurt.over_headroom": "peak {peak_utilisation}, above the {limit} the headroom allows",
        "fleet.hurt.loop_flagged": "{flagged} attempts raise a loop flag",
        "fleet.hurt.costs_more": (
            "{extra} more than its own cheapest setting (trigger_context_ratio {ratio}, keep_recent_messages {keep}, "
            "min_target_context_ratio {min_target}: "
            "{best_charge})"
        ),
        "fleet.heat_metric": "Heatmap of",
        "fleet.heat_title": "{metric} by setting (min_target_context_ratio {target})",
        "fleet.heat_hover": "trigger %{x}, keep %{y}: %{text}",
        "fleet.metric.headroom_share": "Runs keeping the headroom",
        "fleet.metric.cost": "Fleet cost",
        "fleet.metric.compacting_share": "Runs that compact",
        "fleet.metric.peak_upper": "Peak utilisation p95",
        "fleet.metric.loop_flags": "Runs with a loop flag",
        "fleet.dist_peak": "Peak utilisation per run, with the recommended setting",
        "fleet.dist_compactions": "Compactions per run, with the recommended setting",
        "fleet.settings_table": "Every setting's figures",
        "fleet.runs": "Runs",
        "fleet.no_model": "(no model)",
        "fleet.min_tokens": "At least this many tokens",
        "fleet.min_compactions": "At least this many compactions",
        "fleet.min_size": "At least this many KB",
        "fleet.order": "Sort by",
        "fleet.descending": "Largest first",
        "fleet.shown": "{shown:,} of {total:,} matching runs shown, read from the catalog.",
        "fleet.open_run": "Run to open",
        "fleet.open.span": "Open in Span & trigger",
        "fleet.open.tune": "Open in Tune",
        "fleet.col.name": "Run",
        "fleet.col.path": "File",
        "fleet.col.error": "Why",
        "fleet.col.agent": "Agent",
        "fleet.col.model": "Model",
        "fleet.col.size": "Bytes",
        "fleet.col.messages": "Messages",
        "fleet.col.context_tokens": "Tokens",
        "fleet.col.steps": "Model calls",
        "fleet.col.compactions": "Compactions",
        "fleet.col.peak_utilisation": "Peak utilisation",
        "fleet.col.steps_over_capacity": "Calls over capacity",
        "fleet.col.tokens": "Tokens sent",
        "fleet.col.ratio": "Trigger",
        "fleet.col.keep": "Keep",
        "fleet.col.min_target": "Min target",
        "fleet.col.compactions_upper": "Compactions p95",
        "fleet.col.peak_median": "Peak p50",
        "fleet.col.overflowing": "Runs over capacity",
    }
)
