#!/usr/bin/env python3
"""One-shot exec tool: look an order up in orders.json beside this script.

stdin:  {"args": {"order_id": "A-1001"}}
stdout: {"result": {...}} or {"error": "..."}
"""
import json
import pathlib
import sys

try:
    order_id = json.load(sys.stdin)["args"]["order_id"]
    if not isinstance(order_id, str):
        raise TypeError
except (ValueError, KeyError, TypeError):
    json.dump({"error": "expected {\"args\": {\"order_id\": \"A-...\"}}"}, sys.stdout)
    sys.exit(0)
orders = json.loads((pathlib.Path(__file__).parent / "orders.json").read_text())
order = orders.get(order_id)
if order is None:
    json.dump({"error": f"no order {order_id}"}, sys.stdout)
else:
    json.dump({"result": {"order_id": order_id, **order}}, sys.stdout)
