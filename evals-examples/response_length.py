#!/usr/bin/env python3
"""Exec eval: is the reply short enough to read at a glance? Full marks up to
`max_words` (default 80), then the score falls linearly to 0 at twice that.

stdin:  {"type": "response_length", "params": {"max_words": 40}, "content": "...", ...}
stdout: {"score": 1.0, "detail": "14 words (limit 40)", "data": {"words": 14}}
"""
import json
import sys

request = json.load(sys.stdin)
limit = int((request.get("params") or {}).get("max_words", 80))
words = len(request.get("content", "").split())
score = 1.0 if words <= limit else max(0.0, 1.0 - (words - limit) / limit)
json.dump({"score": round(score, 2), "detail": f"{words} words (limit {limit})", "data": {"words": words}}, sys.stdout)
