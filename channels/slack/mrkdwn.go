package slack

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// mrkdwn converts the model's Markdown to Slack mrkdwn: **bold** → *bold*,
// *italic* and _italic_ → _italic_, ~~strike~~ → ~strike~, [text](url) →
// <url|text>, headings → bold lines, list bullets → •, ``` fences kept
// (without a language tag). & < > are escaped everywhere except in the link
// syntax it produces and in a leading "> " quote marker.
func mrkdwn(md string) string {
	lines := strings.Split(md, "\n")
	inFence := false
	for i, line := range lines {
		switch {
		case isFenceLine(line):
			inFence = !inFence
			lines[i] = strings.TrimRight(line[:strings.Index(line, "```")+3], " ")
		case inFence:
			lines[i] = escape(line)
		default:
			lines[i] = mrkdwnLine(line)
		}
	}
	return strings.Join(lines, "\n")
}

func isFenceLine(line string) bool {
	trimmed := strings.TrimLeft(line, " ")
	return len(line)-len(trimmed) <= 3 && strings.HasPrefix(trimmed, "```")
}

// mrkdwnLine converts one line outside a code block.
func mrkdwnLine(line string) string {
	body := strings.TrimLeft(line, " ")
	indent := line[:len(line)-len(body)]
	if text, ok := heading(body); ok {
		return indent + "*" + inline(strings.ReplaceAll(text, "**", "")) + "*"
	}
	if rest, ok := bullet(body); ok {
		return indent + "• " + inline(rest)
	}
	if rest, ok := strings.CutPrefix(body, ">"); ok {
		return indent + ">" + inline(rest)
	}
	return indent + inline(body)
}

// heading returns the text of an ATX heading ("## Title").
func heading(s string) (string, bool) {
	level := len(s) - len(strings.TrimLeft(s, "#"))
	if level == 0 || level > 6 || (len(s) > level && s[level] != ' ') {
		return "", false
	}
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s[level:]), "#")), true
}

// bullet returns the text of a "- ", "* " or "+ " list item.
func bullet(s string) (string, bool) {
	if len(s) >= 2 && strings.ContainsRune("-*+", rune(s[0])) && s[1] == ' ' {
		return s[2:], true
	}
	return "", false
}

// inline converts emphasis, code spans and links within one line.
func inline(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if out, n := span(s, i); n > 0 {
			b.WriteString(out)
			i += n
			continue
		}
		b.WriteString(escape(s[i : i+1]))
		i++
	}
	return b.String()
}

// span converts the construct starting at s[i], if any, returning its
// mrkdwn and the bytes it consumed.
func span(s string, i int) (string, int) {
	rest := s[i:]
	switch {
	case rest[0] == '`':
		return codeSpan(rest)
	case strings.HasPrefix(rest, "!["):
		if out, n := link(rest[1:]); n > 0 {
			return out, n + 1 // an image becomes a link to it
		}
	case rest[0] == '[':
		return link(rest)
	case strings.HasPrefix(rest, "**"), strings.HasPrefix(rest, "__"):
		return emphasis(s, i, rest[:2], "*")
	case strings.HasPrefix(rest, "~~"):
		return emphasis(s, i, "~~", "~")
	case rest[0] == '*', rest[0] == '_':
		return emphasis(s, i, rest[:1], "_")
	case strings.HasPrefix(rest, "<http://"), strings.HasPrefix(rest, "<https://"):
		if end := strings.IndexByte(rest, '>'); end > 0 && !strings.ContainsAny(rest[1:end], " <") {
			return "<" + escapeURL(rest[1:end]) + ">", end + 1
		}
	}
	return "", 0
}

func codeSpan(rest string) (string, int) {
	end := strings.IndexByte(rest[1:], '`')
	if end <= 0 {
		return "", 0
	}
	return "`" + escape(rest[1:end+1]) + "`", end + 2
}

// link converts "[text](url)".
func link(rest string) (string, int) {
	closeText := strings.Index(rest, "](")
	if closeText < 1 {
		return "", 0
	}
	closeURL := strings.IndexByte(rest[closeText+2:], ')')
	if closeURL < 1 {
		return "", 0
	}
	text, url := rest[1:closeText], strings.TrimSpace(rest[closeText+2:closeText+2+closeURL])
	if strings.ContainsAny(url, " <>") {
		return "", 0
	}
	return "<" + escapeURL(url) + "|" + escape(strings.ReplaceAll(text, "|", "/")) + ">", closeText + 3 + closeURL
}

// emphasis converts text between two delimiters md into text between two
// delimiters out. Delimiters must hug the text ("*a*", not "* a *"), and an
// underscore counts only at a word boundary (snake_case stays as it is).
func emphasis(s string, i int, md, out string) (string, int) {
	from := i + len(md)
	if md[0] == '_' && i > 0 && isWord(lastRune(s[:i])) {
		return "", 0
	}
	if from >= len(s) || s[from] == ' ' || strings.HasPrefix(s[from:], md[:1]) {
		return "", 0
	}
	for j := from + 1; j+len(md) <= len(s); j++ {
		if !strings.HasPrefix(s[j:], md) || s[j-1] == ' ' {
			continue
		}
		after := j + len(md)
		if after < len(s) && (s[after] == md[0] || (md[0] == '_' && isWord(firstRune(s[after:])))) {
			continue // close at the end of a run of delimiters ("***")
		}
		return out + inline(s[from:j]) + out, after - i
	}
	return "", 0
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func lastRune(s string) rune  { r, _ := utf8.DecodeLastRuneInString(s); return r }
func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// escape escapes Slack's control characters & < >.
func escape(s string) string { return escaper.Replace(s) }

// escapeURL makes a URL safe inside <url|text>.
func escapeURL(u string) string { return strings.ReplaceAll(escape(u), "|", "%7C") }
