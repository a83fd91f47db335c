#!/usr/bin/env bash
# evfilter: grep for agent events — jq predicates with a field shorthand and named filters.
source "$(dirname "$0")/lib.sh"

say 'the complete tool calls of a zot run, converted by zot2gp (a bare name is a field)'
run "zot2gp examples/zot/uname.jsonl | evfilter 'kind==\"tool_call\"'"

say "raw zot lines: type is zot's field here, although jq has a type builtin"
run "evfilter 'type==\"turn_end\" and stop==\"error\"' examples/zot/auth-401.jsonl"

say 'one run of the multi-agent log, read as a transcript (what a terminal shows by default)'
run "evfilter --format pretty 'run_id==\"r_0001a5b7\"' examples/events/multiagent.jsonl"

say 'named filters: every failure of a multi-agent run log...'
run 'evfilter failed examples/events/multiagent.jsonl'
say '...and the same filter on raw zot lines'
run 'evfilter failed examples/zot/auth-401.jsonl'

say 'named filters compose with the rest of an expression'
run "evfilter 'failed and kind==\"run_error\"' examples/events/multiagent.jsonl"

say 'count the tool calls, read_file calls only, the first agent that finished'
run 'evfilter -c tools examples/events/multiagent.jsonl'
run "evfilter -c 'tool(\"read_file\")' examples/events/multiagent.jsonl"
run "evfilter -m 1 'kind==\"agent_finished\"' examples/events/multiagent.jsonl"

say 'full jq, with a variable: model calls slower than 3.5 s'
run "evfilter --argjson ms 3500 'payload.latency_ms > \$ms' examples/events/multiagent.jsonl"

say '-q for scripts: the exit status says whether anything failed'
run "evfilter -q failed examples/events/multiagent.jsonl && echo 'something failed'"

say 'the library of named filters'
run 'evfilter --list'
