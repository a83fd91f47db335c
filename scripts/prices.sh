#!/bin/sh
# prices.sh regenerates internal/core/prices/prices.json, evimport's price
# table, from models.dev (MIT License). Give it models.dev's api.json, or
# a {"providers":{...}} table made from the TOML files of a checkout of
# github.com/anomalyco/models.dev (providers/*/models/**/*.toml, their
# [cost] tables), and say which commit and date it is:
#
#   curl -fsSLo /tmp/api.json https://models.dev/api.json
#   scripts/prices.sh /tmp/api.json "models.dev api.json of 2026-07-02"
#
# Then update the commit and date in internal/core/prices/README.md, and run
# go test ./internal/core/prices ./internal/sources/evimport (the goldens show the
# costs that changed).
set -eu
if [ $# -ne 2 ]; then
	echo "usage: scripts/prices.sh FILE 'SOURCE (commit, date)'" >&2
	exit 2
fi
cd "$(dirname "$0")/.."
src="models.dev (github.com/anomalyco/models.dev), MIT License, $2"
go run ./internal/core/prices/gen -source "$src" "$1" > internal/core/prices/prices.json.tmp
mv internal/core/prices/prices.json.tmp internal/core/prices/prices.json
