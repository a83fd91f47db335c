# evtools — see README.md. Every target works on a fresh clone with Go installed.
GO ?= go
BIN ?= bin
TOOLS := $(notdir $(wildcard cmd/*))

.PHONY: all build share install uninstall test lint demo bench fuzz mutate dist clean agents-latest

all: build

# build stamps the commit (and the version, at a v* tag) into the tools,
# as make dist does, so that --version names it even where Go's own VCS
# stamping is off (GOFLAGS=-buildvcs=false, a copy without .git). VERSION
# and COMMIT may be given: make build VERSION=1.2.3.
CLI_PKG := github.com/evtools/evtools/internal/shell/cli
VERSION ?= $(patsubst v%,%,$(shell git describe --tags --exact-match --match 'v[0-9]*' HEAD 2>/dev/null))
COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(if $(shell git status --porcelain 2>/dev/null | head -1),-dirty)
STAMP := $(if $(COMMIT),-X $(CLI_PKG).Commit=$(COMMIT)) $(if $(VERSION),-X $(CLI_PKG).Version=$(VERSION))
build:
	$(GO) build -ldflags "$(STAMP)" -o $(BIN)/ ./cmd/...

# share writes what the tools say about themselves into $(BIN)/share, laid
# out as PREFIX/share is: their man pages (TOOL --man) and evtools(7), and
# their completion scripts (TOOL --completion bash|zsh|fish). It builds the
# tools first, unless there is no go on PATH (sudo make install, after a
# make build as yourself): then it takes the tools already built.
SHARE := $(BIN)/share
share: $(if $(shell command -v $(GO) 2>/dev/null),build,$(addprefix $(BIN)/,$(TOOLS)))
	@mkdir -p $(SHARE)/man/man1 $(SHARE)/man/man7 $(SHARE)/bash-completion/completions \
		$(SHARE)/zsh/site-functions $(SHARE)/fish/vendor_completions.d
	@set -e; for t in $(TOOLS); do \
		$(BIN)/$$t --man > $(SHARE)/man/man1/$$t.1; \
		$(BIN)/$$t --completion bash > $(SHARE)/bash-completion/completions/$$t; \
		$(BIN)/$$t --completion zsh > $(SHARE)/zsh/site-functions/_$$t; \
		$(BIN)/$$t --completion fish > $(SHARE)/fish/vendor_completions.d/$$t.fish; \
	done
	@cp man/evtools.7 $(SHARE)/man/man7/evtools.7

# install puts the tools into $(DESTDIR)$(PREFIX)/bin and $(SHARE) into
# $(DESTDIR)$(PREFIX)/share: man pages where man looks, completion scripts
# where bash-completion, zsh and fish look (docs/install.md). uninstall
# removes those files and nothing else.
PREFIX ?= /usr/local
INSTALLED := $(foreach t,$(TOOLS),bin/$t share/man/man1/$t.1 share/bash-completion/completions/$t \
	share/zsh/site-functions/_$t share/fish/vendor_completions.d/$t.fish) share/man/man7/evtools.7
install: share
	@set -e; for f in $(INSTALLED); do \
		mode=644; case $$f in bin/*) mode=755;; esac; \
		mkdir -p "$(DESTDIR)$(PREFIX)/$$(dirname $$f)"; \
		src=$(SHARE)/$${f#share/}; case $$f in bin/*) src=$(BIN)/$${f#bin/};; esac; \
		echo "install $(DESTDIR)$(PREFIX)/$$f"; \
		install -m $$mode "$$src" "$(DESTDIR)$(PREFIX)/$$f"; \
	done

uninstall:
	@set -e; for f in $(INSTALLED); do \
		if [ -e "$(DESTDIR)$(PREFIX)/$$f" ]; then echo "rm $(DESTDIR)$(PREFIX)/$$f"; rm -f "$(DESTDIR)$(PREFIX)/$$f"; fi; \
	done

# The tests that SIGKILL evcursor at timed moments also run without the
# race detector, which slows every child process tenfold.
# A race-built program sleeps a second before it exits (GORACE's
# atexit_sleep_ms); the tests start the tools as such programs hundreds of
# times, so the sleep is turned off. Race reports still fail the test.
test:
	$(GO) vet ./...
	GORACE="$${GORACE:-atexit_sleep_ms=0}" $(GO) test -race ./...
	$(GO) test -count=1 -run 'Kill' ./internal/filters/cursor ./internal/filters/evcursor ./internal/devtools/e2e

# lint runs go vet, checks that gofmt has nothing to change, and runs
# staticcheck at a pinned version (go run fetches and builds it on first use,
# then reuses the build cache; nothing to install by hand).
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint:
	$(GO) vet ./...
	@unformatted=$$("$$($(GO) env GOROOT)/bin/gofmt" -l .); \
	if [ -n "$$unformatted" ]; then echo "gofmt -l: not formatted:"; echo "$$unformatted"; exit 1; fi
	$(GO) run $(STATICCHECK) ./...

# demo runs the main jobs on the shipped examples, one script a tool: each
# command is shown exactly as it runs (from the repository root), and an
# output line wider than DEMO_WIDTH (120) is cut with a visible "…".
demo: build
	@set -e; for s in scripts/demo/[0-9]*.sh; do \
		echo "== $$s"; PATH="$(CURDIR)/$(BIN):$$PATH" bash "$$s"; echo; \
	done

# bench runs the Go benchmarks, then the side-by-side comparison with jq,
# gojq and Miller (installed from Debian when missing), then the peak
# memory of each tool on lines of 50 and 200 MB (scripts/hugeline.sh).
bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...
	bash scripts/bench.sh
	bash scripts/hugeline.sh
	bash scripts/bench-archive.sh

# fuzz runs every fuzz target for FUZZTIME each. Each input that finds
# new code is minimized for at most FUZZMINIMIZE: Go's default, a minute,
# spent whole on the large seeds of the converters' targets (whole logs),
# left them a few dozen runs in 30 s.
FUZZTIME ?= 30s
FUZZMINIMIZE ?= 2s
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$f"; $(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE) $$pkg; \
		done; \
	done

# mutate runs gremlins on every package, one at a time, and fails when a
# package's test efficacy is under 85%.
mutate:
	bash scripts/mutate.sh

# agents-latest runs the agents' e2e tests (issue 33) against the newest
# version of each agent on npm instead of the pinned one
# (EVTOOLS_AGENTS=latest), then prints what changed: the version run,
# the drift lines (a record type evimport does not know, with its
# records' members; tokens that no longer equal the script's; anything
# else evimport said), and each test's verdict; the whole log is kept.
# Not part of make test: it needs the registry, and a new release may
# fail it.
AGENT_TESTS ?= TestClaudeCode|TestPiAgent|TestCodex|TestGeminiCLI|TestCopilotCLI|TestOpencode|TestQwenCode
agents-latest:
	@mkdir -p $(BIN)
	@EVTOOLS_AGENTS=latest $(GO) test -count=1 -v -timeout 30m -run '^($(AGENT_TESTS))$$' ./internal/devtools/e2e > $(BIN)/agents-latest.log 2>&1; \
	status=$$?; \
	grep -E 'agent .* tested at|: drift: |^\s*--- (FAIL|PASS|SKIP)' $(BIN)/agents-latest.log | \
		sed -E 's/^\s*[a-z_]+_test\.go:[0-9]+: (drift: )?//'; \
	echo "the whole log: $(BIN)/agents-latest.log"; exit $$status

# dist cross-compiles every tool for linux, darwin and freebsd (amd64,
# arm64) and windows (amd64), with the version and commit stamped in, into
# dist/: one archive per target (the tools, their man pages and completion
# scripts, README, LICENSE) and SHA256SUMS (docs/platforms.md).
dist:
	GO="$(GO)" bash scripts/dist.sh

clean:
	rm -rf $(BIN) dist
