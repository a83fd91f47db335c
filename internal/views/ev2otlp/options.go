package ev2otlp

import (
	"time"

	"github.com/evtools/evtools/internal/filters/redact"
	"github.com/evtools/evtools/internal/shell/cli"
)

// The command's name, the prefix of its messages.
const name = "ev2otlp"

// options are ev2otlp's flags and arguments.
type options struct {
	Content  bool          `name:"content" help:"Add each tool call's arguments and result to its span (gen_ai.tool.call.arguments, gen_ai.tool.call.result). Off by default, as the GenAI conventions ask: they may hold anything the agent read. --redact applies to them."`
	Service  string        `name:"service" placeholder:"NAME" help:"The service.name of the traces (default: $OTEL_SERVICE_NAME, else the events' source, as evimport writes it, else evtools)."`
	Batch    int           `name:"batch" default:"512" placeholder:"N" help:"Spans a line (or a request) holds at most; a line is also written when the input pauses. Default: ${default}."`
	Endpoint string        `name:"endpoint" placeholder:"URL" help:"Send the traces to the OTLP/HTTP receiver at URL instead of writing them: a URL without a path gets /v1/traces (http://localhost:4318). The spans sent, refused and not sent are counted on stderr."`
	Protocol string        `name:"protocol" enum:"protobuf,json" default:"protobuf" placeholder:"PROTOCOL" help:"With --endpoint, the requests' encoding: protobuf (what every receiver takes) or json. Default: ${default}."`
	Header   []string      `name:"header" short:"H" placeholder:"NAME:VALUE" sep:"none" help:"With --endpoint, a header of every request, as NAME:VALUE or NAME=VALUE (Authorization=Basic ..., for Langfuse). May be repeated."`
	Timeout  time.Duration `name:"timeout" default:"10s" placeholder:"DURATION" help:"With --endpoint, how long one request may take. Default: ${default}."`
	Retries  int           `name:"retries" default:"5" placeholder:"N" help:"With --endpoint, how many times a request is tried again after a 429, 502, 503 or 504 or a failed connection, waiting 1s, 2s, 4s... (or what Retry-After says) between. Default: ${default}."`

	redact.Flags `embed:""`
	cli.Input    `embed:""`
}

// Main runs ev2otlp with args (without the program name) on stdio and
// returns the exit status.
func Main(args []string, stdio cli.Stdio) int { return cli.Run(tool, args, stdio, export) }

var tool = cli.Tool{
	Name: name,
	Env: []cli.EnvVar{
		{Name: "OTEL_SERVICE_NAME", Text: "The service.name of the traces when --service does not say it, as in every OpenTelemetry SDK."},
		{Name: "OTEL_EXPORTER_OTLP_HEADERS", Text: "With --endpoint, headers of every request, as the OpenTelemetry exporters read them: NAME=VALUE pairs separated by commas, the values URL-encoded. A --header of the same name wins. Keeps a key off the command line, where ps shows it."},
		{Name: "OTEL_EXPORTER_OTLP_TRACES_HEADERS", Text: "The same, for traces only; it wins over OTEL_EXPORTER_OTLP_HEADERS."},
	},
	Summary: "Write agent runs as OpenTelemetry traces (OTLP/JSON), or send them to an OTLP receiver.",
	Files:   "Envelope event files to read (- for stdin; gzip and zstd are recognised; a folder is an archive evimport --archive wrote): zot2gp's, evimport's or a run log. Default: stdin.",
	Details: `
Reads envelope events in any vocabulary evtools knows (zot2gp's glasspane
kinds, a multi-agent run log, evimport's output) and writes each run as a
trace that follows OpenTelemetry's GenAI semantic conventions: the run is
an invoke_agent span, each model call a chat span (tokens, cache tokens,
finish reasons, cost as evtools.cost_usd), each tool call an execute_tool
span, each subagent an invoke_agent span under the call that spawned it;
guardrails, kills, retries and errors are span events. docs/formats.md has
the whole mapping.

The output is the OTLP file format: one TracesData object a line, as the
OpenTelemetry Collector's otlpjsonfile receiver reads it. A span is
written once it ends, with the others that ended since the last line, at
most --batch spans a line; a run still open at the end of the input is
closed at its last event with status unset and evtools.cut_off true. Ids
are made from the run id and the events' seq, so the same log gives the
same traces, and a backend sent a run twice keeps one.

With --endpoint the same batches go to an OTLP/HTTP receiver (Jaeger,
Tempo, Langfuse, Phoenix, a Collector) instead, each a request retried
with backoff on 429, 502, 503 and 504 and on a failed connection (said
once on stderr), as OTLP/HTTP says; any other refusal is not retried.`,
	Examples: `
ev2otlp events.jsonl > traces.jsonl                 # the Collector's otlpjsonfile receiver reads it
zot --rpc | zot2gp | ev2otlp --endpoint http://localhost:4318   # live, into Jaeger
evimport ~/.codex/sessions | ev2otlp --endpoint http://localhost:4318
evimport | ev2otlp --endpoint https://cloud.langfuse.com/api/public/otel \
  --header "Authorization=Basic $(printf %s "$LANGFUSE_PUBLIC_KEY:$LANGFUSE_SECRET_KEY" | base64 -w0)"
ev2otlp --content --redact events.jsonl > traces.jsonl   # with tool arguments and results, secrets out
ev2otlp --service my-agent --batch 100 events.jsonl`,
	Exit: `
0  every run written (or sent, and accepted)
1  the receiver refused spans or could not be reached (the counts of
   spans sent, refused and not sent are on stderr)
2  usage error, an unreadable input, or bad input lines (reported as
   ev2otlp: FILE:LINE: reason; the rest is still converted)
130, 143  stopped by SIGINT or SIGTERM`,
}
