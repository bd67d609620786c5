#!/usr/bin/env python3
"""A companion host's chat loop with memvault as its memory, in the standard library only.

What a host (Open-LLM-VTuber and the hosts built on it) does on every turn:

1. search memvault for the user's message, with a 5 s timeout; on any failure go on without memory
   (fail-open: a slow or stopped memory must never stop the conversation);
2. wrap what it found in a ``[memory context] ... [/memory context]`` block inside the user turn;
3. call the model (any OpenAI-compatible chat endpoint);
4. add the exchange to memvault, choosing what is kept by the kind of turn: a normal turn keeps
   both sides (``exchange``), a turn where only the user's words matter keeps ``user``, and a line
   the AI says unprompted (a greeting, a proactive remark) or a system turn keeps nothing (``none``).

Run it against a running ``mem serve``::

    mem serve --vault ~/companion-memory &
    python3 host.py --memory http://127.0.0.1:7411 --model-url http://127.0.0.1:11434/v1 \
        --model qwen2.5 --script turns.json

``turns.json`` is a list of ``{"kind": "chat" | "proactive" | "system", "text": "..."}``; the host
prints one JSON line per turn (the context it built, the reply, what it kept, how long search took).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

SEARCH_TIMEOUT_S = 5.0
"""Hosts give up on memory after this long and answer without it."""

COMMIT_BY_KIND = {"chat": "exchange", "user-only": "user", "proactive": "none", "system": "none"}
"""What each kind of turn keeps in memory."""


def post_json(url: str, body: dict[str, Any], timeout: float, token: str | None = None) -> dict[str, Any]:
    data = json.dumps(body).encode("utf-8")
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read().decode("utf-8"))


@dataclass
class Memory:
    """The two calls a host makes to memvault around each turn."""

    base_url: str
    user_id: str = "default"
    agent_id: str = "default"
    token: str | None = None
    search_ms: list[float] = field(default_factory=list)
    failures: int = 0

    def search(self, query: str, limit: int = 6) -> list[dict[str, Any]]:
        """Memories for ``query``, best first; an empty list when memory is slow or down."""
        started = time.perf_counter()
        try:
            reply = post_json(
                f"{self.base_url}/memory/search",
                {"query": query, "limit": limit, "user_id": self.user_id, "agent_id": self.agent_id},
                SEARCH_TIMEOUT_S,
                self.token,
            )
            return list(reply.get("results", []))
        except (urllib.error.URLError, TimeoutError, OSError, ValueError):
            self.failures += 1
            return []
        finally:
            self.search_ms.append((time.perf_counter() - started) * 1000)

    def add(self, user_text: str, assistant_text: str, commit: str, interrupted: bool = False) -> dict[str, Any]:
        """Keeps the exchange; memvault answers once it is journaled, so nothing accepted is lost."""
        body = {
            "user_text": user_text,
            "assistant_text": assistant_text,
            "commit": commit,
            "interrupted": interrupted,
            "user_id": self.user_id,
            "agent_id": self.agent_id,
        }
        try:
            return post_json(f"{self.base_url}/memory/add", body, SEARCH_TIMEOUT_S, self.token)
        except (urllib.error.URLError, TimeoutError, OSError, ValueError) as error:
            self.failures += 1
            return {"error": str(error)}


def memory_block(results: list[dict[str, Any]]) -> str:
    """The memories as the model reads them: one line each, with the day they are from."""
    if not results:
        return ""
    lines = []
    for result in results:
        when = " ".join(part for part in (result.get("date"), result.get("time")) if part)
        who = f"{result['speaker']}: " if result.get("speaker") else ""
        lines.append(f"- {f'({when}) ' if when else ''}{who}{result['memory']}")
    return "[memory context]\n" + "\n".join(lines) + "\n[/memory context]\n\n"


def call_model(model_url: str, model: str, messages: list[dict[str, str]]) -> str:
    reply = post_json(
        f"{model_url}/chat/completions",
        {"model": model, "messages": messages, "temperature": 0.7},
        60.0,
    )
    return str(reply["choices"][0]["message"]["content"])


SYSTEM_PROMPT = "You are 小满, a warm companion. Use the memory context when it helps; never invent memories."


def run(memory: Memory, model_url: str, model: str, turns: list[dict[str, str]]) -> list[dict[str, Any]]:
    history: list[dict[str, str]] = []
    log = []
    for number, turn in enumerate(turns, start=1):
        kind = turn.get("kind", "chat")
        commit = COMMIT_BY_KIND.get(kind, "exchange")
        if kind == "proactive":
            # The AI speaks first: nothing to search for, and the line is not a memory.
            user_text, context = "", ""
            messages = [{"role": "system", "content": SYSTEM_PROMPT}, *history[-6:],
                        {"role": "system", "content": turn["text"]}]
        else:
            user_text = turn["text"]
            context = memory_block(memory.search(user_text))
            messages = [{"role": "system", "content": SYSTEM_PROMPT}, *history[-6:],
                        {"role": "user", "content": context + user_text}]
        reply = call_model(model_url, model, messages)
        added = memory.add(user_text, reply, commit, bool(turn.get("interrupted")))
        if user_text:
            history.append({"role": "user", "content": user_text})
        history.append({"role": "assistant", "content": reply})
        log.append({"turn": number, "kind": kind, "context": context, "reply": reply, "commit": commit, "added": added})
    return log


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memory", default="http://127.0.0.1:7411", help="mem serve's URL")
    parser.add_argument("--token", default=None, help="bearer token, if mem serve was given one")
    parser.add_argument("--user", default="default", help="user_id (with mem serve --vaults)")
    parser.add_argument("--model-url", required=True, help="OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1")
    parser.add_argument("--model", default="qwen2.5")
    parser.add_argument("--script", required=True, help="JSON list of turns")
    args = parser.parse_args(argv)
    with open(args.script, encoding="utf-8") as file:
        turns = json.load(file)
    memory = Memory(args.memory, user_id=args.user, token=args.token)
    for entry in run(memory, args.model_url, args.model, turns):
        print(json.dumps(entry, ensure_ascii=False))
    # The first search also pays for the server's warm-up (JIT, first index reads): reported apart.
    warm = memory.search_ms[1:]
    summary = {
        "searches": len(memory.search_ms),
        "first_search_ms": round(memory.search_ms[0], 1) if memory.search_ms else 0.0,
        "search_p50_ms": round(percentile(warm, 50), 1),
        "search_p95_ms": round(percentile(warm, 95), 1),
        "failures": memory.failures,
    }
    print(json.dumps({"summary": summary}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
