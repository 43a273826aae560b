#!/usr/bin/env python3
"""Session observer hook: appends one JSON line per session event to the file named by
$AUDIT_LOG (listed in the hook's `env`); without it, only acknowledges."""
import datetime
import json
import os
import sys

payload = json.load(sys.stdin)
path = os.environ.get("AUDIT_LOG")
if path:
    event = payload.get("event", {})
    entry = {
        "at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "phase": payload.get("phase"),
        "session_id": event.get("session_id"),
        "turn_index": event.get("turn_index"),
        "messages": len(event.get("messages", [])),
    }
    with open(path, "a", encoding="utf-8") as log:
        log.write(json.dumps(entry) + "\n")
json.dump({"ack": True}, sys.stdout)
