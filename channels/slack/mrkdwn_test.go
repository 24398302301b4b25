package slack

import "testing"

func TestMrkdwn(t *testing.T) {
	tests := []struct{ name, md, want string }{
		{"bold", "a **big** deal", "a *big* deal"},
		{"underscore bold", "a __big__ deal", "a *big* deal"},
		{"star italic", "an *odd* one", "an _odd_ one"},
		{"underscore italic", "an _odd_ one", "an _odd_ one"},
		{"italic inside bold", "**very *odd***", "*very _odd_*"},
		{"strike", "~~gone~~", "~gone~"},
		{"link", "see [the map](https://example.com/map?a=1&b=2)", "see <https://example.com/map?a=1&amp;b=2|the map>"},
		{"image becomes a link", "![stage](https://example.com/s.png)", "<https://example.com/s.png|stage>"},
		{"autolink", "<https://example.com>", "<https://example.com>"},
		{"escapes text", "5 < 6 & 7 > 3", "5 &lt; 6 &amp; 7 &gt; 3"},
		{"escapes link text", "[a<b](https://x.io)", "<https://x.io|a&lt;b>"},
		{"heading", "## Opening *hours*", "*Opening _hours_*"},
		{"heading with bold", "# **Menu**", "*Menu*"},
		{"bullets", "- one\n* two\n  + three", "• one\n• two\n  • three"},
		{"quote marker kept", "> said *it*", "> said _it_"},
		{"code span kept", "run `a*b*c <x>`", "run `a*b*c &lt;x&gt;`"},
		{"fence kept, language dropped", "```go\nx := a**b < c\n```", "```\nx := a**b &lt; c\n```"},
		{"snake_case untouched", "call get_the_map now", "call get_the_map now"},
		{"lone stars untouched", "2 * 3 * 4", "2 * 3 * 4"},
		{"unclosed bold untouched", "**open", "**open"},
		{"unicode around emphasis", "é *ü* ß", "é _ü_ ß"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := mrkdwn(tc.md); got != tc.want {
				t.Errorf("mrkdwn(%q) = %q, want %q", tc.md, got, tc.want)
			}
		})
	}
}

func TestCleanText(t *testing.T) {
	tests := []struct{ text, want string }{
		{"<@U0BOTUSER1> /reset", "/reset"},
		{"  <@U0BOTUSER1>   hello", "hello"},
		{"<@U0OTHER> is here", "<@U0OTHER> is here"},
		{"fish &amp; chips &lt;3", "fish & chips <3"},
	}
	for _, tc := range tests {
		if got := cleanText(tc.text, botUserID); got != tc.want {
			t.Errorf("cleanText(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
