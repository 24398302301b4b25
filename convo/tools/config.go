package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Config declares one tool backed by an HTTP endpoint of the game's
// backend (config key tools[i]).
type Config struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// Parameters is the JSON Schema of the arguments, an object schema.
	// Empty: the tool takes no arguments.
	Parameters map[string]any    `yaml:"parameters"`
	URL        string            `yaml:"url"`
	Method     string            `yaml:"method"`  // POST (default), PUT, PATCH or GET
	Headers    map[string]string `yaml:"headers"` // e.g. Authorization: "Bearer ${GAME_API_TOKEN}"
	Timeout    time.Duration     `yaml:"timeout"` // default 10s
}

// toolName is what both OpenAI and Anthropic accept as a function name.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Validate checks tool declarations; each error starts with its key
// path ("tools[1].url: ...").
func Validate(tools []Config) error {
	var errs []error
	seen := map[string]bool{}
	for i, t := range tools {
		key := fmt.Sprintf("tools[%d]", i)
		bad := func(field, format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s.%s: %s", key, field, fmt.Sprintf(format, args...)))
		}
		switch {
		case !toolName.MatchString(t.Name):
			bad("name", "want 1 to 64 letters, digits, _ or -, got %q", t.Name)
		case seen[t.Name]:
			bad("name", "%q is declared twice", t.Name)
		}
		seen[t.Name] = true
		if u, err := url.Parse(t.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("url", "want an absolute http(s) URL, got %q", t.URL)
		}
		if !slices.Contains([]string{"GET", "POST", "PUT", "PATCH"}, t.method()) {
			bad("method", "want POST, PUT, PATCH or GET, got %q", t.Method)
		}
		if t.Timeout < 0 {
			bad("timeout", "must not be negative")
		}
		if err := checkSchema(t.Parameters); err != nil {
			bad("parameters", "%v", err)
		}
		for h, v := range t.Headers {
			if h == "" || strings.ContainsAny(h, " :\r\n") || strings.ContainsAny(v, "\r\n") {
				bad("headers."+h, "not a valid HTTP header")
			}
		}
	}
	return errors.Join(errs...)
}

// checkSchema accepts an empty schema or a JSON-encodable object schema.
func checkSchema(p map[string]any) error {
	if len(p) == 0 {
		return nil
	}
	if p["type"] != "object" {
		return fmt.Errorf("want a JSON Schema with type: object, got type %v", p["type"])
	}
	if props, ok := p["properties"]; ok {
		if _, isMap := props.(map[string]any); !isMap {
			return errors.New("properties must be a map of argument names to schemas")
		}
	}
	if _, err := json.Marshal(p); err != nil {
		return fmt.Errorf("not expressible as JSON: %v", err)
	}
	return nil
}

func (t Config) method() string {
	if t.Method == "" {
		return http.MethodPost
	}
	return strings.ToUpper(t.Method)
}

func (t Config) timeout() time.Duration {
	if t.Timeout <= 0 {
		return DefaultTimeout
	}
	return t.Timeout
}

// schema is the parameters schema, an empty object schema when none.
func (t Config) schema() map[string]any {
	if len(t.Parameters) == 0 {
		return map[string]any{"type": "object", "properties": map[string]any{}}
	}
	return t.Parameters
}
