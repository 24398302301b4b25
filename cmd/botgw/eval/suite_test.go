package eval

import (
	"path/filepath"
	"testing"
)

func TestTheDocsExampleSuiteLoads(t *testing.T) {
	suites, err := Load([]string{filepath.Join("..", "..", "..", "docs", "examples", "eval")})
	if err != nil {
		t.Fatal(err)
	}
	if len(suites) != 1 || len(suites[0].Conversations) != 2 || len(suites[0].Conversations[0].Steps) != 4 {
		t.Errorf("docs/examples/eval: %+v", suites)
	}
}
