#!/usr/bin/env python3
"""Which features each offline example's YAML uses: assertion types, tool modes,
workflow, judges, self-play, agents, memory, compositions, skills and media.

Usage: needs.py CORPUS_JSON TREES_DIR > needs.md, CORPUS_JSON written by run.py --json
and TREES_DIR its cache's trees/ folder. Python 3 standard library only.
"""

import json
import os
import re
import sys

from artifacts import read, walk

ASSERTION_TYPE_RE = re.compile(r"^\s*-?\s*type:\s*['\"]?([a-z][a-z0-9_]*)['\"]?\s*$", re.M)
FEATURES = {
    "workflow": re.compile(r"^\s*workflow:", re.M),
    "judges": re.compile(r"^\s*judges?:|llm_judge|judge_provider", re.M),
    "self_play": re.compile(r"^\s*self_play:|^\s*persona:", re.M),
    "agents": re.compile(r"^\s*(a2a_)?agents:", re.M),
    "memory": re.compile(r"^\s*memory:|memory__", re.M),
    "compositions": re.compile(r"^\s*compositions?:|composition_", re.M),
    "skills": re.compile(r"^\s*skills:|skill__|skill_activated", re.M),
    "media": re.compile(r"^\s*(image_url|audio|video|media|parts):|image_format|audio_", re.M),
    "eval": re.compile(r"^kind:\s*['\"]?Eval", re.M),
    "mcp": re.compile(r"^\s*mcp_servers:", re.M),
}
NOT_ASSERTIONS = {"mock", "replay", "openai", "claude", "gemini", "ollama", "vllm", "object",
                  "string", "number", "integer", "boolean", "array", "text", "image",
                  "audio", "video", "http", "stdio", "file", "null", "json", "bearer",
                  "huggingface", "imagen", "elevenlabs", "document", "assertion", "client"}


def needs(folder):
    texts = [read(p) for p in walk(folder, lambda p: p.endswith((".yaml", ".yml")))]
    types, modes, features = set(), set(), set()
    for text in texts:
        types |= {t for t in ASSERTION_TYPE_RE.findall(text) if t not in NOT_ASSERTIONS}
        modes |= set(re.findall(r"^\s*mode:\s*['\"]?(\w+)", text, re.M))
        features |= {name for name, regex in FEATURES.items() if regex.search(text)}
    return sorted(types), sorted(modes), sorted(features)


def main():
    corpus, trees = json.load(open(sys.argv[1])), sys.argv[2]
    roots = {name: os.path.join(trees, entry) for entry in os.listdir(trees)
             for name in ("promptkit", "promptarena") if entry.startswith(name + "-")}
    print("| example | ran | reason | assertion and check types | tool modes | features |")
    print("|---|---|---|---|---|---|")
    for item in corpus["artifacts"]:
        if item["kind"] not in ("arena-example", "promptkit-arena"):
            continue
        repo, rel = item["id"].split(" ", 1)[1].split(":", 1)
        folder = os.path.join(roots[repo], rel)
        if item["kind"] == "promptkit-arena":
            folder = os.path.join(folder, "arena")
        types, modes, features = needs(folder)
        reason = (item.get("reason") or "").replace("|", "\\|")[:200]
        print(f"| {item['id'].split(' ', 1)[1]} | {'yes' if item['ran'] else 'no'} | {reason} "
              f"| {', '.join(types)} | {', '.join(modes)} | {', '.join(features)} |")


if __name__ == "__main__":
    main()
