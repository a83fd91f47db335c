package evcursor_test

import (
	"testing"

	"github.com/evtools/evtools/internal/devtools/scripttest"
)

func TestMain(m *testing.M) { scripttest.RunMain(m, nil) }

func TestScripts(t *testing.T) { scripttest.Run(t, "testdata") }
