#!/usr/bin/env bash
# zot2gp: zot's RPC output as envelope events classified by glasspane.
source "$(dirname "$0")/lib.sh"

say 'the recorded failed run (HTTP 401): six zot events, six envelopes'
run 'zot2gp --ts=stable examples/zot/auth-401.jsonl'

say "kind is glasspane's type; events it does not map keep their zot type"
run "zot2gp examples/zot/uname.jsonl | grep -o '\"kind\":\"[a-z_]*\"' | sort | uniq -c | sort -rn"

say 'the complete tool calls (zot type tool_call, which glasspane skips)'
run 'zot2gp examples/zot/uname.jsonl | evfilter '"'"'kind=="tool_call"'"'"

say 'on a terminal (or with --format pretty) the events are for people: 41 text deltas read as one sentence'
run 'zot2gp --format pretty --ts=stable examples/zot/uname.jsonl'

say "--ui: exactly glasspane's stream (61 zot events, 57 for the UI)"
run 'zot2gp --ui examples/zot/uname.jsonl | wc -l'

say '--format bare: the zot object, type = kind, zot_type = what zot said'
run 'zot2gp --format bare examples/zot/auth-401.jsonl | tail -2'

say 'two prompts in one stream: two runs; a bad line is reported, the rest converted (exit 2)'
setup 'd=$(mktemp -d)'
trap 'rm -rf "$d"' EXIT
setup '{ cat examples/zot/auth-401.jsonl; echo '"'"'{"type":"turn_st'"'"'; cat examples/zot/auth-401.jsonl; } > "$d/two.jsonl"'
run 'zot2gp --ts=stable --run-id nightly "$d/two.jsonl"'
