// Command ev2otlp writes agent runs as OpenTelemetry traces (OTLP/JSON),
// or sends them to an OTLP/HTTP receiver. See docs/ev2otlp.md.
package main

import (
	"github.com/evtools/evtools/internal/shell/cli"
	"github.com/evtools/evtools/internal/views/ev2otlp"
)

func main() { cli.Exec(ev2otlp.Main) }
