#!/usr/bin/env bash
# evsum: what the runs did — outcomes, tokens, cost, time, tools, errors.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
clip() { cut -c1-"${1:-200}"; }
run() { echo "\$ $*"; "$@"; }

echo '# the multi-agent run log: one row per run and a total (a table, as on a terminal)'
run evsum -f table examples/events/multiagent.jsonl

echo
echo '# per agent, as Markdown for a chat or a mail'
run evsum -f md --by agent examples/events/multiagent.jsonl

echo
echo '# in a pipe it writes JSON Lines: the total record, last, for cron jobs and other tools'
echo '$ evsum examples/events/multiagent.jsonl | tail -1'
evsum examples/events/multiagent.jsonl | tail -1 | clip 400

echo
echo '# the glasspane vocabulary: zot2gp output of the recorded uname run (the bash call counts once)'
echo '$ zot2gp --ts=stable examples/zot/uname.jsonl | evsum -f table --by kind'
zot2gp --ts=stable examples/zot/uname.jsonl | evsum -f table --by kind

echo
echo '# broken invariants: cut the log in the middle of a run, --check says so (exit 1)'
echo '$ head -60 examples/events/multiagent.jsonl | evsum --check -f table --by none'
set +e
head -60 examples/events/multiagent.jsonl | evsum --check -f table --by none
echo "exit status $?"
set -e

echo
echo '# mergeable: summarise parts (on other cores or hosts), merge the states'
echo '$ head -40 multiagent.jsonl | evsum --partial > a.state; tail -n +41 multiagent.jsonl | evsum --partial > b.state'
head -40 examples/events/multiagent.jsonl | evsum --partial > "$tmp/a.state"
tail -n +41 examples/events/multiagent.jsonl | evsum --partial > "$tmp/b.state"
echo '$ evsum --merge a.state b.state | tail -1   # the same as one pass'
evsum --merge "$tmp/a.state" "$tmp/b.state" | tail -1 > "$tmp/merged"
evsum examples/events/multiagent.jsonl | tail -1 > "$tmp/single"
clip 200 < "$tmp/merged"
cmp -s "$tmp/merged" "$tmp/single" && echo '(identical to the single pass)'
