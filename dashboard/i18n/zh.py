"""The dashboard's Simplified Chinese strings, as data: the same keys and format fields as ``en.py``.

Invariant: every key of ``en.py`` is here with the same format fields (a test checks it); identifiers such as
``trigger_context_ratio`` stay as they are, so a reader can match them with the configuration.
"""

STRINGS: dict[str, str] = {
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
    "chart.uncompacted": "不压缩",
    "chart.read": "触发器读取的窗口",
    "chart.sent": "发送给模型的窗口",
    "chart.compaction": "压缩",
    "chart.refused": "被拒绝的压缩",
    "chart.settings": "设置",
    "chart.recommended": "推荐",
    "chart.context_title": "整个运行中的上下文",
    "chart.context_x": "模型调用对应的消息序号",
    "chart.tradeoff_title": "压缩成本与余量",
    "chart.tradeoff_x": "峰值时的余量（1 − 峰值 / context_max）",
    "chart.tradeoff_y": "发送给压缩模型的 token",
    "chart.heat.compactions": "整个运行的压缩次数",
    "chart.heat.compaction_input_tokens": "发送给压缩模型的 token",
    "chart.heat.peak_utilisation": "上下文峰值占 context_max 的比例",
    "chart.heat_title": "{title}（min_target_context_ratio {target}）",
    "chart.hover.step": "消息 %{x}：%{y:,} token<br>%{text}",
    "chart.hover.heat": "比例 %{x}，保留 %{y}：%{text}",
    "chart.hover.setting": "比例 {ratio}，保留 {keep}，最小目标 {min_target}，{compactions} 次压缩",
    "chart.hover.tradeoff": "余量 %{x:.1%}，成本 %{y:,} token",
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
    "tune.recommendation": "推荐设置",
    "tune.headroom": "每次模型调用时保留的余量",
    "tune.headroom_help": "推荐的设置让上下文始终不超过 (1 − 余量) × context_max。",
    "tune.recommend.use": (
        "建议使用 trigger_context_ratio {ratio}、keep_recent_messages {keep}、"
        "min_target_context_ratio {min_target}。"
    ),
    "tune.recommend.none": "此次扫描中没有任何设置能在每次模型调用时保留 context_max 的 {headroom} 空闲。",
    "why.no_steps": "此运行没有助手消息，因此没有可模拟的模型调用，也无从推荐。",
    "why.none_qualify": "没有任何设置能在每次模型调用时让上下文不超过 context_max 的 {limit:.0%}（{limit_tokens:,} 个 token）。",
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
    "why.compaction_cost": "它需要 {compactions} 次压缩，向压缩模型发送 {compaction_input_tokens:,} 个 token。",
    "why.none_clean": (
        "有 {qualifying} 个设置能保持余量，但每个都触发了循环标记（共 {flagged} 个被标记）：压缩回收太少、"
        "几次调用内再次触发，或压缩后窗口仍高于触发阈值。"
    ),
    "why.least_flagged": (
        "被标记的压缩尝试最少（{flagged} 次）的是 trigger_context_ratio {ratio:g}、"
        "keep_recent_messages {keep}、"
        "min_target_context_ratio {min_target:g}；更低的触发比例、"
        "更少的保留消息或更大的上下文可能打破循环。"
    ),
    "why.loop_flagged": "其中 {flagged} 个被排除：它们的压缩尝试触发了循环标记。",
    "why.cheapest_price": (
        "其中，trigger_context_ratio {ratio:g}、"
        "keep_recent_messages {keep}、"
        "min_target_context_ratio {min_target:g} 花费最少："
        "整个运行 ${price:,.4f}（{price_tokens:,} 个 token，缓存读写按服务商的计费方式计价）。"
    ),
    "why.cheapest_tokens": (
        "其中，trigger_context_ratio {ratio:g}、"
        "keep_recent_messages {keep}、"
        "min_target_context_ratio {min_target:g} 发送的 token 最少："
        "整个运行共 {tokens:,} 个，包括智能体调用和压缩调用（此运行的模型没有已知价格）。"
    ),
    "why.tie_break": "有 {tied} 个设置花费完全相同；此设置压缩次数最少、触发最早，在增长更快的运行中留出的空间最多。",
    "why.is_current": "它就是当前设置。",
    "why.versus_current_price": (
        "当前设置（trigger_context_ratio {ratio:g}、"
        "keep_recent_messages {keep}、"
        "min_target_context_ratio {min_target:g}）整个运行花费 ${current_price:,.4f}："
        "此设置节省 ${saved:,.4f}。"
    ),
    "why.versus_current_tokens": (
        "当前设置（trigger_context_ratio {ratio:g}、"
        "keep_recent_messages {keep}、"
        "min_target_context_ratio {min_target:g}）整个运行发送 {current_tokens:,} 个 token："
        "此设置节省 {saved:,} 个。"
    ),
    "why.current_cheaper_price": (
        "当前设置（trigger_context_ratio {ratio:g}、"
        "keep_recent_messages {keep}、"
        "min_target_context_ratio {min_target:g}）花费 ${current_price:,.4f}，"
        "少 ${difference:,.4f}，但它无法保持余量或触发了循环标记。"
    ),
    "why.current_cheaper_tokens": (
        "当前设置（trigger_context_ratio {ratio:g}、"
        "keep_recent_messages {keep}、"
        "min_target_context_ratio {min_target:g}）发送 {current_tokens:,} 个 token，"
        "少 {difference:,} 个，但它无法保持余量或触发了循环标记。"
    ),
    "why.never_fires": (
        "使用它时，此运行中从不触发压缩（窗口始终低于 {threshold:,} 个 token 的触发阈值），"
        "因此花费与不压缩完全相同；它在此运行中未经检验：更长的运行会达到阈值并压缩。"
    ),
    "why.edge_ratio_low": "它是网格中最低的 trigger_context_ratio（{ratio:g}）：更低的比例可能更便宜；请扩大网格查看。",
    "why.edge_ratio_high": "它是网格中最高的 trigger_context_ratio（{ratio:g}）：更高的比例可能更便宜；请扩大网格查看。",
    "why.edge_keep_high": "它保留的最近消息是网格中最多的（{keep}）：更大的 keep_recent_messages 可能更便宜；请扩大网格查看。",
    "why.edge_keep_low": "它保留的最近消息是网格中最少的（{keep}）：更小的 keep_recent_messages 可能更便宜；请扩大网格查看。",
    "why.runner_up_price": (
        "次优：trigger_context_ratio {ratio:g}、keep_recent_messages {keep}、"
        "min_target_context_ratio {min_target:g}，"
        "花费 ${price:,.4f}（{price_tokens:,} 个 token），多 ${difference:,.4f}。"
    ),
    "why.runner_up_tokens": (
        "次优：trigger_context_ratio {ratio:g}、keep_recent_messages {keep}、"
        "min_target_context_ratio {min_target:g}，{tokens:,} 个 token，"
        "多 {difference:,} 个。"
    ),
    "why.cheapest_firing_price": (
        "会触发压缩的最便宜设置是 trigger_context_ratio {ratio:g}、"
        "keep_recent_messages {keep}、"
        "min_target_context_ratio {min_target:g}："
        "${price:,.4f}（{price_tokens:,} 个 token），多 ${difference:,.4f}。"
    ),
    "why.cheapest_firing_tokens": (
        "会触发压缩的最便宜设置是 trigger_context_ratio {ratio:g}、"
        "keep_recent_messages {keep}、"
        "min_target_context_ratio {min_target:g}：{tokens:,} 个 token，"
        "多 {difference:,} 个。"
    ),
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
    # 导出的 HTML 报告
    "report.unnamed": "（未命名的运行）",
    "report.meta": (
        "{source} · {messages:,} 条上下文消息，{steps:,} 次模型调用 · 计数器 {counter} · context_max {capacity} · "
        "摘要模型 {summary}"
    ),
    "report.setting": (
        "模拟的设置：trigger_context_ratio {ratio}（阈值 {threshold:,} token），keep_recent_messages {keep}，"
        "min_target_context_ratio {min_target}（{min_target_tokens:,} token）。"
    ),
    "report.fact.first_trigger": "首次触发",
    "report.fact.compactions": "压缩次数",
    "report.fact.peak": "上下文峰值",
    "report.fact.over_capacity": "超出容量的模型调用",
    "report.fact.compaction_input": "发送给压缩模型的 token",
    "report.fact.agent_input": "智能体发送的 token",
    "report.value.never": "从不",
    "report.value.first_trigger": "消息 {index:,}",
    "report.value.compactions": "{compactions:,} 次（另有 {refused:,} 次被拒绝）",
    "report.value.peak": "{tokens:,} token（{share:.1%}）",
    "report.value.over_capacity": "{steps:,} 次中有 {over:,} 次",
    "report.value.agent_input": "{tokens:,}，不压缩时为 {uncompacted:,}（节省 {saved:,}）",
    "report.recommendation": "推荐设置",
    "report.use": "建议使用 trigger_context_ratio {ratio}、keep_recent_messages {keep}、min_target_context_ratio {min_target}。",
    "report.none": "保留 {headroom} 余量时没有可推荐的设置。",
    "report.compactions": "各次压缩",
    "report.no_events": "此设置下没有尝试任何压缩。",
    "report.sweep": "参数扫描：{settings} 个设置，摘要模型 {summary}",
    "report.col.message": "消息",
    "report.col.outcome": "结果",
    "report.col.span": "前缀 / 压缩 / 尾部",
    "report.col.span_tokens": "片段 token",
    "report.col.context_tokens": "上下文 token",
    "report.col.memory": "记忆块",
    "report.col.reinjection": "状态回注",
    "report.col.files": "回注的文件",
    "report.col.request_tokens": "请求 token",
    "report.col.calls": "调用次数",
    "report.col.ratio": "触发比例",
    "report.col.keep": "保留消息数",
    "report.col.min_target": "最小目标",
    "report.col.first_trigger": "首次触发",
    "report.col.compactions": "压缩次数",
    "report.col.peak_tokens": "峰值 token",
    "report.col.peak": "峰值占比",
    "report.col.over_capacity": "超出容量的调用",
    "report.col.compaction_input": "压缩输入",
    "report.col.agent_input": "智能体输入",
    "report.footer": "由 compaction-lab 根据运行回放生成；绘制时没有使用网络。",
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
