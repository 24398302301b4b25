package gateway

import (
	"os"
	"testing"
)

// FuzzConfig feeds config files to the loader and the validator, seeded
// with config.example.yaml. A file decodes or fails with key paths;
// Validate never panics on what decoded.
func FuzzConfig(f *testing.F) {
	example, err := os.ReadFile("../../../config.example.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(example))
	f.Add("listen: \"127.0.0.1:8080\"\nchannels:\n  web: {allowed_origins: [\"https://a.example\"], token: t}\n")
	f.Add("limits: {max_input_chars: -1}\nchannels: {telegram: {mode: polling}}\n")
	f.Add("provider: {fallback: {fallback: {kind: x}}}\n")
	f.Add("tools: [{name: t, url: 'http://x', parameters: {type: object}}]\n")
	f.Fuzz(func(t *testing.T, src string) {
		cfg := DefaultConfig()
		cfg.Channels.Web = nil
		_ = decodeYAML(expandEnv(src), &cfg)
		_ = cfg.Validate()
	})
}
