#!/usr/bin/env bash
# zot2gp: zot's RPC output as envelope events classified by glasspane.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
clip() { cut -c1-"${1:-150}"; }

echo '# the recorded failed run (HTTP 401): six zot events, six envelopes'
echo '$ zot2gp --ts=stable examples/zot/auth-401.jsonl'
zot2gp --ts=stable examples/zot/auth-401.jsonl | clip

echo
echo '# kind is glasspane'"'"'s type; events it does not map keep their zot type'
echo '$ zot2gp --ts=stable examples/zot/uname.jsonl | jq -r .kind | sort | uniq -c'
if command -v jq >/dev/null; then
	zot2gp --ts=stable examples/zot/uname.jsonl | jq -r .kind | sort | uniq -c | sort -rn
else
	zot2gp --ts=stable examples/zot/uname.jsonl | grep -o '"kind":"[a-z_]*"' | sort | uniq -c | sort -rn
fi

echo
echo '# the complete tool calls (zot type tool_call, which glasspane skips)'
echo '$ zot2gp examples/zot/uname.jsonl | grep '"'"'"kind":"tool_call"'"'"
zot2gp examples/zot/uname.jsonl | grep '"kind":"tool_call"' | clip 200

echo
echo '# --ui: exactly glasspane'"'"'s stream (61 zot events, 57 for the UI)'
echo '$ zot2gp --ui examples/zot/uname.jsonl | wc -l'
zot2gp --ui examples/zot/uname.jsonl | wc -l

echo
echo '# --format bare: the zot object, type = kind, zot_type = what zot said'
echo '$ zot2gp --format bare examples/zot/auth-401.jsonl | tail -2'
zot2gp --format bare examples/zot/auth-401.jsonl | tail -2

echo
echo '# two prompts in one stream: two runs; bad lines are reported, the rest converted (exit 2)'
{ cat examples/zot/auth-401.jsonl; echo '{"type":"turn_st'; cat examples/zot/auth-401.jsonl; } >"$tmp/two.jsonl"
cd "$tmp"
echo '$ zot2gp --ts=stable --run-id nightly two.jsonl 2>/dev/null | cut -c1-70'
{ zot2gp --ts=stable --run-id nightly two.jsonl 2>/dev/null || true; } | cut -c1-70
echo '$ zot2gp two.jsonl > /dev/null'
zot2gp two.jsonl 2>&1 >/dev/null || echo "exit $?"
