#!/usr/bin/env python3
"""One-shot exec tool with a human in the loop: refunds up to REFUND_LIMIT (default 100)
go through at once; larger ones answer `pending` until a person decides.

stdin:  {"args": {"order_id": "A-1002", "amount": 149.0}}
        and, once decided, also "resolution": {"approved": true|false, "note": "..."}
stdout: {"result": {...}}, {"error": "..."} or {"pending": {"reason": ..., "message": ...}}
"""
import json
import os
import sys

try:
    request = json.load(sys.stdin)
    args = request["args"]
    amount = float(args["amount"])
    str(args["order_id"])
except (ValueError, KeyError, TypeError):
    json.dump({"error": "expected {\"args\": {\"order_id\": \"A-...\", \"amount\": 12.5}}"}, sys.stdout)
    sys.exit(0)
limit = float(os.environ.get("REFUND_LIMIT", "100"))
resolution = request.get("resolution")

if amount > limit and resolution is None:
    answer = {"pending": {
        "reason": "requires_approval",
        "message": f"Refund of ${amount:.2f} for {args['order_id']} is above ${limit:.2f} and needs a manager's approval",
    }}
elif resolution is not None and not resolution.get("approved"):
    answer = {"error": f"refund for {args['order_id']} was not approved: {resolution.get('note', 'no reason given')}"}
else:
    answer = {"result": {"order_id": args["order_id"], "refunded": round(amount, 2), "status": "refund issued"}}
json.dump(answer, sys.stdout)
