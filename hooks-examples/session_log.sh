#!/bin/sh
# Session observer hook: appends one line per session event to $SESSION_LOG
# (default: session.log in the working directory) and acknowledges.
payload=$(cat)
printf '%s\n' "$payload" >> "${SESSION_LOG:-session.log}"
printf '{"ack": true}\n'
