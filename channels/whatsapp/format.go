package whatsapp

import (
	"regexp"
	"strings"
)

var (
	headingRe = regexp.MustCompile(`^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$`)
	bulletRe  = regexp.MustCompile(`^([ \t]*)[*+-][ \t]+(.*)$`)
	ruleRe    = regexp.MustCompile(`^ {0,3}([-*_])( *[-*_]){2,} *$`)
)

// Format converts the Markdown a model writes to WhatsApp formatting:
// **bold** and __bold__ → *bold*, *italic* and _italic_ → _italic_,
// ~~strike~~ → ~strike~, headings → *bold* lines, bullets → "- ",
// [text](url) → text (url). Code (fenced blocks and `spans`) is kept
// verbatim; a fence's language tag is dropped.
func Format(md string) string {
	lines := strings.Split(md, "\n")
	inCode := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "```") {
			lines[i] = fence(l, inCode)
			inCode = !inCode
			continue
		}
		if !inCode {
			lines[i] = formatLine(l)
		}
	}
	return strings.Join(lines, "\n")
}

// fence keeps a code fence but drops the opening fence's language tag,
// which WhatsApp would show as text.
func fence(l string, closing bool) string {
	t := strings.TrimLeft(l, " ")
	if closing || strings.Count(t, "```") > 1 {
		return l
	}
	return l[:len(l)-len(t)] + "```"
}

func formatLine(l string) string {
	if m := headingRe.FindStringSubmatch(l); m != nil {
		title := strings.NewReplacer("**", "", "__", "").Replace(m[1])
		return "*" + inline(title) + "*"
	}
	if ruleRe.MatchString(l) {
		return "───"
	}
	if m := bulletRe.FindStringSubmatch(l); m != nil {
		return m[1] + "- " + inline(m[2])
	}
	return inline(l)
}

// inline converts the emphasis, strike-through and links of one line.
func inline(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		n, out := token(s, i)
		if n == 0 {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteString(out)
		i += n
	}
	return b.String()
}

// token recognises a construct starting at s[i]: it returns the bytes it
// consumed and their WhatsApp form, or 0 when s[i] is plain text.
func token(s string, i int) (int, string) {
	rest := s[i:]
	switch {
	case rest[0] == '\\' && len(rest) > 1 && strings.IndexByte("\\`*_~[]()#", rest[1]) >= 0:
		return 2, rest[1:2]
	case rest[0] == '`':
		return codeSpan(rest)
	case strings.HasPrefix(rest, "**"), strings.HasPrefix(rest, "__"):
		return emphasis(s, i, rest[:2], "*")
	case strings.HasPrefix(rest, "~~"):
		return emphasis(s, i, "~~", "~")
	case rest[0] == '*', rest[0] == '_':
		return emphasis(s, i, rest[:1], "_")
	case rest[0] == '[', strings.HasPrefix(rest, "!["):
		return mdLink(rest)
	case rest[0] == '<':
		return autolink(rest)
	}
	return 0, ""
}

// codeSpan keeps `code` verbatim, up to the matching run of backticks.
func codeSpan(rest string) (int, string) {
	run := len(rest) - len(strings.TrimLeft(rest, "`"))
	end := strings.Index(rest[run:], rest[:run])
	if end < 0 {
		return run, rest[:run]
	}
	n := run + end + run
	return n, rest[:n]
}

// emphasis converts delim…delim at s[i] to mark…mark, following Markdown's
// flanking rules: the opener is followed and the closer preceded by a
// non-space, and _ does not open or close inside a word (snake_case).
func emphasis(s string, i int, delim, mark string) (int, string) {
	from := i + len(delim)
	if from >= len(s) || isSpace(s[from]) || (delim[0] == '_' && i > 0 && isWord(s[i-1])) {
		return 0, ""
	}
	j := closer(s, from, delim)
	if j < 0 {
		return 0, ""
	}
	return j + len(delim) - i, mark + inline(s[from:j]) + mark
}

// closer finds the delimiter closing an emphasis opened before s[from].
func closer(s string, from int, delim string) int {
	for j := from + 1; j+len(delim) <= len(s); j++ {
		switch {
		case s[j] == '\\':
			j++
		case s[j] == '`':
			n, _ := codeSpan(s[j:])
			j += n - 1
		case !strings.HasPrefix(s[j:], delim), isSpace(s[j-1]):
		case len(delim) == 1 && j+1 < len(s) && s[j+1] == delim[0]:
			j++ // part of a double delimiter: not ours
		case len(delim) == 2 && j+2 < len(s) && s[j+2] == delim[0]:
			// a longer run: close at its end
		case delim[0] == '_' && j+len(delim) < len(s) && isWord(s[j+len(delim)]):
		default:
			return j
		}
	}
	return -1
}

// mdLink turns [text](url) into "text (url)" and ![alt](url) into
// "alt (url)"; a link whose text is its URL becomes the bare URL.
func mdLink(rest string) (int, string) {
	start := strings.IndexByte(rest, '[')
	mid := strings.Index(rest, "](")
	if mid < 0 || strings.IndexByte(rest[start+1:mid], '[') >= 0 {
		return 0, ""
	}
	end := strings.IndexByte(rest[mid:], ')')
	if end < 0 {
		return 0, ""
	}
	text, url := rest[start+1:mid], rest[mid+2:mid+end]
	n := mid + end + 1
	if text == "" || text == url {
		return n, url
	}
	return n, inline(text) + " (" + url + ")"
}

// autolink turns <https://…> into the bare URL.
func autolink(rest string) (int, string) {
	end := strings.IndexByte(rest, '>')
	if end < 0 {
		return 0, ""
	}
	u := rest[1:end]
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") || strings.ContainsAny(u, " \t") {
		return 0, ""
	}
	return end + 1, u
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// isWord reports letters and digits; any non-ASCII byte counts as part of
// a word (a UTF-8 letter).
func isWord(c byte) bool {
	return c >= 0x80 || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
