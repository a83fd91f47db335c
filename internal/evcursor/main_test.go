package evcursor_test

import (
	"testing"

	"github.com/evtools/evtools/internal/scripttest"
	"github.com/evtools/evtools/internal/evcursor"
)

func TestMain(m *testing.M) {
	scripttest.RunMain(m, map[string]scripttest.Main{"evcursor": evcursor.Main})
}

func TestScripts(t *testing.T) { scripttest.Run(t, "testdata") }
