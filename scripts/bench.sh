#!/usr/bin/env bash
# bench.sh: evtools side by side with jq, gojq, Miller, DuckDB and ccusage on generated corpora.
#
#   bash scripts/bench.sh                 # 100 MB corpora
#   BENCH_SIZE=8M bash scripts/bench.sh   # a quick run
#
# It installs the peers from Debian when missing (DuckDB and ccusage from npm,
# into the cache, skipped with a note when that fails), builds the tools into a
# temporary bin, generates the corpora once (cached in .bench/, keyed by size),
# times each row of bench/rows.tsv with hyperfine, measures the evtools
# command's and the peer's max RSS with /usr/bin/time, prints a table and
# writes it into docs/performance.md between the bench markers; the "mem"
# rows (huge lines) go between the bench-mem markers.
#
# Environment: BENCH_SIZE (default 100M), BENCH_ROWS (default bench/rows.tsv),
# BENCH_RUNS (default 3), BENCH_DOC (default docs/performance.md).
# BENCH_BASE=REV also builds the tools of git revision REV and times them in
# the same hyperfine run as the work tree's, so a change is judged by a
# ratio taken under the same load (column "vs base": above 1.0x, faster).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
SIZE=${BENCH_SIZE:-100M}
ROWS=${BENCH_ROWS:-bench/rows.tsv}
RUNS=${BENCH_RUNS:-3}
DOC=${BENCH_DOC:-docs/performance.md}
CACHE=$ROOT/.bench

note() { printf 'bench: %s\n' "$*" >&2; }

# --- peers ------------------------------------------------------------------
missing=()
command -v jq >/dev/null || missing+=(jq)
command -v gojq >/dev/null || missing+=(gojq)
command -v mlr >/dev/null || missing+=(miller)
command -v hyperfine >/dev/null || missing+=(hyperfine)
[ -x /usr/bin/time ] || missing+=(time)
if ((${#missing[@]})); then
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	note "installing ${missing[*]}"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
for need in jq hyperfine /usr/bin/time; do
	command -v "$need" >/dev/null || { note "$need is required and could not be installed"; exit 1; }
done

# --- ignore what the benchmark leaves behind -------------------------------
touch .gitignore
for pat in .bench/ /bin/; do
	grep -qxF "$pat" .gitignore || echo "$pat" >>.gitignore
done

# --- binaries ----------------------------------------------------------------
BIN=$(mktemp -d)
TMP=$(mktemp -d)
trap 'rm -rf "$BIN" "$TMP"' EXIT
go build -o "$BIN/" ./internal/devtools/cmd/evgen
BASE=${BENCH_BASE:-}
BASEBIN=
if [ -n "$BASE" ]; then
	BASEBIN=$TMP/base-bin
	git worktree add -f --detach "$TMP/base" "$BASE" >/dev/null 2>&1
	(cd "$TMP/base" && go build -o "$BASEBIN/" ./cmd/...)
	git worktree remove --force "$TMP/base"
	note "base: $(git rev-parse --short "$BASE") built into $BASEBIN"
fi
# one tool at a time, so that a tool mid-change does not hide the others
for dir in cmd/*/; do
	[ -e "$dir/main.go" ] || continue
	go build -o "$BIN/" "./$dir" 2>"$TMP/build.err" || note "skipping ${dir%/}: it does not build ($(head -1 "$TMP/build.err"))"
done
export PATH="$BIN:$PATH"

# --- DuckDB (npm @duckdb/node-api, prebuilt), a peer of evsum -------------------
# Installed by npm into the cache when missing; a row whose peer is missing
# times evtools alone (with a note), so a failed install skips only DuckDB.
DUCKDB_VERSION=1.5.6-r.1
DUCKDB=$CACHE/duckdb
mkdir -p "$DUCKDB"
if [ ! -d "$DUCKDB/node_modules/@duckdb/node-api" ] && command -v npm >/dev/null; then
	note "installing @duckdb/node-api@$DUCKDB_VERSION into $DUCKDB"
	(cd "$DUCKDB" && npm install --no-audit --no-fund --silent "@duckdb/node-api@$DUCKDB_VERSION" >/dev/null 2>&1) ||
		note "DuckDB could not be installed (npm install @duckdb/node-api failed): its rows time evtools alone"
fi
if [ -d "$DUCKDB/node_modules/@duckdb/node-api" ] && command -v node >/dev/null; then
	# the per-run summary: events, cost, tokens and tool calls per run_id,
	# read_json over the whole file on all cores, one JSON line per run
	cat >"$DUCKDB/runs.mjs" <<'JS'
import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const reader = await con.runAndReadAll(`
  SELECT run_id, count(*) AS events,
    sum(TRY_CAST(json_extract_string(payload, '$.cost_usd') AS DOUBLE)) AS cost_usd,
    sum(TRY_CAST(json_extract_string(payload, '$.tokens') AS BIGINT)) AS tokens,
    count(*) FILTER (WHERE kind = 'tool_call') AS tool_calls
  FROM read_json($1, format = 'newline_delimited', ignore_errors = true,
    columns = {run_id: 'VARCHAR', kind: 'VARCHAR', payload: 'JSON'})
  GROUP BY run_id ORDER BY run_id`, [process.argv[2]]);
const out = [];
for (const r of reader.getRowObjectsJson()) out.push(JSON.stringify(r));
process.stdout.write(out.join('\n') + '\n');
JS
	printf '#!/bin/sh\nexec node %q "$@"\n' "$DUCKDB/runs.mjs" >"$BIN/duckdb-runs"
	chmod +x "$BIN/duckdb-runs"
fi

# --- ccusage (npm @ccusage/ccusage-linux-x64), the peer of evimport -----------------
# The pinned binary package, fetched with npm pack, its integrity checked and
# unpacked into the cache (no install script runs), as internal/devtools/e2e's
# differential test does (whose cache it reuses); run --offline.
CCUSAGE_PACKAGE=@ccusage/ccusage-linux-x64@20.0.24
CCUSAGE_INTEGRITY=sha512-ydXM6AEUTO/T5dZK04GFGy6ePYBOjv3euQmJt0mDNg+/8SJDLWpg5GCtF9pnBrRR2GVA6b4PGouHe+ObLokBIw==
CCUSAGE=$CACHE/ccusage-20.0.24
e2e=${XDG_CACHE_HOME:-$HOME/.cache}/evtools/ccusage-20.0.24
if [ ! -x "$CCUSAGE/bin/ccusage" ] && [ -x "$e2e/bin/ccusage" ]; then
	mkdir -p "$CACHE" && cp -r "$e2e" "$CCUSAGE"
fi
if [ ! -x "$CCUSAGE/bin/ccusage" ] && [ "$(uname -sm)" = "Linux x86_64" ] && command -v npm >/dev/null; then
	note "installing $CCUSAGE_PACKAGE into $CCUSAGE"
	mkdir -p "$TMP/cc"
	if tgz=$(cd "$TMP/cc" && npm pack "$CCUSAGE_PACKAGE" --silent --pack-destination "$TMP/cc" 2>/dev/null | tail -1) &&
		[ "sha512-$(openssl dgst -sha512 -binary "$TMP/cc/$tgz" | base64 -w0)" = "$CCUSAGE_INTEGRITY" ]; then
		tar -xzf "$TMP/cc/$tgz" -C "$TMP/cc" && chmod +x "$TMP/cc/package/bin/ccusage" && mkdir -p "$CACHE" && mv "$TMP/cc/package" "$CCUSAGE"
	else
		note "ccusage could not be installed (npm pack or its integrity failed): the evimport rows time evtools alone"
	fi
fi
if [ -x "$CCUSAGE/bin/ccusage" ]; then
	# the agents' own variables would point ccusage away from the corpus's HOME
	# ccusage-in: ccusage on the logs of the home folder $IN (a row's corpus)
	printf '#!/bin/sh\nexec env -u CLAUDE_CONFIG_DIR -u CODEX_HOME -u PI_CODING_AGENT_DIR HOME="$IN" %q "$@"\n' "$CCUSAGE/bin/ccusage" >"$BIN/ccusage-in"
	chmod +x "$BIN/ccusage-in"
fi

# --- corpora -------------------------------------------------------------------
mkdir -p "$CACHE"
declare -A CORPUS
for kind in zot envelope; do
	f=$CACHE/$kind-$SIZE.jsonl
	if [ ! -s "$f" ]; then
		note "generating $f"
		evgen -kind "$kind" -size "$SIZE" -o "$f.tmp" && mv "$f.tmp" "$f"
	fi
	CORPUS[$kind]=$f
done
# The session logs of other agents (evimport's rows): a home folder each,
# laid out as the agent lays out its logs.
for kind in claude codex pi gemini; do
	d=$CACHE/home-$kind-$SIZE
	if [ ! -d "$d" ]; then
		note "generating $d"
		rm -rf "$d.tmp"
		evgen -kind "$kind" -size "$SIZE" -o "$d.tmp" && mv "$d.tmp" "$d"
	fi
	CORPUS[$kind]=$d
done

# Derived corpora come from "corpus" lines of the rows file: a name, the
# corpus it is made from, and the command that makes it from $IN. They are
# cached under a key of the command and the binary, so a changed converter
# makes a new corpus.
while IFS=$'\t' read -r tag name from cmd _; do
	[ "$tag" = corpus ] || continue
	tool=${cmd%% *}
	if ! command -v "$tool" >/dev/null; then
		note "corpus $name: $tool is not built yet, rows on it are skipped"
		continue
	fi
	if [ -z "${CORPUS[$from]:-}" ]; then
		note "corpus $name: no corpus $from to make it from"
		continue
	fi
	key=$( (echo "$cmd"; cat "$(command -v "$tool")") | cksum | cut -d' ' -f1)
	f=$CACHE/$name-$SIZE-$key.jsonl
	if [ ! -s "$f" ]; then
		note "making $f with: $cmd"
		IN=${CORPUS[$from]} bash -c "$cmd" >"$f.tmp" && mv "$f.tmp" "$f" ||
			{ note "corpus $name: the command failed"; rm -f "$f.tmp"; continue; }
	fi
	CORPUS[$name]=$f
done <"$ROWS"

# --- rows ------------------------------------------------------------------------
# mbs prints throughput; below a millisecond hyperfine cannot tell a command
# from the shell that starts it, so the figure would be noise.
mbs() { awk -v b="$1" -v s="$2" 'BEGIN { if (s < 0.001) print "-"; else printf "%.0f", b / s / 1e6 }'; }
# versus_base times the row's command and base's in pairs, one run of
# each, the first of the pair in turn, and prints the median of the
# pairs' ratios (base's time over the new one's; - below a millisecond). These
# shared machines slow down for minutes at a time, and hyperfine runs all
# of one command's runs before the other's: its ratio took the slowdown
# in (cat against cat read 0.83x), a pair's two runs share it.
versus_base() {
	local ev=$1 i first second
	local old="PATH=$BASEBIN:\$PATH; $ev"
	: >"$TMP/pairs"
	for ((i = 0; i < 2 * RUNS + 1; i++)); do
		if ((i % 2)); then first=$old second=$ev; else first=$ev second=$old; fi
		hyperfine --runs 1 --style none --export-json "$TMP/p.json" "$first" "$second" >/dev/null 2>&1 || return 1
		jq -r --argjson swap "$((i % 2))" '[.results[].mean] | if $swap == 1 then reverse else . end | "\(.[0]) \(.[1])"' "$TMP/p.json" >>"$TMP/pairs"
	done
	awk '{ print ($1 >= 0.001 && $2 >= 0.001 ? $2 / $1 : "-") }' "$TMP/pairs" | sort -g | sed -n "$((RUNS + 1))p" |
		awk '{ if ($1 == "-") print "-"; else printf "%.2fx\n", $1 }'
}

table=$TMP/table.tsv
printf 'row\tcorpus\tevtools MB/s\tpeer\tpeer MB/s\tratio\ttime ratio\tevtools max RSS MB\tpeer max RSS MB%s\n' "${BASE:+$'\t'base MB/s$'\t'vs base}" >"$table"
rows=0
while IFS=$'\t' read -r name corpus ev peer peercmd _; do
	case "$name" in '' | '#'* | corpus | mem) continue ;; esac
	in=${CORPUS[$corpus]:-}
	if [ -z "$in" ]; then
		note "row $name: corpus $corpus is not available, skipped"
		continue
	fi
	if ! command -v "${ev%% *}" >/dev/null; then
		note "row $name: ${ev%% *} is not built yet, skipped"
		continue
	fi
	export IN=$in
	bytes=$(du -sb "$in" | cut -f1) # a folder's too: the agents' logs
	args=(--warmup 1 --runs "$RUNS" --style basic --export-json "$TMP/h.json" -n "$name" "$ev")
	havepeer=
	if [ -n "${peercmd:-}" ] && command -v "${peercmd%% *}" >/dev/null; then
		args+=(-n "$peer" "$peercmd")
		havepeer=1
	else
		note "row $name: peer ${peercmd%% *} is missing, timing evtools alone"
	fi
	note "row $name on $corpus ($bytes bytes)"
	if ! hyperfine "${args[@]}" >&2; then
		note "row $name: a command failed, skipped"
		continue
	fi
	evmean=$(jq '.results[0].median' "$TMP/h.json")
	evmbs=$(mbs "$bytes" "$evmean")
	peermbs=- ratio=- tratio=- peerrss=-
	if [ -n "$havepeer" ]; then
		peermean=$(jq '.results[1].median' "$TMP/h.json")
		peermbs=$(mbs "$bytes" "$peermean")
		ratio=$(awk -v a="$peermean" -v b="$evmean" 'BEGIN { if (a < 0.001 || b < 0.001) print "-"; else printf "%.1fx", a / b }')
		# the issue's targets are written this way: evtools' time over the peer's
		tratio=$(awk -v a="$peermean" -v b="$evmean" 'BEGIN { if (a < 0.001 || b < 0.001) print "-"; else printf "%.3fx", b / a }')
		/usr/bin/time -f %M -o "$TMP/rss" bash -c "$peercmd" >/dev/null 2>&1 || true
		peerrss=$(awk '{ printf "%.0f", $1 / 1024 }' "$TMP/rss" | tail -1)
	fi
	basecols=
	if [ -n "$BASEBIN" ]; then
		# base's MB/s is the row's over that ratio, so that the two columns
		# agree: base's own runs were timed at another moment
		vsbase=$(versus_base "$ev")
		basecols=$(printf '\t%s\t%s' "$(awk -v m="$evmbs" -v r="${vsbase%x}" 'BEGIN { if (m == "-" || r + 0 <= 0) print "-"; else printf "%.0f", m / r }')" "$vsbase")
	fi
	/usr/bin/time -f %M -o "$TMP/rss" bash -c "$ev" >/dev/null 2>&1 || true
	rss=$(awk '{ printf "%.0f", $1 / 1024 }' "$TMP/rss" | tail -1)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n' "$name" "$corpus" "$evmbs" "${peer:--}" "$peermbs" "$ratio" "$tratio" "$rss" "$peerrss" "$basecols" >>"$table"
	rows=$((rows + 1))
done <"$ROWS"

column -t -s $'\t' "$table"

# --- memory on huge lines ---------------------------------------------------------
# "mem" lines of the rows file: a name, a corpus and an evtools command on
# $IN; its max RSS against the issue's bound, twice the longest line and
# 32 MiB.
memtable=$TMP/mem.tsv
printf 'row\tcorpus\tlongest line MiB\tmax RSS MiB\tbound MiB (2x line + 32)\twithin\n' >"$memtable"
while IFS=$'\t' read -r tag name corpus cmd _; do
	[ "$tag" = mem ] || continue
	in=${CORPUS[$corpus]:-}
	if [ -z "$in" ] || ! command -v "${cmd%% *}" >/dev/null; then
		note "mem $name: corpus $corpus or ${cmd%% *} is not available, skipped"
		continue
	fi
	export IN=$in
	note "mem $name on $corpus"
	longest=$(LC_ALL=C awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$in")
	/usr/bin/time -f %M -o "$TMP/rss" bash -c "$cmd" >/dev/null 2>&1 || true
	awk -v n="$name" -v c="$corpus" -v l="$longest" -v k="$(tail -1 "$TMP/rss")" 'BEGIN {
		rss = k / 1024; bound = 2 * l / 1048576 + 32
		printf "%s\t%s\t%.0f\t%.0f\t%.0f\t%s\n", n, c, l / 1048576, rss, bound, rss <= bound ? "yes" : "no"
	}' >>"$memtable"
done <"$ROWS"
column -t -s $'\t' "$memtable"

# --- docs/performance.md ---------------------------------------------------------
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || uname -m)
mem=$(awk '/^MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo 2>/dev/null || echo "?")
block=$TMP/block.md
# mdtable prints a TSV file as a Markdown table: the first two columns
# and column $2 (a text column among the figures) left-aligned, the rest
# right-aligned.
mdtable() {
	awk -F'\t' -v text="$2" '{ line = "|"; for (i = 1; i <= NF; i++) line = line " " $i " |"; print line }
		NR == 1 { line = "|"; for (i = 1; i <= NF; i++) line = line (i <= 2 || i == text ? "---|" : "--:|"); print line }' "$1"
}

vsnote="; vs base is the median of $((2 * RUNS + 1)) ratios of the base time over the evtools time, each from a pair of runs back to back, and base MB/s is evtools MB/s over it"
{
	echo "<!-- bench:begin -->"
	echo "Measured $(date -u +%Y-%m-%d) on $cpu, $(nproc) CPUs, $mem RAM, $(uname -s);"
	echo -n "corpora:"
	sep=
	for c in $(printf '%s\n' "${!CORPUS[@]}" | sort); do
		echo -n "$sep $c $(awk -v b="$(du -sb "${CORPUS[$c]}" | cut -f1)" 'BEGIN { printf "%.0f MB", b / 1e6 }')"
		sep=,
	done
	echo ". Median of $RUNS hyperfine runs after one warm-up; ratio is how many times faster evtools is than the peer, time ratio evtools' time over the peer's (the form of issue 14's targets)${BASE:+$vsnote}."
	echo
	mdtable "$table" 4
	echo "<!-- bench:end -->"
} >"$block"
memblock=$TMP/memblock.md
{
	echo "<!-- bench-mem:begin -->"
	echo "Measured $(date -u +%Y-%m-%d) with the table above: max RSS (/usr/bin/time -f %M) of one run."
	echo
	mdtable "$memtable" 6
	echo "<!-- bench-mem:end -->"
} >"$memblock"
if [ ! -f "$DOC" ]; then
	mkdir -p "$(dirname "$DOC")"
	cat >"$DOC" <<'EOF'
# Performance

evtools is measured side by side with jq, gojq and Miller on generated
corpora: a zot RPC stream and an envelope log made by `evgen`
(`internal/devtools/corpus`, the same bytes for the same seed), and the glasspane
envelope that `zot2gp` makes from the zot stream. Each row of
`bench/rows.tsv` is one comparison; the table below is the last run.

To rerun (installs the peers from Debian when they are missing):

    make bench                          # Go benchmarks, then this table
    BENCH_SIZE=1G bash scripts/bench.sh # only the table, on 1 GB corpora

EOF
fi
if grep -q '<!-- bench:begin -->' "$DOC"; then
	awk -v blockfile="$block" '
		/<!-- bench:begin -->/ { while ((getline line < blockfile) > 0) print line; skip = 1; next }
		/<!-- bench:end -->/ { skip = 0; next }
		!skip' "$DOC" >"$TMP/doc" && cat "$TMP/doc" >"$DOC"
else
	cat "$block" >>"$DOC"
fi
if grep -q '<!-- bench-mem:begin -->' "$DOC"; then
	awk -v blockfile="$memblock" '
		/<!-- bench-mem:begin -->/ { while ((getline line < blockfile) > 0) print line; skip = 1; next }
		/<!-- bench-mem:end -->/ { skip = 0; next }
		!skip' "$DOC" >"$TMP/doc" && cat "$TMP/doc" >"$DOC"
fi
note "$rows rows measured; table written to $DOC"
