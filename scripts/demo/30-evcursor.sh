#!/usr/bin/env bash
# evcursor: re-number seq, resume after a cursor, check a stream.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp examples/events/multiagent.jsonl "$tmp/"
cd "$tmp"
log=multiagent.jsonl

echo "$ evfilter 'kind==\"tool_call\"' multiagent.jsonl | evcursor    # contiguous seq after a filter"
if command -v evfilter >/dev/null; then
	evfilter 'kind=="tool_call"' "$log" | evcursor | head -3 | cut -c1-110
else
	grep '"kind":"tool_call"' "$log" | evcursor | head -3 | cut -c1-110
fi

echo
echo '$ evcursor --after 80 multiagent.jsonl  # only what came after seq 80'
evcursor --after 80 "$log" | cut -c1-110

echo
echo '$ evcursor --check multiagent.jsonl > /dev/null  # a clean log: nothing to say, exit 0'
evcursor --check "$log" >/dev/null && echo "exit 0"

echo
echo '$ evcursor --check broken.jsonl > /dev/null  # a lost line, a repeat, a restart'
{ sed -n '1,9p;11,20p;20p' "$log"; sed -n '1,5p' "$log"; } >broken.jsonl
evcursor --check broken.jsonl 2>&1 >/dev/null || echo "exit $?"

echo
echo '# a cron job: each run passes what is new since the last one'
head -40 "$log" >events.jsonl
echo '$ evcursor --state daily.cursor events.jsonl | wc -l    # first run: everything'
evcursor --state daily.cursor events.jsonl | wc -l
cat daily.cursor
cp "$log" events.jsonl
echo '$ evcursor --state daily.cursor events.jsonl | wc -l    # the log grew'
evcursor --state daily.cursor events.jsonl | wc -l
echo '$ evcursor --state daily.cursor events.jsonl | wc -l    # nothing new'
evcursor --state daily.cursor events.jsonl | wc -l

echo
echo '# at least once: the cursor moves only when the report was written'
rm daily.cursor
echo '$ evcursor --state S --defer events.jsonl | false && evcursor --commit S'
evcursor --state S --defer events.jsonl | false && evcursor --commit S || echo "the report failed: nothing committed"
echo '$ evcursor --state S --defer events.jsonl | wc -l && evcursor --commit S'
evcursor --state S --defer events.jsonl | wc -l && evcursor --commit S
echo '$ evcursor --state S events.jsonl | wc -l'
evcursor --state S events.jsonl | wc -l
