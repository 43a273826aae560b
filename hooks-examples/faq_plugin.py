#!/usr/bin/env python3
"""JSON-RPC hook (runtime: server): a plugin that brings its own tool. In before_llm it
adds `store_faq` to the tools offered to the model; in before_tool it serves calls to
that tool itself with `respond`, so no tool process is needed."""
import json
import sys

FAQ = {
    "returns": "Unworn items can be returned within 30 days for a full refund.",
    "shipping": "Orders ship within 2 business days; express takes 1 day.",
    "hours": "The store is open 09:00 to 18:00 UTC, Monday to Saturday.",
}
TOOL = {
    "type": "function",
    "function": {
        "name": "store_faq",
        "description": "Answer a frequently asked question about returns, shipping or hours",
        "parameters": {"type": "object", "properties": {"topic": {"type": "string", "enum": sorted(FAQ)}},
                       "required": ["topic"]},
    },
}


def before_llm(params):
    request = {k: params[k] for k in ("model", "messages", "tools", "options") if k in params}
    request["tools"] = list(params.get("tools", [])) + [TOOL]
    return {"action": "modify", "request": request}


def before_tool(params):
    if params.get("tool") != "store_faq":
        return {"action": "continue"}
    topic = params.get("arguments", {}).get("topic", "")
    answer = FAQ.get(topic)
    if answer is None:
        return {"action": "respond", "result": {"for_llm": f"no FAQ entry for {topic!r}", "is_error": True}}
    return {"action": "respond", "result": {"for_llm": answer, "is_error": False}}


HANDLERS = {"hook.before_llm": before_llm, "hook.before_tool": before_tool}

for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg.get("method") == "hook.hello":
        result = {"ok": True, "name": "faq_plugin"}
    else:
        result = HANDLERS.get(msg.get("method"), lambda _p: {"action": "continue"})(msg.get("params", {}))
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    sys.stdout.flush()
