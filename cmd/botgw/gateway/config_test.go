package gateway

import "testing"

func TestEnvExpansion(t *testing.T) {
	t.Setenv("BOTGW_TEST_SET", "value")
	t.Setenv("BOTGW_TEST_EMPTY", "")
	for in, want := range map[string]string{
		"${BOTGW_TEST_SET}":             "value",
		"${BOTGW_TEST_UNSET:-fallback}": "fallback",
		"${BOTGW_TEST_EMPTY:-fallback}": "fallback",
		"${BOTGW_TEST_EMPTY}":           "",
		"pa$$word $HOME":                "pa$$word $HOME",
	} {
		if got := expandEnv(in); got != want {
			t.Errorf("expandEnv(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDefaultProviderFromEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	if got := DefaultConfig().Provider.resolved().Kind; got != "fake" {
		t.Errorf("no key: provider %q, want fake", got)
	}
	t.Setenv("OPENAI_API_KEY", "sk-test")
	if got := DefaultConfig().Provider.resolved(); got.Kind != "openai" || got.APIKey != "sk-test" {
		t.Errorf("OPENAI_API_KEY set: provider %+v, want openai with the key", got)
	}
}
