#!/usr/bin/env python3
"""Eval hook: receives every EvalResult and appends a metrics line to the file named by
$EVAL_METRICS_LOG (listed in `env`). Fire and forget: stdout is ignored."""
import json
import os
import sys

result = json.load(sys.stdin)
path = os.environ.get("EVAL_METRICS_LOG")
if path:
    line = {k: result.get(k) for k in ("eval_id", "type", "score", "passed", "duration_ms")}
    with open(path, "a", encoding="utf-8") as log:
        log.write(json.dumps(line) + "\n")
