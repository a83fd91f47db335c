#!/usr/bin/env bash
# The archive: every session kept after the agents delete their logs, reports and search over all of it.
source "$(dirname "$0")/lib.sh"

say 'a copy of the example sessions, as an agent keeps them, and an archive folder beside them'
setup 'demo=$(mktemp -d); cp -r examples/agents "$demo/logs"; trap "rm -rf $demo" EXIT; export EVTOOLS_CACHE_DIR=$demo/cache'

say 'a sync: every settled run goes into the archive (--settle 0: these logs are done), one zstd segment per day'
run 'evimport --archive="$demo/archive" --host laptop --settle 0 "$demo/logs"'
run '(cd "$demo/archive" && ls laptop)'

say 'a second sync finds nothing changed: it opens no log and writes nothing'
run 'evimport --archive="$demo/archive" --host laptop --settle 0 "$demo/logs"; grep generation "$demo/archive/laptop/evtools-archive.json"'

say 'every tool reads the archive folder: a report of every agent'"'"'s sessions'
run 'evsum --by source --format table --width 100 "$demo/archive"'

say 'the agent deletes its logs (Claude Code does after 30 days); the next sync says what the archive alone keeps'
run 'rm -r "$demo/logs/claude"; evimport --archive="$demo/archive" --host laptop --settle 0 "$demo/logs"'

say 'a search across every session, the deleted ones too, with the command that reopens the session'
run 'evfilter --grep cart.json --format pretty "$demo/archive"'
