#!/usr/bin/env bash
# bench-archive.sh: the archive's figures (evimport --archive, evsum and
# evfilter --grep over it) against ccusage daily and against one pass of
# evimport | evsum, on generated logs of every agent under one home folder.
#
#   bash scripts/bench-archive.sh                  # 1 GB of logs (about 8,000 files)
#   BENCH_SIZE=64M bash scripts/bench-archive.sh   # a quick run
#
# Each figure is taken in one run of this script, so that the ratios are
# taken under the same load; the table goes to stdout and into
# docs/performance.md between the archive-bench markers. Environment:
# BENCH_SIZE (default 1G, split evenly between the agents), BENCH_RUNS
# (default 5), BENCH_DOC (default docs/performance.md). ccusage comes
# from scripts/bench.sh's cache (or the e2e tests'); without it, its
# column is "-".
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
SIZE=${BENCH_SIZE:-1G}
RUNS=${BENCH_RUNS:-5}
DOC=${BENCH_DOC:-docs/performance.md}
CACHE=$ROOT/.bench
note() { printf 'bench-archive: %s\n' "$*" >&2; }

for need in hyperfine /usr/bin/time; do
	if ! command -v "$need" >/dev/null; then
		sudo=
		[ "$(id -u)" -eq 0 ] || sudo=sudo
		$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq hyperfine time >/dev/null
	fi
done

BIN=$(mktemp -d)
WORK=$(mktemp -d)
trap 'rm -rf "$BIN" "$WORK"' EXIT
go build -o "$BIN/" ./cmd/... ./internal/devtools/cmd/evgen
export PATH=$BIN:$PATH

# --- the logs: every agent's under one home, as a heavy user's --------------
H=$CACHE/home-all-$SIZE
if [ ! -d "$H" ]; then
	note "generating $H"
	rm -rf "$H.tmp"
	bytes=$(numfmt --from=iec "$SIZE")
	for kind in claude codex pi gemini; do
		evgen -kind "$kind" -size $((bytes / 4)) -o "$H.tmp" >/dev/null
	done
	# settled: the agents are done with them (a run is archived once its
	# session has been idle for --settle)
	find "$H.tmp" -type f -exec touch -d '-2 hours' {} +
	mv "$H.tmp" "$H"
fi
logs=$(du -sb "$H" | cut -f1)
files=$(find "$H" -type f | wc -l)

CC=
for d in "$CACHE/ccusage-20.0.24" "${XDG_CACHE_HOME:-$HOME/.cache}/evtools/ccusage-20.0.24"; do
	[ -x "$d/bin/ccusage" ] && CC=$d/bin/ccusage && break
done
[ -n "$CC" ] || note "no ccusage (run scripts/bench.sh once to install it): its column is -"

A=$WORK/archive
export EVTOOLS_CACHE_DIR=$WORK/cache
# what the agents' own variables would point elsewhere
run() { env -u CLAUDE_CONFIG_DIR -u CODEX_HOME -u PI_CODING_AGENT_DIR -u GEMINI_CLI_HOME HOME="$H" "$@"; }
export -f run
export H A CC

# seconds: the mean of hyperfine's runs of command $2, prepared by $1
seconds() {
	hyperfine --shell bash --style none --runs "$RUNS" --warmup "${3:-0}" --prepare "$1" --export-json "$WORK/h.json" "$2" >/dev/null 2>&1
	jq -r '.results[0].mean' "$WORK/h.json"
}
# rss: the max RSS in MiB of command $1, run once
rss() { /usr/bin/time -f %M bash -c "$1" 2>&1 >/dev/null | tail -1 | awk '{printf "%.0f", $1/1024}'; }

rows=()
row() { rows+=("| $1 | $2 | $3 | $4 | $5 |"); note "$1: $2 s (peer $3 s) $4, $5 MiB"; }
fmt() { awk -v s="$1" 'BEGIN { if (s == "-") print "-"; else if (s < 1) printf "%.0f ms", s*1000; else printf "%.2f s", s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.2fx", a/b }'; }

pipe=$(seconds 'true' 'run sh -c "evimport 2>/dev/null | evsum --by day >/dev/null"')
cc=-
[ -n "$CC" ] && cc=$(seconds 'true' 'run $CC daily --offline --json >/dev/null')
first=$(seconds 'rm -rf $A' 'run evimport --archive=$A --settle 0 2>/dev/null')
row "first sync into the archive (vs evimport \| evsum --by day)" "$(fmt "$first")" "$(fmt "$pipe")" "$(ratio "$first" "$pipe") (target 1.2x at most)" \
	"$(rss 'rm -rf $A; run evimport --archive=$A --settle 0 2>/dev/null')"
same=$(seconds 'true' 'run evimport --archive=$A --settle 0' 1)
row "a sync when nothing changed" "$(fmt "$same")" - "target 50 ms" "$(rss 'run evimport --archive=$A --settle 0')"
# 1 MB appended to three sessions before each timed sync
grow='for f in $(find $H/.claude/projects -maxdepth 2 -name "*.jsonl" | sort | head -3); do head -c 350000 $(find $H/.claude/projects -maxdepth 2 -name "*.jsonl" | sort | tail -1) | head -n -1 >> $f; done'
cp -a "$H" "$WORK/home.bak"
appended=$(seconds "$grow" 'run evimport --archive=$A --settle 0 2>/dev/null')
row "a sync after 1 MB appended to 3 sessions" "$(fmt "$appended")" - "target 100 ms" "$(rss "$grow; run evimport --archive=\$A --settle 0 2>/dev/null")"
rm -rf "$H" && mv "$WORK/home.bak" "$H"
rm -rf "$A" && run evimport --archive="$A" --settle 0 2>/dev/null

asked=$(seconds 'true' 'evsum --by day $A >/dev/null' 1)
row "evsum --by day over the archive, asked before (vs ccusage daily)" "$(fmt "$asked")" "$(fmt "$cc")" "$(ratio "$cc" "$asked") faster (target 50x)" "$(rss 'evsum --by day $A')"
fresh=$(seconds 'rm -rf $EVTOOLS_CACHE_DIR' 'evsum --by day $A >/dev/null')
row "evsum --by day over the archive, asked for the first time (vs ccusage daily)" "$(fmt "$fresh")" "$(fmt "$cc")" "$(ratio "$fresh" "$cc") (target 1.0x at most)" "$(rss 'rm -rf $EVTOOLS_CACHE_DIR; evsum --by day $A')"
grep=$(seconds 'true' 'evfilter --grep zebra $A >/dev/null || [ $? = 1 ]' 1)
row "evfilter --grep WORD over the archive" "$(fmt "$grep")" - "$(awk -v b="$logs" -v s="$grep" 'BEGIN { printf "%.1f GB of logs/s (target 1)", b/s/1e9 }')" "$(rss 'evfilter --grep zebra $A')"

table=$(
	printf 'On %s of generated logs of Claude Code, Codex, pi and Gemini CLI (%s files; the archive: %s), %s runs each, one run of `scripts/bench-archive.sh` on %s:\n\n' \
		"$(numfmt --to=iec "$logs")" "$files" "$(du -sh "$A" | cut -f1)" "$RUNS" "$(nproc) cores"
	echo '| what | evtools | peer | ratio | max RSS MiB |'
	echo '|---|---|---|---|---|'
	printf '%s\n' "${rows[@]}"
)
printf '%s\n' "$table"
if grep -q '<!-- archive-bench -->' "$DOC"; then
	awk -v t="$table" '
		/<!-- archive-bench -->/ { print; print t; skip = 1; next }
		/<!-- \/archive-bench -->/ { skip = 0 }
		!skip' "$DOC" >"$WORK/doc" && cp "$WORK/doc" "$DOC"
fi
