package evimport_test

import (
	"testing"

	"github.com/evtools/evtools/internal/scripttest"
)

func TestMain(m *testing.M) { scripttest.RunMain(m, nil) }

// The golden scripts of testdata: fixtures written for the project in
// each agent's format (invented sessions, never copies of real ones).
func TestScripts(t *testing.T) { scripttest.Run(t, "testdata") }
