#!/usr/bin/env python3
"""Provider filter hook: deny a model call whose messages contain something that
looks like a card number or a US social security number."""
import json
import re
import sys

PII = re.compile(r"\b(?:\d{3}-\d{2}-\d{4}|(?:\d[ -]?){13,16})\b")

payload = json.load(sys.stdin)
for message in payload.get("request", {}).get("messages", []):
    content = message.get("content", "")
    if isinstance(content, str) and PII.search(content):
        json.dump({"allow": False, "reason": "personal data in the conversation"}, sys.stdout)
        sys.exit(0)
json.dump({"allow": True}, sys.stdout)
