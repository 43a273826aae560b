#!/usr/bin/env python3
"""Tool filter hook (before_execution): let `db_query` run only the queries on an
allowlist of shapes; every other tool passes.

stdin:  {"hook": "tool", "phase": "before_execution", "request": {"name": ..., "args": {...}, "call_id": ...}}
stdout: {"allow": true} or {"allow": false, "reason": "..."}
"""
import json
import re
import sys

ALLOWED = [
    re.compile(r"^SELECT [\w, *()]+ FROM products( WHERE \w+ (=|<|>) ('[\w -]+'|\d+(\.\d+)?))?( LIMIT \d+)?$", re.I),
    re.compile(r"^SELECT \d+ AS \w+$", re.I),
]

request = json.load(sys.stdin).get("request", {})
if request.get("name") != "db_query":
    json.dump({"allow": True}, sys.stdout)
    sys.exit(0)
sql = " ".join(str(request.get("args", {}).get("sql", "")).split())
if any(p.match(sql) for p in ALLOWED):
    json.dump({"allow": True}, sys.stdout)
else:
    json.dump({"allow": False, "reason": f"query not on the allowlist: {sql}"}, sys.stdout)
