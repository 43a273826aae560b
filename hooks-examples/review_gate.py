#!/usr/bin/env python3
"""JSON-RPC hook (runtime: server): a review gate that keeps running for the whole
session. It denies dangerous shell commands in before_tool, asks for approval of SQL
writes in approve_tool (set REVIEW_APPROVE_WRITES=1 to approve them; refunds have their
own approval, the refund tool's `pending`), and logs every event it observes to stderr."""
import json
import os
import re
import sys

DANGEROUS = re.compile(r"rm\s+-[a-z]*r[a-z]*f|rm\s+-[a-z]*f[a-z]*r|\bmkfs\b|\bdd\s+if=|:\(\)\s*\{|\bshutdown\b|>\s*/dev/sd")
WRITES = re.compile(r"^\s*(insert|update|delete|drop|alter|create)\b", re.I)


def before_tool(params):
    command = str(params.get("arguments", {}).get("command", ""))
    if DANGEROUS.search(command):
        return {"action": "deny_tool", "reason": f"dangerous shell command refused: {command}"}
    return {"action": "continue"}


def approve_tool(params):
    tool = params.get("tool", "")
    args = params.get("arguments", {})
    is_write = WRITES.match(str(args.get("sql", "")))
    if not is_write or os.environ.get("REVIEW_APPROVE_WRITES") == "1":
        return {"approved": True}
    return {"approved": False, "reason": f"{tool} changes data and needs a reviewer's approval"}


HANDLERS = {"hook.before_tool": before_tool, "hook.approve_tool": approve_tool}

for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    method = msg.get("method")
    if "id" not in msg:
        print(f"review_gate event: {json.dumps(msg.get('params'))}", file=sys.stderr, flush=True)
        continue
    if method == "hook.hello":
        result = {"ok": True, "name": "review_gate"}
    else:
        handler = HANDLERS.get(method, lambda _params: {"action": "continue"})
        result = handler(msg.get("params", {}))
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    sys.stdout.flush()
