"""``compaction-lab compact FILE``: one compaction, offline, replayed from a dump or against an endpoint."""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path
from typing import Any, TextIO

from pydantic import SecretStr, ValidationError

from ..backends import Backend, make_backend
from ..compactor import CurrentRoundCompressor
from ..config import ModelClientConfig, ModelRequestConfig
from ..errors import CompressorError, ConfigError
from ..jsontext import json_text
from ..keyguard import key_problem
from .common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    add_settings,
    bad,
    load_all,
    output_guard,
    settings_config,
    validation_line,
    write_atomic,
)


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compact", help="run one compaction (offline, replayed or against an endpoint)"
    )
    parser.add_argument("file", metavar="FILE")
    add_settings(parser, capacity_model=False)
    endpoint = parser.add_argument_group("backend (default: offline unless API_BASE is set)")
    endpoint.add_argument(
        "--api-base", metavar="URL", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1"
    )
    endpoint.add_argument(
        "--api-key", metavar="KEY", help="API key (or env API_KEY); never stored or printed"
    )
    endpoint.add_argument("--model", dest="model_name", metavar="NAME", help="model name for the endpoint")
    endpoint.add_argument(
        "--backend", metavar="offline|replay:DUMP", help="offline, or replay a dump's reply"
    )
    endpoint.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="deadline of each model call, connect to last byte (default 120); all calls of "
        "the compaction, retries and waits included, end within 3 times it; a reply is "
        "read up to 16 MiB",
    )
    parser.add_argument(
        "--preserve", metavar="TEXT", help="what the summary must keep (a priority, not a task)"
    )
    parser.add_argument("--force", action="store_true", help="compact even when the trigger does not fire")
    parser.add_argument("--dump-dir", metavar="DIR", help="write a dump and the debug log here")
    parser.add_argument("--out", metavar="FILE", help="write the resulting conversation (openJiuwen JSON)")
    parser.set_defaults(run=run)


def backend_from(args: argparse.Namespace) -> Backend:
    """--backend wins; else an endpoint from --api-base or API_BASE (flags override the environment)."""

    if args.backend:
        return make_backend(args.backend)
    base = args.api_base or os.environ.get("API_BASE", "").strip()
    if not base:
        return make_backend("offline")
    model = args.model_name or os.environ.get("MODEL_NAME", "").strip()
    if not model:
        raise ConfigError("an endpoint needs a model name: pass --model NAME or set MODEL_NAME")
    key, source = (args.api_key, "--api-key") if args.api_key else (os.environ.get("API_KEY", ""), "API_KEY")
    problem = key_problem(key)
    if problem is not None:  # refused before any client exists: the key is never sent
        raise ConfigError(f"{source}: {problem}")
    try:
        client = ModelClientConfig(
            client_provider=os.environ.get("MODEL_PROVIDER", "").strip() or "OpenAI",
            api_base=base,
            api_key=SecretStr(key),
            timeout=args.timeout,
        )
    except ValidationError as error:  # a ConfigError for every command that builds an endpoint (score too)
        first = error.errors()[0]
        field = str((first.get("loc") or ("api_base",))[0])  # the one model-level rule is about the base URL
        problem = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
        raise ConfigError(f"--{field.replace('_', '-')}: {problem}") from None
    return make_backend("openai", client_config=client, request=ModelRequestConfig(model=model))


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:

    try:
        config = settings_config(args)
        backend = backend_from(args)
    except ValidationError as error:
        bad(validation_line(error), err)
        return EXIT_BAD_INPUT
    except CompressorError as error:
        bad(str(error), err)
        return EXIT_BAD_INPUT
    conversations, ok = load_all([args.file], err)
    if not ok:
        return EXIT_BAD_INPUT
    if len(conversations) != 1:
        bad(
            f"{args.file}: holds {len(conversations)} conversations; compact takes one (split the file first)",
            err,
        )
        return EXIT_BAD_INPUT
    compressor = CurrentRoundCompressor(
        config, backend, context_max=args.context_max, counter=args.counter, dump_dir=args.dump_dir
    )
    result = asyncio.run(
        compressor.compact(conversations[0], force=args.force, preserve_instruction=args.preserve)
    )
    if args.out:
        write_atomic(
            Path(args.out), json_text(result.conversation.to_openjiuwen(), indent=2), guard=output_guard(args)
        )
    if args.json:
        print(json_text(result.to_dict()), file=out)
    else:
        print(f"[{result.backend_label}] {result.status_text}", file=out)
        for attempt in result.attempts:
            print(
                f"  call {attempt.number}: {attempt.message_count} messages, {attempt.request_tokens:,} tokens → "
                f"{attempt.outcome}{f' ({attempt.error})' if attempt.error else ''}",
                file=out,
            )
        if result.status == "compacted":
            print(
                f"  prefix {result.prefix_tokens:,} + memory {result.memory_tokens:,} + reinjection "
                f"{result.reinjection_tokens:,} + tail {result.tail_tokens:,} tokens",
                file=out,
            )
        if result.dump_path:
            print(f"  dump: {result.dump_path}", file=out)
        if result.dump_error:
            print(f"  warning: {result.dump_error}", file=err)
    return EXIT_FAILED if result.status == "failed" else EXIT_OK
