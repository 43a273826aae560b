#!/bin/sh
# One-shot exec tool in plain POSIX shell: the protocol is only JSON on stdin and stdout.
# Takes no arguments; answers with the current UTC time and whether the store is open
# (09:00 to 18:00 UTC, Monday to Saturday).
cat > /dev/null
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
hour=$(date -u +%H)
weekday=$(date -u +%u)
if [ "$weekday" -le 6 ] && [ "$hour" -ge 9 ] && [ "$hour" -lt 18 ]; then open=true; else open=false; fi
printf '{"result": {"utc": "%s", "open": %s}}\n' "$now" "$open"
