#!/usr/bin/env python3
"""Provider filter hook (before_call and after_call): deny a model call when the
conversation, or the model's answer, holds a US social security number, a payment card
number or an email address.

stdin:  {"hook": "provider", "phase": "before_call", "request": {"messages": [...], ...}}
        after_call also carries "response": {"message": {...}, ...}
stdout: {"allow": true} or {"allow": false, "reason": "...", "metadata": {"kinds": [...]}}
"""
import json
import re
import sys

PATTERNS = {
    "ssn": re.compile(r"\b\d{3}-\d{2}-\d{4}\b"),
    "card": re.compile(r"\b(?:\d[ -]?){13,16}\b"),
    "email": re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.-]+\b"),
}


def texts(payload):
    for message in payload.get("request", {}).get("messages", []):
        yield message.get("content", "")
    yield payload.get("request", {}).get("system_prompt", "")
    yield payload.get("response", {}).get("message", {}).get("content", "")


payload = json.load(sys.stdin)
found = sorted({kind for text in texts(payload) if isinstance(text, str)
                for kind, pattern in PATTERNS.items() if pattern.search(text)})
if found:
    where = "the model's answer" if payload.get("phase") == "after_call" else "the conversation"
    json.dump({"allow": False, "reason": f"personal data ({', '.join(found)}) in {where}",
               "metadata": {"kinds": found}}, sys.stdout)
else:
    json.dump({"allow": True}, sys.stdout)
