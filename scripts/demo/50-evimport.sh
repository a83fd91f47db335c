#!/usr/bin/env bash
# evimport: the session logs of Claude Code, Codex, pi, Gemini CLI and Copilot CLI as envelope events.
source "$(dirname "$0")/lib.sh"

say 'examples/agents holds small sessions of each agent, laid out as each keeps them'
run 'find examples/agents -type f | sort'

say 'every session under a folder, summarised per agent: a run per prompt, tokens counted once (stderr says what was not priced or not known)'
run 'evimport examples/agents | evsum --by source --format table --width 100'

say 'the source of each session is told by its content: one file is enough'
run 'evimport examples/agents/codex/sessions/2026/03/06/*.jsonl | evsum --by run --format table --width 100'

say 'a Claude Code subagent is an agent of the run that spawned it'
run 'evimport examples/agents/claude/projects/-home-ana-src-api | evsum --by agent --format table --width 100'

say 'the tool calls of every session, with evfilter: what each agent ran'
run "evimport examples/agents | evfilter -c 'kind==\"tool_call\"'"

say 'on a terminal (or with --format pretty) a session reads as a transcript'
run 'evimport --format pretty examples/agents/gemini/tmp/shop/chats/*.jsonl'

