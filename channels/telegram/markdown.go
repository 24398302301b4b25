package telegram

import (
	"net/url"
	"regexp"
	"strings"
	"unicode"
)

// fence is the ``` code block open at a point of the text. A long block may
// be split across messages: each part closes it and the next reopens it.
type fence struct {
	open bool
	lang string
}

var (
	htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	attrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
	heading     = regexp.MustCompile(`^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$`)
	langName    = regexp.MustCompile(`^[A-Za-z0-9_+#.-]{1,32}$`)
)

// toHTML converts one part of the model's Markdown to Telegram HTML: bold,
// italics, strike-through, inline code, fenced code blocks with their
// language, links, and headings as bold lines; lists and everything else stay
// text. st is the code block open where the part starts; the result is
// self-contained (every tag closed) and returns the block open at its end.
func toHTML(src string, st fence) (string, fence) {
	var b, code strings.Builder
	for _, line := range strings.SplitAfter(src, "\n") {
		switch {
		case isFence(line) && st.open:
			writeCode(&b, code.String(), st.lang)
			code.Reset()
			st = fence{}
		case isFence(line):
			st = fence{open: true, lang: fenceLang(line)}
		case st.open:
			code.WriteString(line)
		default:
			b.WriteString(convertLine(line))
		}
	}
	if st.open {
		writeCode(&b, code.String(), st.lang)
	}
	return b.String(), st
}

// writeCode writes a code block; the newline before its closing fence is
// not part of the code. An empty block (a part cut right at a fence) is left
// out: Telegram rejects empty entities.
func writeCode(b *strings.Builder, code, lang string) {
	if strings.TrimSpace(code) == "" {
		return
	}
	b.WriteString("<pre><code")
	if lang != "" {
		b.WriteString(` class="language-` + lang + `"`)
	}
	b.WriteString(">" + htmlEscaper.Replace(strings.TrimSuffix(code, "\n")) + "</code></pre>\n")
}

// isFence matches a ``` fence line, as channels.Split does.
func isFence(line string) bool {
	trimmed := strings.TrimLeft(line, " ")
	return len(line)-len(trimmed) <= 3 && strings.HasPrefix(trimmed, "```")
}

func fenceLang(line string) string {
	info := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "`"))
	lang, _, _ := strings.Cut(info, " ")
	if !langName.MatchString(lang) {
		return ""
	}
	return lang
}

// convertLine converts one line outside code blocks, keeping its newline.
func convertLine(line string) string {
	body, nl := strings.CutSuffix(line, "\n")
	out := ""
	if m := heading.FindStringSubmatch(body); m != nil {
		out = "<b>" + inline([]rune(m[1])) + "</b>"
	} else {
		out = inline([]rune(body))
	}
	if nl {
		out += "\n"
	}
	return out
}

// inline converts the spans of one line; markers without a match stay text.
func inline(r []rune) string {
	var b strings.Builder
	for i := 0; i < len(r); {
		if n, html := span(r, i); n > 0 {
			b.WriteString(html)
			i += n
			continue
		}
		b.WriteString(htmlEscaper.Replace(string(r[i])))
		i++
	}
	return b.String()
}

// span converts the span starting at r[i], returning how many runes it took.
func span(r []rune, i int) (int, string) {
	switch r[i] {
	case '\\':
		if i+1 < len(r) && (unicode.IsPunct(r[i+1]) || unicode.IsSymbol(r[i+1])) {
			return 2, htmlEscaper.Replace(string(r[i+1]))
		}
	case '`':
		return codeSpan(r, i)
	case '*', '_', '~':
		return emphasis(r, i)
	case '[':
		return link(r, i)
	}
	return 0, ""
}

// codeSpan converts `code` (or “code with ` inside“).
func codeSpan(r []rune, i int) (int, string) {
	k := run(r, i, '`')
	for j := i + k; j < len(r); j++ {
		if r[j] != '`' {
			continue
		}
		m := run(r, j, '`')
		if m == k {
			return j + k - i, "<code>" + htmlEscaper.Replace(string(r[i+k:j])) + "</code>"
		}
		j += m - 1
	}
	return k, htmlEscaper.Replace(string(r[i : i+k]))
}

// run counts the repeats of c starting at r[i].
func run(r []rune, i int, c rune) int {
	n := 0
	for i+n < len(r) && r[i+n] == c {
		n++
	}
	return n
}

// emphasis converts *italic*, _italic_, **bold**, __bold__ and ~~strike~~.
// An opener must touch the text it marks, and _ never works inside a word
// (snake_case stays as it is).
func emphasis(r []rune, i int) (int, string) {
	c, n := r[i], run(r, i, r[i])
	literal := htmlEscaper.Replace(string(r[i : i+n]))
	k := min(n, 2)
	tag := map[int]string{1: "i", 2: "b"}[k]
	if c == '~' {
		tag = "s"
	}
	open := i + k
	if (c == '~' && n != 2) || (c == '_' && i > 0 && isAlnum(r[i-1])) ||
		open >= len(r) || unicode.IsSpace(r[open]) {
		return n, literal
	}
	if j := closer(r, open, c, k); j > 0 {
		return j + k - i, "<" + tag + ">" + inline(r[open:j]) + "</" + tag + ">"
	}
	return n, literal
}

// closer finds where the k-rune closing run of c for an opener ending at
// open starts, or -1. In a longer run the closer is its last k runes, so
// ***x*** is bold around italic.
func closer(r []rune, open int, c rune, k int) int {
	for j := open + 1; j < len(r); j++ {
		if r[j] != c {
			continue
		}
		m := run(r, j, c)
		at := j + m - k
		after := j + m
		ok := (m == k || (k == 2 && m > 2)) && !unicode.IsSpace(r[j-1]) &&
			(c != '_' || after >= len(r) || !isAlnum(r[after]))
		if ok {
			return at
		}
		j += m - 1
	}
	return -1
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// link converts [text](url) for http, https, tg and mailto URLs.
func link(r []rune, i int) (int, string) {
	mid := indexRune(r, i+1, ']')
	if mid < 0 || mid+1 >= len(r) || r[mid+1] != '(' {
		return 0, ""
	}
	end := closingParen(r, mid+1)
	if end < 0 {
		return 0, ""
	}
	target, _, _ := strings.Cut(strings.TrimSpace(string(r[mid+2:end])), " ")
	if !safeURL(target) {
		return 0, ""
	}
	label := inline(r[i+1 : mid])
	if label == "" {
		label = htmlEscaper.Replace(target)
	}
	return end + 1 - i, `<a href="` + attrEscaper.Replace(target) + `">` + label + "</a>"
}

func indexRune(r []rune, from int, c rune) int {
	for j := from; j < len(r); j++ {
		if r[j] == c {
			return j
		}
	}
	return -1
}

// closingParen finds the ) matching the ( at r[open], allowing nested pairs
// as in Wikipedia URLs.
func closingParen(r []rune, open int) int {
	depth := 0
	for j := open; j < len(r); j++ {
		switch r[j] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return -1
}

func safeURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "http", "https":
		return u.Host != ""
	case "tg", "mailto":
		return true
	}
	return false
}
