"""Deterministic generated agent runs for benchmarks: user requests, tool calls, tool results, replies.

Invariant: the same arguments always give the same messages (a seeded ``random.Random``).
"""

from __future__ import annotations

import json
import random
from typing import Any

_WORDS = (
    "def return import class self value error test assert config path file module parse token window "
    "context summary compress span tail prefix trigger ratio threshold budget retry backoff request reply "
    "上下文 压缩 摘要 模型 工具 调用 结果 文件"
).split()
_PATHS = ("src/app/main.py", "src/app/tokens.py", "tests/test_main.py", "README.md", "pyproject.toml")


def _text(rng: random.Random, words: int) -> str:
    lines = []
    for _ in range(max(words // 12, 1)):
        lines.append(" ".join(rng.choice(_WORDS) for _ in range(12)))
    return "\n".join(lines)


def conversation_dicts(count: int, *, seed: int = 7, system: bool = True) -> list[dict[str, Any]]:
    """``count`` context messages (plus one system message) in openJiuwen's JSON shape."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    if system:
        out.append({"role": "system", "content": "You are a careful coding agent."})
    call_number = 0
    while len(out) < count + (1 if system else 0):
        if rng.random() < 0.04 or len(out) <= 1:
            out.append({"role": "user", "content": "Please " + _text(rng, 24)})
            continue
        call_number += 1
        call_id = f"call_{call_number}"
        path = rng.choice(_PATHS)
        name = rng.choice(("read_file", "bash", "grep"))
        arguments = {"file_path": path} if name == "read_file" else {"command": f"pytest -q {path}"}
        out.append(
            {
                "role": "assistant",
                "content": _text(rng, rng.randint(6, 40)),
                "tool_calls": [
                    {"id": call_id, "type": "function", "name": name, "arguments": json.dumps(arguments)}
                ],
            }
        )
        body = _text(rng, rng.randint(40, 400))
        content = (
            json.dumps({"file_path": path, "content": body, "line_count": body.count("\n") + 1})
            if name == "read_file"
            else body
        )
        out.append({"role": "tool", "tool_call_id": call_id, "content": content})
    return out[: count + (1 if system else 0)]
