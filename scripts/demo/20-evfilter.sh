#!/usr/bin/env bash
# evfilter: grep for agent events — jq predicates with a field shorthand and named filters.
set -euo pipefail
cd "$(dirname "$0")/../.."
clip() { cut -c1-"${1:-150}"; }
# run shows a command line as typed, then its output
run() { echo "\$ $1"; eval "$1" | clip; }

echo '# the complete tool calls of a zot run, converted by zot2gp (a bare name is a field)'
echo "\$ zot2gp examples/zot/uname.jsonl | evfilter 'kind==\"tool_call\"'"
zot2gp examples/zot/uname.jsonl | evfilter 'kind=="tool_call"' | clip

echo
echo '# raw zot lines: type is zot'"'"'s field here, although jq has a type builtin'
run 'evfilter '"'"'type=="turn_end" and stop=="error"'"'"' examples/zot/auth-401.jsonl'

echo
echo '# named filters: every failure of a multi-agent run log...'
run 'evfilter failed examples/events/multiagent.jsonl'
echo '# ...and the same filter on raw zot lines'
run 'evfilter failed examples/zot/auth-401.jsonl'

echo
echo '# named filters compose with the rest of an expression'
run 'evfilter '"'"'failed and kind=="run_error"'"'"' examples/events/multiagent.jsonl'

echo
echo '# count the tool calls, read_file calls only, the first agent that finished'
run 'evfilter -c tools examples/events/multiagent.jsonl'
run 'evfilter -c '"'"'tool("read_file")'"'"' examples/events/multiagent.jsonl'
run 'evfilter -m 1 '"'"'kind=="agent_finished"'"'"' examples/events/multiagent.jsonl'

echo
echo '# full jq, with a variable: model calls slower than 3.5 s'
run 'evfilter --argjson ms 3500 '"'"'payload.latency_ms > $ms'"'"' examples/events/multiagent.jsonl'

echo
echo '# -q for scripts: the exit status says whether anything failed'
echo "\$ evfilter -q failed examples/events/multiagent.jsonl && echo 'something failed'"
evfilter -q failed examples/events/multiagent.jsonl && echo 'something failed'

echo
echo '# the library of named filters'
echo '$ evfilter --list'
evfilter --list | clip 120
