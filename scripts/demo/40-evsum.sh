#!/usr/bin/env bash
# evsum: what the runs did — outcomes, tokens, cost, time, tools, errors.
source "$(dirname "$0")/lib.sh"

say 'the multi-agent run log: one row per run and a total, fitted to 100 columns as on a terminal that wide'
run 'evsum --width 100 examples/events/multiagent.jsonl'

say 'per agent, as Markdown for a chat or a mail'
run 'evsum --format md --by agent examples/events/multiagent.jsonl'

say 'the same as a page with charts, for a mail or a browser (self-contained HTML)'
run 'evsum --format html examples/events/multiagent.jsonl | grep -c "<rect class=\"bar\""'

say 'in a pipe it writes JSON Lines: the total record, last, for cron jobs and other tools'
run 'evsum examples/events/multiagent.jsonl | tail -1'

say 'the glasspane vocabulary: zot2gp output of the recorded uname run (the bash call counts once)'
run 'zot2gp --ts=stable examples/zot/uname.jsonl | evsum --format table --by kind'

say 'broken invariants: cut the log in the middle of a run, --check says so (exit 1)'
run 'head -60 examples/events/multiagent.jsonl | evsum --check --format table --by none'

say 'mergeable: summarise parts (on other cores or hosts), merge the states: the same as one pass'
setup 'd=$(mktemp -d)'
trap 'rm -rf "$d"' EXIT
run 'head -40 examples/events/multiagent.jsonl | evsum --partial > "$d/a.state"'
run 'tail -n +41 examples/events/multiagent.jsonl | evsum --partial > "$d/b.state"'
run 'evsum --merge "$d/a.state" "$d/b.state" | tail -1'
run 'evsum examples/events/multiagent.jsonl | tail -1'
