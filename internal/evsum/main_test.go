package evsum_test

import (
	"testing"

	"github.com/evtools/evtools/internal/scripttest"
	"github.com/evtools/evtools/internal/evsum"
)

func TestMain(m *testing.M) {
	scripttest.RunMain(m, map[string]scripttest.Main{"evsum": evsum.Main})
}

func TestScripts(t *testing.T) { scripttest.Run(t, "testdata") }
