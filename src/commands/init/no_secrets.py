#!/usr/bin/env python3
"""Provider filter hook (before_call): deny a model call when the conversation
mentions a password.

stdin:  {"hook": "provider", "phase": "before_call", "request": {"messages": [...], ...}}
stdout: {"allow": true} or {"allow": false, "reason": "..."}
"""
import json
import sys

payload = json.load(sys.stdin)
messages = payload.get("request", {}).get("messages", [])
if any("password" in str(m.get("content", "")).lower() for m in messages):
    json.dump({"allow": False, "reason": "a password in the conversation"}, sys.stdout)
else:
    json.dump({"allow": True}, sys.stdout)
