#!/usr/bin/env bash
# dist.sh: the release archives of make dist, one per machine people use.
#
#   make dist                                          # every target, into dist/
#   DIST_TARGETS="linux/amd64 windows/amd64" bash scripts/dist.sh
#
# Each target's archive, evtools-VERSION-OS-ARCH.tar.gz (.zip for Windows),
# holds one folder laid out as make install lays out PREFIX, so that
# `tar -xzf ARCHIVE --strip-components=1 -C /usr/local` installs it:
#
#   bin/                    the four tools (.exe on Windows): CGO_ENABLED=0,
#                           -trimpath, with the version and commit stamped
#                           in (TOOL --version)
#   share/man/man1, man7    their man pages and evtools(7)
#   share/bash-completion/completions, share/zsh/site-functions,
#   share/fish/vendor_completions.d    their completion scripts
#   README.md LICENSE
#
# and DIST_DIR/SHA256SUMS checks them all (sha256sum -c SHA256SUMS). The
# man pages and completion scripts are what the host's tools print
# (make share); a tree whose tools cannot print them yet gets archives
# without share/ and a note saying so. Entries are sorted, owned by root
# and dated at the commit, so that one commit gives the same archives.
#
# Environment: DIST_DIR (default dist), DIST_TARGETS (default: all of
# TARGETS below), VERSION (default: the v* tag at HEAD without its v, else
# the source's cli.Version), COMMIT (default: the first 12 hex digits of
# HEAD, with -dirty when the checkout has changes), SOURCE_DATE_EPOCH
# (default: the commit's time).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
GO=${GO:-go}
# Every target make dist builds; internal/devtools/e2e/dist_test.go
# type-checks each of them in make test.
TARGETS="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 freebsd/amd64 freebsd/arm64 windows/amd64"
DIST_DIR=${DIST_DIR:-dist}
DIST_TARGETS=${DIST_TARGETS:-$TARGETS}
CLI=github.com/evtools/evtools/internal/shell/cli

note() { printf 'dist: %s\n' "$*" >&2; }

for t in $DIST_TARGETS; do
	case " $TARGETS " in *" $t "*) ;; *) note "unknown target $t (known: $TARGETS)"; exit 2 ;; esac
done

# --- what is built ----------------------------------------------------------
if git rev-parse --git-dir >/dev/null 2>&1; then
	if [ -z "${VERSION:-}" ] && tag=$(git describe --tags --exact-match --match 'v[0-9]*' HEAD 2>/dev/null); then
		VERSION=${tag#v}
	fi
	if [ -z "${COMMIT:-}" ]; then
		COMMIT=$(git rev-parse --short=12 HEAD)
		if [ -n "$(git status --porcelain)" ]; then
			COMMIT+=-dirty
			note "the checkout has changes: the builds say $COMMIT"
		fi
	fi
	SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct HEAD)}
else
	note "not a git checkout: no commit stamped"
fi
COMMIT=${COMMIT:-}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(date +%s)}
LDFLAGS="-s -w"
[ -z "$COMMIT" ] || LDFLAGS+=" -X $CLI.Commit=$COMMIT"
[ -z "${VERSION:-}" ] || LDFLAGS+=" -X $CLI.Version=$VERSION"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# --- the host's tools: the version, man pages and completions ---------------
# make share builds the tools for this machine and has them write share/.
# The version and commit go to make build as they go to the archives'
# tools, so that the man pages name the release the archives carry.
SHARE=
if make -s share BIN="$WORK/host" GO="$GO" VERSION="${VERSION:-}" COMMIT="$COMMIT" >"$WORK/share.log" 2>&1; then
	SHARE=$WORK/host/share
else
	"$GO" build -o "$WORK/host/" ./cmd/...
	note "NOTE: the archives have no man pages or completion scripts: make share failed"
	note "(the tools cannot print them yet?):"
	sed 's/^/dist:   /' "$WORK/share.log" >&2
fi
if [ -z "${VERSION:-}" ]; then
	VERSION=$("$WORK/host/evsum" --version | awk '{print $2}')
fi
"$GO" build -o "$WORK/dist" ./internal/devtools/dist

# --- one archive per target -------------------------------------------------
mkdir -p "$DIST_DIR"
rm -f "$DIST_DIR"/evtools-*.tar.gz "$DIST_DIR"/evtools-*.zip "$DIST_DIR/SHA256SUMS"
archives=()
for t in $DIST_TARGETS; do
	os=${t%/*} arch=${t#*/}
	name=evtools-$VERSION-$os-$arch
	stage=$WORK/stage/$name
	mkdir -p "$stage/bin"
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$GO" build -trimpath -ldflags "$LDFLAGS" -o "$stage/bin/" ./cmd/...
	[ -z "$SHARE" ] || cp -R "$SHARE" "$stage/share"
	# what README.md and the man pages point to: docs/ and examples/
	cp -R README.md LICENSE docs examples "$stage/"
	ext=tar.gz
	[ "$os" != windows ] || ext=zip
	"$WORK/dist" archive -mtime "$SOURCE_DATE_EPOCH" "$DIST_DIR/$name.$ext" "$stage"
	archives+=("$DIST_DIR/$name.$ext")
	note "$DIST_DIR/$name.$ext"
done
"$WORK/dist" sums "$DIST_DIR/SHA256SUMS" "${archives[@]}"
if [ -n "$COMMIT" ] && [ "${COMMIT%-dirty}" = "$COMMIT" ] && [ -n "$(git status --porcelain 2>/dev/null)" ]; then
	note "WARNING: the checkout changed while the tools were built: they may hold changes not in $COMMIT"
fi
note "$DIST_DIR/SHA256SUMS: evtools $VERSION${COMMIT:+ ($COMMIT)}, archives: ${#archives[@]}"
