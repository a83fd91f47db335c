# Sourced by the demo scripts: run shows each command exactly as it runs
# it, from the repository root, then its output (stdout and stderr). A line
# wider than DEMO_WIDTH characters is cut, and the cut is shown as "…": the
# commands themselves are never shortened or changed. A command that fails
# is followed by its exit status.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
DEMO_WIDTH=${DEMO_WIDTH:-120}

clip() {
	perl -CSD -ne 'chomp; print length($_) > $ENV{DEMO_WIDTH} ? substr($_, 0, $ENV{DEMO_WIDTH} - 1) . "\x{2026}\n" : "$_\n"'
}

# run CMD: print "$ CMD", run it, print its output clipped.
run() {
	printf '$ %s\n' "$1"
	eval "$1" 2>&1 | clip
	local st=${PIPESTATUS[0]}
	if [ "$st" != 0 ]; then echo "(exit $st)"; fi
}

# setup CMD: print "$ CMD" and run it in this shell (cd, variables, files).
setup() {
	printf '$ %s\n' "$1"
	eval "$1"
}

# say TEXT: a comment between the commands.
say() { printf '\n# %s\n' "$*"; }
export DEMO_WIDTH
