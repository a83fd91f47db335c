#!/usr/bin/env bash
# ev2otlp: agent runs as OpenTelemetry traces, for Jaeger, Tempo, Langfuse and Phoenix.
source "$(dirname "$0")/lib.sh"

say 'the multi-agent run log as OTLP/JSON: one TracesData a line, as the Collector reads files (the first 400 bytes)'
run 'ev2otlp examples/events/multiagent.jsonl | cut -c1-400'

say 'each run a trace: its invoke_agent root, a subagent under it for each agent the parent started'
run 'ev2otlp examples/events/multiagent.jsonl | grep -o "\"name\":\"invoke_agent [a-z-]*\"" | sort | uniq -c'

say 'the failures: the spans with status ERROR (a failed model call, the agent and the run it stopped, a kill)'
run 'ev2otlp --batch 1 examples/events/multiagent.jsonl | grep "\"code\":2" | grep -o "\"name\":\"[a-z_]* [a-z0-9.-]*\",\"kind\""'

say 'zot2gp output of the recorded uname run: two model turns (tokens, cache, cost) and the bash call'
run 'zot2gp --ts=stable examples/zot/uname.jsonl | ev2otlp --batch 1 | grep -o "\"name\":\"[^\"]*\",\"kind\":[0-9]"'

say 'the same ids from the same log: a run exported alone has the ids it has among the others'
run 'ev2otlp examples/events/multiagent.jsonl | grep -o "\"traceId\":\"[0-9a-f]*\"" | sort -u'
run 'grep r_0001a3f2 examples/events/multiagent.jsonl | ev2otlp | grep -o "\"traceId\":\"[0-9a-f]*\"" | sort -u'

say 'a run cut off at the end of the input: closed at its last event, status unset, evtools.cut_off'
run 'head -52 examples/events/multiagent.jsonl | ev2otlp | grep -o "\"evtools.cut_off\"" | wc -l'

say 'to a receiver: --endpoint http://localhost:4318 sends the same batches (protobuf), retried on 429, 502, 503, 504 and failed connections; not run here'
