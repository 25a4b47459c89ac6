"""The dashboard's English strings, as data: one key per piece of our own wording.

Invariant: ``zh.py`` holds exactly these keys with the same format fields (a test checks it); message content
is never translated or formatted through these strings.
"""

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
    "chart.uncompacted": "without compaction",
    "chart.read": "window the trigger read",
    "chart.sent": "window sent to the model",
    "chart.compaction": "compaction",
    "chart.refused": "refused compaction",
    "chart.settings": "settings",
    "chart.recommended": "recommended",
    "chart.context_title": "Context over the run",
    "chart.context_x": "message index of the model call",
    "chart.tradeoff_title": "Compaction cost against headroom",
    "chart.tradeoff_x": "headroom at the peak (1 − peak / context_max)",
    "chart.tradeoff_y": "tokens sent to the compaction model",
    "chart.heat.compactions": "Compactions over the run",
    "chart.heat.compaction_input_tokens": "Tokens sent to the compaction model",
    "chart.heat.peak_utilisation": "Peak context, share of context_max",
    "chart.heat_title": "{title} (min_target_context_ratio {target})",
    "chart.hover.step": "message %{x}: %{y:,} tokens<br>%{text}",
    "chart.hover.heat": "ratio %{x}, keep %{y}: %{text}",
    "chart.hover.setting": "ratio {ratio}, keep {keep}, min target {min_target}, {compactions} compaction(s)",
    "chart.hover.tradeoff": "headroom %{x:.1%}, cost %{y:,} tokens",
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
        "It needs {compactions} compaction(s), sending {compaction_input_tokens:,} tokens to the compaction model."
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
    "report.fact.peak": "peak context",
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
    "report.col.span_tokens": "span tokens",
    "report.col.context_tokens": "context tokens",
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
    "report.col.peak_tokens": "peak tokens",
    "report.col.peak": "peak",
    "report.col.over_capacity": "calls over capacity",
    "report.col.compaction_input": "compaction input",
    "report.col.agent_input": "agent input",
    "report.footer": "Written by compaction-lab from a replay of the run; no network was used to draw it.",
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
