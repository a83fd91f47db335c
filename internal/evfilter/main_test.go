package evfilter_test

import (
	"testing"

	"github.com/evtools/evtools/internal/scripttest"
	"github.com/evtools/evtools/internal/evfilter"
	"github.com/evtools/evtools/internal/zot2gp"
)

func TestMain(m *testing.M) {
	scripttest.RunMain(m, map[string]scripttest.Main{"evfilter": evfilter.Main, "zot2gp": zot2gp.Main})
}

func TestScripts(t *testing.T) { scripttest.Run(t, "testdata") }
