#!/usr/bin/env python3
"""Exec eval: how polite is the assistant's reply? Counts courteous phrases and rude
words and maps them to a score from 0 to 1.

stdin:  {"type": "tone", "params": {...}, "content": "...", "context": {...}}
stdout: {"score": 0.75, "detail": "...", "data": {"polite": [...], "rude": [...]}}
params: polite (list of phrases, optional), rude (list of words, optional)
"""
import json
import re
import sys

POLITE = ["please", "thank", "sorry", "happy to help", "welcome", "glad", "apolog"]
RUDE = ["stupid", "idiot", "whatever", "shut up", "your problem"]

request = json.load(sys.stdin)
params = request.get("params") or {}
text = request.get("content", "").lower()
polite = [p for p in params.get("polite", POLITE) if p in text]
rude = [w for w in params.get("rude", RUDE) if re.search(r"\b" + re.escape(w) + r"\b", text)]
score = min(1.0, 0.5 + 0.25 * len(polite)) - 0.5 * len(rude)
score = max(0.0, score)
detail = f"{len(polite)} courteous phrase(s), {len(rude)} rude word(s)"
json.dump({"score": round(score, 2), "detail": detail, "data": {"polite": polite, "rude": rude}}, sys.stdout)
