package whatsapp

import "testing"

func TestFormat(t *testing.T) {
	tests := []struct{ name, md, want string }{
		{"bold", "**Harrogate Theatre** is open", "*Harrogate Theatre* is open"},
		{"underscore bold", "__50 points__", "*50 points*"},
		{"star italic", "an *old* theatre", "an _old_ theatre"},
		{"underscore italic", "an _old_ theatre", "an _old_ theatre"},
		{"bold italic", "***wow***", "*_wow_*"},
		{"italic inside bold", "**very *nice* place**", "*very _nice_ place*"},
		{"strike", "~~closed~~ open", "~closed~ open"},
		{"snake_case untouched", "call get_next_stop_id now", "call get_next_stop_id now"},
		{"arithmetic untouched", "2 * 3 * 4 = 24", "2 * 3 * 4 = 24"},
		{"unclosed star", "a *b", "a *b"},
		{"heading", "## Your next stop", "*Your next stop*"},
		{"heading with bold", "# The **big** finale #", "*The big finale*"},
		{"bullets", "* one\n- two\n  + three", "- one\n- two\n  - three"},
		{"link", "see [the map](https://x.test/map)", "see the map (https://x.test/map)"},
		{"link with its URL as text", "[https://x.test](https://x.test)", "https://x.test"},
		{"image", "![the stage](https://x.test/s.png)", "the stage (https://x.test/s.png)"},
		{"autolink", "<https://x.test/a>", "https://x.test/a"},
		{"inline code kept", "run `**not bold**` now", "run `**not bold**` now"},
		{"escaped star", `5 \* 5`, "5 * 5"},
		{"rule", "---", "───"},
		{"fenced code kept, language dropped", "```go\nx := **y**\n```\n**after**", "```\nx := **y**\n```\n*after*"},
		{"quote", "> **note** this", "> *note* this"},
		{"numbered list", "1. **first**\n2. second", "1. *first*\n2. second"},
		{"unicode", "**Café** _über_ 👍", "*Café* _über_ 👍"},
		{"blank lines kept", "a\n\n\nb", "a\n\n\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Format(tt.md); got != tt.want {
				t.Errorf("Format(%q)\n got %q\nwant %q", tt.md, got, tt.want)
			}
		})
	}
}
