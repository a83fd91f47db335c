#!/usr/bin/env bash
# hugeline.sh: peak memory (max RSS) of each tool on inputs with huge lines,
# against the target of issue 14: at most twice the longest line + 32 MiB;
# for zot2gp --format pi, which keeps a run's messages for its agent_end,
# issue 21's: at most three times the longest message + 32 MiB (the
# message here is the line's text).
#
#   bash scripts/hugeline.sh                     # one 200 MB line, eight of 50 MB
#   HUGE_SIZE=20000000 bash scripts/hugeline.sh  # a quick run (bytes)
#   HUGE_BASE=REV bash scripts/hugeline.sh       # also the tools of git revision REV
#
# Each tool runs as users run it (no GOGC or GOMEMLIMIT set), on a regular
# file, output to /dev/null; /usr/bin/time -f %M gives the max RSS. It
# prints a Markdown table: row, input, MiB (and MiB at REV), target MiB.
#
# Environment: HUGE_SIZE (default 200000000, the long line's length),
# HUGE_PART (default 50000000, each of the eight lines), HUGE_BASE.
set -euo pipefail

cd "$(dirname "$0")/.."
SIZE=${HUGE_SIZE:-200000000}
PART=${HUGE_PART:-50000000}
BASE=${HUGE_BASE:-}

note() { printf 'hugeline: %s\n' "$*" >&2; }
[ -x /usr/bin/time ] || { note "/usr/bin/time is required (apt-get install time)"; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/bin"
go build -o "$TMP/bin/" ./cmd/...
if [ -n "$BASE" ]; then
	note "building $BASE"
	git worktree add -q --detach "$TMP/base-src" "$BASE"
	(cd "$TMP/base-src" && go build -o "$TMP/base/" ./cmd/...)
	git worktree remove --force "$TMP/base-src"
fi

# text N: N bytes of JSON string content with escapes, no '\n'.
text() (
	set +o pipefail # yes ends on SIGPIPE
	local unit='lorem ipsum \"quoted\" \n  '
	local n=$1 reps=$(($1 / ${#unit} + 1))
	yes "$unit" | tr -d '\n' | head -c "$((reps * ${#unit}))" | head -c "$n" | sed 's/\\$/x/'
)

note "making inputs"
# envelope events: a small one, one whose payload holds a long string, a small one
envelope() { # file length count
	: >"$1"
	local i
	for ((i = 0; i < $3; i++)); do
		printf '{"seq":%d,"ts":1.5,"run_id":"r1","agent_id":"a","kind":"model_call","payload":{"step":1}}\n' $((2 * i + 1)) >>"$1"
		printf '{"seq":%d,"ts":1.6,"run_id":"r1","agent_id":"a","kind":"tool_call","payload":{"text":"' $((2 * i + 2)) >>"$1"
		text "$2" >>"$1"
		printf '"}}\n' >>"$1"
	done
	printf '{"seq":%d,"ts":1.7,"run_id":"r1","agent_id":"a","kind":"run_finished","payload":{}}\n' $((2 * $3 + 1)) >>"$1"
}
envelope "$TMP/env-1.jsonl" "$SIZE" 1
envelope "$TMP/env-8.jsonl" "$PART" 8
{
	printf '{"step":1,"type":"turn_start"}\n{"delta":"'
	text "$SIZE"
	printf '","type":"text_delta"}\n{"type":"done"}\n'
} >"$TMP/zot-1.jsonl"

mib() { echo $((($1 + 1048575) / 1048576)); }
PIPE= # when set, a file the tool reads from a pipe on stdin
rss() { # bin args...: max RSS in KiB
	local bin=$1
	shift
	local status=0
	if [ -n "$PIPE" ]; then
		/usr/bin/time -f %M -o "$TMP/rss" "$bin" "$@" < <(cat "$PIPE") >/dev/null 2>"$TMP/err" || status=$?
	else
		/usr/bin/time -f %M -o "$TMP/rss" "$bin" "$@" >"${OUT:-/dev/null}" 2>"$TMP/err" || status=$?
	fi
	rm -f "$TMP/out" "$TMP/cursor"
	if ((status > 1)); then # 1: evfilter selected nothing
		note "$bin $* exited $status: $(head -c 300 "$TMP/err")"
	fi
	tail -1 "$TMP/rss"
}

target1=$(($(mib $((2 * SIZE))) + 32))
targetpi=$(($(mib $((3 * SIZE))) + 32))
target8=$(($(mib $((2 * PART))) + 32))
head="| row | input | max RSS MiB |"
sep="|---|---|--:|"
[ -z "$BASE" ] || { head+=" at $BASE |"; sep+="--:|"; }
echo "$head target MiB |"
echo "$sep--:|"
row() { # name input target tool args...
	local name=$1 input=$2 target=$3 tool=$4
	shift 4
	local line="| $name | $input | $((($(rss "$TMP/bin/$tool" "$@") + 1023) / 1024)) |"
	if [ -n "$BASE" ]; then
		line+=" $((($(rss "$TMP/base/$tool" "$@") + 1023) / 1024)) |"
	fi
	echo "$line $target |"
}
one="one $((SIZE / 1000000)) MB line"
eight="eight $((PART / 1000000)) MB lines"
row zot2gp "zot, $one" "$target1" zot2gp --ts=stable "$TMP/zot-1.jsonl"
row "zot2gp --format bare" "zot, $one" "$target1" zot2gp --ts=stable --format bare "$TMP/zot-1.jsonl"
row "zot2gp --format pi" "zot, $one" "$targetpi" zot2gp --ts=stable --format pi "$TMP/zot-1.jsonl"
row evcursor "envelope, $one" "$target1" evcursor "$TMP/env-1.jsonl"
OUT=$TMP/out row "evcursor --state" "envelope, $one" "$target1" evcursor --state "$TMP/cursor" "$TMP/env-1.jsonl"
row "evcursor --check" "envelope, $one" "$target1" evcursor --check "$TMP/env-1.jsonl"
row "evfilter 'kind==\"tool_call\"'" "envelope, $one" "$target1" evfilter 'kind=="tool_call"' "$TMP/env-1.jsonl"
row evsum "envelope, $one" "$target1" evsum "$TMP/env-1.jsonl"
row "evfilter 'kind==\"tool_call\"' ($(nproc) cores)" "envelope, $eight" "$target8" evfilter 'kind=="tool_call"' "$TMP/env-8.jsonl"
row "evcursor ($(nproc) cores)" "envelope, $eight" "$target8" evcursor "$TMP/env-8.jsonl"
# From a pipe the line's length is not known before its end: it is gathered
# in chunks and copied once, so it is held twice at that moment.
PIPE=$TMP/zot-1.jsonl row "zot2gp (stdin a pipe)" "zot, $one" "$target1" zot2gp --ts=stable
PIPE=$TMP/zot-1.jsonl row "zot2gp --format pi (stdin a pipe)" "zot, $one" "$targetpi" zot2gp --ts=stable --format pi
PIPE=$TMP/env-1.jsonl row "evcursor (stdin a pipe)" "envelope, $one" "$target1" evcursor
