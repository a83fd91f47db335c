#!/usr/bin/env bash
# mutate.sh: mutation testing with gremlins, one package at a time, and a
# table of test efficacy (killed / (killed + lived)) per package.
#
#   bash scripts/mutate.sh                    # every package with tests
#   bash scripts/mutate.sh ./internal/filters/expr    # some
#
# A package below MUTATE_MIN (default 85) percent makes the run fail.
# A surviving mutant that no test can kill (an equivalent mutant) is named
# in a comment at its line, starting "equivalent mutant:".
set -euo pipefail
cd "$(dirname "$0")/.."
GREMLINS=${GREMLINS:-github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0}
MIN=${MUTATE_MIN:-85}
WORKERS=${MUTATE_WORKERS:-$(nproc)}
pkgs=("$@")
if ((${#pkgs[@]} == 0)); then
	# every package with tests of its own, but the test helpers and the
	# end-to-end tests (which mutate nothing of their own)
	mapfile -t pkgs < <(go list -f '{{if or .TestGoFiles .XTestGoFiles}}./{{.Dir}}{{end}}' ./... |
		sed "s#\./$PWD/#./#" | grep -v -e '/e2e$' -e '/scripttest$' -e '/tools$')
fi
# gremlins sets each mutant's time limit from its first test run; a run
# answered from Go's test cache is so short that mutants time out instead of
# being killed or living, so every run here really runs.
export GOFLAGS="${GOFLAGS:-} -count=1"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
printf '%-28s %8s %6s %6s %9s\n' package efficacy killed lived uncovered >"$out/table"
for p in "${pkgs[@]}"; do
	echo "== $p" >&2
	go run "$GREMLINS" unleash --workers "$WORKERS" --timeout-coefficient 3 -S lt "$p" >"$out/log" 2>&1 || true
	cat "$out/log" >&2
	killed=$(sed -n 's/^Killed: \([0-9]*\),.*/\1/p' "$out/log")
	lived=$(sed -n 's/.*Lived: \([0-9]*\),.*/\1/p' "$out/log")
	uncovered=$(sed -n 's/.*Not covered: \([0-9]*\).*/\1/p' "$out/log")
	eff=$(sed -n 's/^Test efficacy: \([0-9.]*\)%.*/\1/p' "$out/log")
	if [ -z "$killed" ]; then
		printf '%-28s %8s\n' "$p" "no result" >>"$out/table"
		fail=1
		continue
	fi
	printf '%-28s %7s%% %6s %6s %9s\n' "$p" "${eff:-100}" "$killed" "$lived" "$uncovered" >>"$out/table"
	if awk -v e="${eff:-100}" -v m="$MIN" 'BEGIN { exit !(e < m) }'; then
		fail=1
	fi
done
cat "$out/table"
if ((fail)); then
	echo "mutate: a package is below $MIN% test efficacy" >&2
	exit 1
fi
