#!/usr/bin/env python3
"""One-shot exec tool: one call per process.

stdin:  {"args": {"name": "Ada"}}
stdout: {"result": {"greeting": "Hello, Ada!"}} or {"error": "..."}
"""
import json
import sys

args = json.load(sys.stdin).get("args", {})
name = args.get("name") if isinstance(args, dict) else None
if isinstance(name, str) and name:
    json.dump({"result": {"greeting": f"Hello, {name}!"}}, sys.stdout)
else:
    json.dump({"error": 'expected {"args": {"name": "..."}}'}, sys.stdout)
