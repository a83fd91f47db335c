// Command evversion is a tool with only --help and --version, built by
// TestVersionNamesTheCommit the way a release is built from a checkout.
package main

import (
	"github.com/evtools/evtools/internal/shell/cli"
)

func main() {
	cli.Exec(func(args []string, stdio cli.Stdio) int {
		var opts struct {
		}
		return cli.Report("evversion", stdio.Err, cli.Parse(cli.Tool{Name: "evversion"}, args, stdio, &opts))
	})
}
