"""The ``compaction-lab`` command: inspect, compact, simulate, dumps, dashboard.

Invariant: bad input prints one line naming the file and the problem on stderr and exits 2, never a
traceback; ``--json`` prints ``to_dict()`` of the same values the dashboard renders; inputs are never written.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from pydantic import SecretStr, ValidationError

from .analysis import Analysis, analyze
from .config import CurrentRoundCompressorConfig, ModelClientConfig, ModelRequestConfig
from .errors import CompressorError, ConfigError, ConversationFormatError
from .messages import Conversation
from .tokens import COUNTER_NAMES

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_FAILED = 3


def _ratio(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def _add_settings(parser: argparse.ArgumentParser, *, capacity_model: bool = True) -> None:
    group = parser.add_argument_group("compressor settings")
    group.add_argument("--trigger-ratio", type=_ratio, default=0.8, metavar="R",
                       help="trigger_context_ratio, 0 < R < 1 (default 0.8)")
    group.add_argument("--min-target-ratio", type=_ratio, default=0.1, metavar="R",
                       help="min_target_context_ratio, 0 <= R < 1 (default 0.1)")
    group.add_argument("--keep-recent", type=int, default=0, metavar="N",
                       help="keep_recent_messages (default 0)")
    capacity = parser.add_mutually_exclusive_group()
    capacity.add_argument("--context-max", type=int, metavar="N", help="context capacity in tokens")
    if capacity_model:
        capacity.add_argument("--model", metavar="NAME",
                              help="take the capacity from this model's window (see the capacity table)")
    group.add_argument("--counter", choices=COUNTER_NAMES, default="cl100k_base",
                       help="token counter (default cl100k_base)")
    group.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _config(args: argparse.Namespace, **extra: Any) -> CurrentRoundCompressorConfig:
    return CurrentRoundCompressorConfig(
        trigger_context_ratio=args.trigger_ratio,
        min_target_context_ratio=args.min_target_ratio,
        keep_recent_messages=args.keep_recent,
        **extra,
    )


def _bad(message: str, err: TextIO) -> None:
    print(f"compaction-lab: {message}", file=err)


def _validation_line(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "settings"
    return f"{where}: {first.get('msg', 'invalid value')}"


def _load_all(paths: Sequence[str], err: TextIO) -> tuple[list[Conversation], bool]:
    from .formats import load_conversations

    conversations: list[Conversation] = []
    ok = True
    for path in paths:
        try:
            conversations.extend(load_conversations(Path(path)))
        except ConversationFormatError as error:
            _bad(str(error), err)
            ok = False
    return conversations, ok


# -- inspect ---------------------------------------------------------------------------------------


def _format_analysis(analysis: Analysis) -> str:
    d, span = analysis.decision, analysis.span
    prefix, compress, tail = analysis.segment_tokens["prefix"], analysis.segment_tokens["compress"], analysis.segment_tokens["tail"]
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
        rows.append(f"    (no span)      [{span.unanchored[0]}, {span.unanchored[1]})  no real user message to anchor on")
    rows.append(f"  decision         {'HIT' if d.hit else 'no'}: {d.reason} — {d.explain()}")
    if not analysis.config.model_configured:
        rows.append("  note             no model configured: openJiuwen itself would not compact with this config")
    return "\n".join(rows)


def cmd_inspect(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        config = _config(args)
    except ValidationError as error:
        _bad(_validation_line(error), err)
        return EXIT_BAD_INPUT
    conversations, ok = _load_all(args.files, err)
    for conversation in conversations:
        analysis = analyze(
            conversation, config, context_max=args.context_max, model=args.model, counter=args.counter
        )
        if args.json:
            print(json.dumps(analysis.to_dict(), ensure_ascii=False), file=out)
        else:
            print(_format_analysis(analysis), file=out)
    return EXIT_OK if ok else EXIT_BAD_INPUT


# -- compact ---------------------------------------------------------------------------------------


def _backend(args: argparse.Namespace) -> Any:
    """--backend wins; else an endpoint from --api-base or API_BASE (flags override the environment)."""
    from .backends import make_backend

    if args.backend:
        return make_backend(args.backend)
    base = args.api_base or os.environ.get("API_BASE", "").strip()
    if not base:
        return make_backend("offline")
    model = args.model_name or os.environ.get("MODEL_NAME", "").strip()
    if not model:
        raise ConfigError("an endpoint needs a model name: pass --model NAME or set MODEL_NAME")
    client = ModelClientConfig(
        client_provider=os.environ.get("MODEL_PROVIDER", "").strip() or "OpenAI",
        api_base=base,
        api_key=SecretStr(args.api_key or os.environ.get("API_KEY", "")),
        timeout=args.timeout,
    )
    return make_backend("openai", client_config=client, request=ModelRequestConfig(model=model))


def cmd_compact(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .compactor import CurrentRoundCompressor

    try:
        config = _config(args)
        backend = _backend(args)
    except ValidationError as error:
        _bad(_validation_line(error), err)
        return EXIT_BAD_INPUT
    except CompressorError as error:
        _bad(str(error), err)
        return EXIT_BAD_INPUT
    conversations, ok = _load_all([args.file], err)
    if not ok:
        return EXIT_BAD_INPUT
    if len(conversations) != 1:
        _bad(f"{args.file}: holds {len(conversations)} conversations; compact takes one (split the file first)", err)
        return EXIT_BAD_INPUT
    compressor = CurrentRoundCompressor(
        config, backend, context_max=args.context_max, counter=args.counter, dump_dir=args.dump_dir
    )
    result = asyncio.run(compressor.compact(conversations[0], force=args.force, preserve_instruction=args.preserve))
    if args.out:
        _write_atomic(Path(args.out), json.dumps(result.conversation.to_openjiuwen(), ensure_ascii=False, indent=2))
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False), file=out)
    else:
        print(f"[{result.backend_label}] {result.status_text}", file=out)
        for attempt in result.attempts:
            print(f"  call {attempt.number}: {attempt.message_count} messages, {attempt.request_tokens:,} tokens → "
                  f"{attempt.outcome}{f' ({attempt.error})' if attempt.error else ''}", file=out)
        if result.status == "compacted":
            print(f"  prefix {result.prefix_tokens:,} + memory {result.memory_tokens:,} + reinjection "
                  f"{result.reinjection_tokens:,} + tail {result.tail_tokens:,} tokens", file=out)
        if result.dump_path:
            print(f"  dump: {result.dump_path}", file=out)
        if result.dump_error:
            print(f"  warning: {result.dump_error}", file=err)
    return EXIT_FAILED if result.status == "failed" else EXIT_OK


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _write_atomic(path: Path, text: str) -> None:
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(temp, 0o666 & ~_umask())  # mkstemp makes 0600; an output file gets the usual permissions
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


# -- dumps -----------------------------------------------------------------------------------------


def cmd_dumps(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .dumps import index_dumps

    directory = Path(args.directory)
    if not directory.is_dir():
        _bad(f"{directory}: not a directory", err)
        return EXIT_BAD_INPUT
    index = index_dumps(directory)
    if args.json:
        print(json.dumps(index.to_dict(), ensure_ascii=False), file=out)
        return EXIT_OK
    rows = index.to_dict()
    print(f"{len(rows['dumps'])} dumps, {len(rows['broken'])} unreadable in {directory}", file=out)
    for row in rows["dumps"]:
        print(
            f"  {row.get('session_id', '')!s:<24} {row.get('tokens_before', 0):>9,} → {row.get('tokens_after', 0):>9,}"
            f"  ({row.get('reduction_ratio', 0):.1%} saved, spans {row.get('prefix_count')}/"
            f"{row.get('compress_count')}/{row.get('tail_count')}, retries {row.get('retries', 0)})  {row['path']}",
            file=out,
        )
    for broken in rows["broken"]:
        print(f"  unreadable: {broken['path']}: {broken['error']}", file=out)
    return EXIT_OK


# -- parser ----------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="compaction-lab",
        description="Understand and tune openJiuwen's CurrentRoundCompressor on your own agent runs.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    inspect = sub.add_parser("inspect", help="span split, window total and trigger decision of conversations")
    inspect.add_argument("files", nargs="+", metavar="FILE")
    _add_settings(inspect)
    inspect.set_defaults(run=cmd_inspect)

    compact = sub.add_parser("compact", help="run one compaction (offline, replayed or against an endpoint)")
    compact.add_argument("file", metavar="FILE")
    _add_settings(compact, capacity_model=False)
    endpoint = compact.add_argument_group("backend (default: offline unless API_BASE is set)")
    endpoint.add_argument("--api-base", metavar="URL", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    endpoint.add_argument("--api-key", metavar="KEY", help="API key (or env API_KEY); never stored or printed")
    endpoint.add_argument("--model", dest="model_name", metavar="NAME", help="model name for the endpoint")
    endpoint.add_argument("--backend", metavar="offline|replay:DUMP", help="offline, or replay a dump's reply")
    endpoint.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS")
    compact.add_argument("--preserve", metavar="TEXT", help="what the summary must keep (a priority, not a task)")
    compact.add_argument("--force", action="store_true", help="compact even when the trigger does not fire")
    compact.add_argument("--dump-dir", metavar="DIR", help="write a dump and the debug log here")
    compact.add_argument("--out", metavar="FILE", help="write the resulting conversation (openJiuwen JSON)")
    compact.set_defaults(run=cmd_compact)

    dumps = sub.add_parser("dumps", help="index a directory of compaction dumps")
    dumps.add_argument("directory", metavar="DIR")
    dumps.add_argument("--json", action="store_true")
    dumps.set_defaults(run=cmd_dumps)

    dashboard = sub.add_parser("dashboard", help="open the Streamlit dashboard")
    dashboard.add_argument("streamlit_args", nargs=argparse.REMAINDER)
    dashboard.set_defaults(run=cmd_dashboard)

    try:
        from .simulate import add_simulate_parser
    except ImportError:
        pass
    else:
        add_simulate_parser(sub)
    return parser


def cmd_dashboard(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    # The CLI is the one place the library starts the UI; nothing else in compressor imports dashboard.
    try:
        from dashboard.launch import launch
    except ImportError:
        _bad("the dashboard is not installed beside the compressor (use a source checkout: make dashboard)", err)
        return EXIT_BAD_INPUT
    return launch(args.streamlit_args)


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.run(args, out, err)
    except CompressorError as error:
        _bad(str(error), err)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        _bad("interrupted", err)
        return 130
    return code


if __name__ == "__main__":
    raise SystemExit(main())
