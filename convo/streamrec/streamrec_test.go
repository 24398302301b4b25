package streamrec

import "testing"

func TestOperatorAgent(t *testing.T) {
	for who, want := range map[string]string{
		"":                "operator",
		"admin-api":       "operator",
		"admin-api (ana)": "operator:ana",
		"telegram:123":    "operator:123",
		"ana":             "operator:ana",
	} {
		if got := OperatorAgent(who); got != want {
			t.Errorf("OperatorAgent(%q) = %q, want %q", who, got, want)
		}
	}
}
