package botgw

import (
	"strings"
	"testing"
)

func TestOfferValidate(t *testing.T) {
	ten := []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}
	cases := []struct {
		name    string
		choices []string
		want    string // "" for valid, else the start of the error
	}{
		{"none", nil, ""},
		{"ten", ten, ""},
		{"64 characters, multi-byte", []string{strings.Repeat("é", 64)}, ""},
		{"eleven", append(ten, "11"), "choices: at most 10 choices, got 11"},
		{"65 characters", []string{"ok", strings.Repeat("a", 65)}, "choices[1]: label longer than 64 characters"},
		{"empty", []string{""}, "choices[0]: empty label"},
		{"blank", []string{"ok", "  "}, "choices[1]: empty label"},
		{"newline", []string{"a\nb"}, "choices[0]: label must be one line"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Offer{Choices: c.choices}.Validate("choices")
			switch {
			case c.want == "" && err != nil:
				t.Errorf("Validate: %v, want valid", err)
			case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
				t.Errorf("Validate: %v, want an error starting %q", err, c.want)
			}
		})
	}
}
