#!/usr/bin/env python3
"""Server-mode exec tool (runtime: server): one long-lived process keeps one SQLite
connection open and answers JSON-RPC 2.0 `execute` requests, one per line.

request: {"jsonrpc": "2.0", "id": N, "method": "execute", "params": {"args": {"sql": "SELECT ..."}}}
reply:   {"jsonrpc": "2.0", "id": N, "result": {"rows": [...], "server_pid": PID}}
         or an "error" object for anything but a single SELECT.
"""
import json
import os
import sqlite3
import sys

db = sqlite3.connect(":memory:")
db.row_factory = sqlite3.Row
db.executescript(
    """
    CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT, category TEXT, price REAL, stock INTEGER);
    INSERT INTO products VALUES
      ('TS-01', 'trail shoes', 'footwear', 89.5, 12),
      ('RJ-02', 'rain jacket', 'outerwear', 149.0, 0),
      ('WS-03', 'wool socks', 'footwear', 12.0, 240),
      ('DP-04', 'day pack', 'bags', 64.0, 31);
    """
)


def answer(request):
    args = (request.get("params") or {}).get("args")
    sql = args.get("sql") if isinstance(args, dict) else None
    if not isinstance(sql, str) or not sql.lstrip().lower().startswith("select"):
        return {"error": {"code": -32602, "message": "only SELECT statements are allowed"}}
    try:
        rows = [dict(row) for row in db.execute(sql)]
    except sqlite3.Error as err:
        return {"error": {"code": -32000, "message": f"query failed: {err}"}}
    return {"result": {"rows": rows, "server_pid": os.getpid()}}


for line in sys.stdin:
    if not line.strip():
        continue
    request = json.loads(line)
    if "id" not in request:
        continue  # a notification: nothing to answer
    reply = {"jsonrpc": "2.0", "id": request["id"], **answer(request)}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
