package telegram

import (
	"regexp"
	"strings"
	"testing"
)

func TestToHTML(t *testing.T) {
	tests := []struct{ name, md, want string }{
		{"plain text is escaped", "a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"},
		{"bold", "**Harrogate** and __Ripon__", "<b>Harrogate</b> and <b>Ripon</b>"},
		{"italics", "*quick* or _slow_", "<i>quick</i> or <i>slow</i>"},
		{"bold italic", "***both***", "<b><i>both</i></b>"},
		{"italic inside bold", "**go *now* please**", "<b>go <i>now</i> please</b>"},
		{"strike", "~~old~~ new", "<s>old</s> new"},
		{"inline code is escaped", "run `a<b && c`", "run <code>a&lt;b &amp;&amp; c</code>"},
		{"code with backtick", "``a`b``", "<code>a`b</code>"},
		{"fenced code with language", "```go\nif a < b {\n}\n```\n", "<pre><code class=\"language-go\">if a &lt; b {\n}</code></pre>\n"},
		{"fenced code without language", "```\nx\n```", "<pre><code>x</code></pre>\n"},
		{"markdown in code stays", "```\n**x**\n```", "<pre><code>**x**</code></pre>\n"},
		{"link", "[the map](https://example.com/a?b=1&c=\"2\")", `<a href="https://example.com/a?b=1&amp;c=&quot;2&quot;">the map</a>`},
		{"link with parens", "[wiki](https://en.wikipedia.org/wiki/Go_(game))", `<a href="https://en.wikipedia.org/wiki/Go_(game)">wiki</a>`},
		{"javascript link stays text", "[x](javascript:alert(1))", "[x](javascript:alert(1))"},
		{"heading becomes bold", "## Next stop\ntext", "<b>Next stop</b>\ntext"},
		{"lists stay text", "* one\n- two\n1. three", "* one\n- two\n1. three"},
		{"snake_case stays", "call my_var_name now", "call my_var_name now"},
		{"unclosed markers stay", "2 * 3 and **open and `tick", "2 * 3 and **open and `tick"},
		{"escaped marker", `\*not italic\*`, "*not italic*"},
		{"html in text is not html", "<b>hi</b>", "&lt;b&gt;hi&lt;/b&gt;"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, st := toHTML(tc.md, fence{})
			if got != tc.want {
				t.Errorf("toHTML(%q)\n got %q\nwant %q", tc.md, got, tc.want)
			}
			if st.open {
				t.Error("code block left open")
			}
		})
	}
}

// A code block cut in two is closed in the first part and reopened, with
// its language, in the second.
func TestToHTMLCarriesOpenBlock(t *testing.T) {
	first, st := toHTML("intro\n```py\nx = 1\n", fence{})
	if first != "intro\n<pre><code class=\"language-py\">x = 1</code></pre>\n" || !st.open || st.lang != "py" {
		t.Fatalf("first part %q, state %+v", first, st)
	}
	second, st := toHTML("y = 2\n```\nafter", st)
	if second != "<pre><code class=\"language-py\">y = 2</code></pre>\nafter" || st.open {
		t.Errorf("second part %q, state %+v", second, st)
	}
}

var tagRE = regexp.MustCompile(`<(/?)([a-z]+)[^>]*>`)

// checkTelegramHTML fails unless s is HTML Telegram accepts: only its tags,
// properly nested and closed, and no bare < > & in the text.
func checkTelegramHTML(t *testing.T, s string) {
	t.Helper()
	var stack []string
	for _, m := range tagRE.FindAllStringSubmatch(s, -1) {
		switch name := m[2]; {
		case !strings.Contains(" b i s u a code pre ", " "+name+" "):
			t.Errorf("unsupported tag <%s>", name)
		case m[1] == "":
			stack = append(stack, name)
		case len(stack) == 0 || stack[len(stack)-1] != name:
			t.Errorf("closing </%s> does not match the open tags %v", name, stack)
			return
		default:
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		t.Errorf("tags left open: %v", stack)
	}
	text := tagRE.ReplaceAllString(s, "")
	text = regexp.MustCompile(`&(amp|lt|gt|quot);`).ReplaceAllString(text, "")
	if strings.ContainsAny(text, "<>&") {
		t.Errorf("unescaped < > or & in %q", text)
	}
}

func TestToHTMLIsValid(t *testing.T) {
	inputs := []string{
		"**bold *and italic** mixed* up",
		"_a **b_ c**",
		"[link **bold](https://x.y) tail**",
		"```\nunclosed < code",
		"`a` `b ``c`` ~~d~ e~~",
		"# **Title** & <co>",
	}
	for _, in := range inputs {
		got, _ := toHTML(in, fence{})
		checkTelegramHTML(t, got)
	}
}
