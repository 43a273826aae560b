#!/usr/bin/env python3
"""One-shot exec tool: a tiny word-list sentiment scorer.

stdin:  {"args": {"text": "..."}}
stdout: {"result": {"score": -1..1, "label": "negative|neutral|positive"}}
"""
import json
import re
import sys

POSITIVE = {"great", "love", "thanks", "happy", "good", "excellent", "amazing"}
NEGATIVE = {"late", "angry", "broken", "bad", "terrible", "refund", "delayed", "worst"}

try:
    text = json.load(sys.stdin)["args"]["text"]
    if not isinstance(text, str):
        raise TypeError
except (ValueError, KeyError, TypeError):
    json.dump({"error": "expected {\"args\": {\"text\": \"...\"}}"}, sys.stdout)
    sys.exit(0)
words = re.findall(r"[a-z']+", text.lower())
hits = sum(w in POSITIVE for w in words) - sum(w in NEGATIVE for w in words)
score = max(-1.0, min(1.0, hits / 3))
label = "positive" if score > 0 else "negative" if score < 0 else "neutral"
json.dump({"result": {"score": round(score, 2), "label": label}}, sys.stdout)
