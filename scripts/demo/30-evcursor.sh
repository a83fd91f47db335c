#!/usr/bin/env bash
# evcursor: re-number seq, resume after a cursor, check a stream.
source "$(dirname "$0")/lib.sh"

say 'contiguous seq after a filter (the first three)'
run "evfilter 'kind==\"tool_call\"' examples/events/multiagent.jsonl | evcursor | head -3"

say 'only what came after seq 80'
run 'evcursor --after 80 examples/events/multiagent.jsonl'

say 'a clean log: nothing to say, exit 0'
run 'evcursor --check examples/events/multiagent.jsonl > /dev/null'

say 'a lost line, a repeat, a restart: reported on stderr, exit 1'
setup 'd=$(mktemp -d)'
trap 'rm -rf "$d"' EXIT
setup "{ sed -n '1,9p;11,20p;20p' examples/events/multiagent.jsonl; head -5 examples/events/multiagent.jsonl; } > \"\$d/broken.jsonl\""
run 'evcursor --check "$d/broken.jsonl" > /dev/null'

say 'a cron job: each run passes what is new since the last one'
setup 'head -40 examples/events/multiagent.jsonl > "$d/events.jsonl"'
run 'evcursor --state "$d/daily.cursor" "$d/events.jsonl" | wc -l'
run 'cat "$d/daily.cursor"'
say 'the log grew'
setup 'cp examples/events/multiagent.jsonl "$d/events.jsonl"'
run 'evcursor --state "$d/daily.cursor" "$d/events.jsonl" | wc -l'
say 'nothing new'
run 'evcursor --state "$d/daily.cursor" "$d/events.jsonl" | wc -l'

say 'at least once: the cursor moves only when the report was written'
run 'evcursor --state "$d/S" --defer "$d/events.jsonl" | false && evcursor --commit "$d/S"'
run 'evcursor --state "$d/S" --defer "$d/events.jsonl" | wc -l && evcursor --commit "$d/S"'
run 'evcursor --state "$d/S" "$d/events.jsonl" | wc -l'
