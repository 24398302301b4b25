package markup

import (
	"html"
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// style is how a dialect writes each element. Text handed to escape, code,
// pre and link is plain; they escape it themselves.
type style struct {
	escape               func(string) string
	bold, italic, strike [2]string
	code                 func(string) string
	pre                  func(lang, code string) string
	link                 func(dest, label string) string
	heading              func(string) string
	bullet               string
	quote                func(string) string
}

var (
	htmlText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	htmlAttr = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
	langName = regexp.MustCompile(`^[A-Za-z0-9_+#.-]{1,32}$`)
)

// Telegram writes Telegram's HTML parse mode; a message holds 4096 UTF-16
// code units of text once the tags are parsed.
var Telegram = Dialect{Name: "telegram", Limit: 4096, Len: telegramLen, st: style{
	escape: htmlText.Replace,
	bold:   [2]string{"<b>", "</b>"}, italic: [2]string{"<i>", "</i>"}, strike: [2]string{"<s>", "</s>"},
	code: func(s string) string { return wrap([2]string{"<code>", "</code>"}, htmlText.Replace(s)) },
	pre: func(lang, code string) string {
		open := "<pre><code>"
		if langName.MatchString(lang) {
			open = `<pre><code class="language-` + lang + `">`
		}
		return wrap([2]string{open, "</code></pre>"}, htmlText.Replace(code))
	},
	link: func(dest, label string) string {
		return `<a href="` + htmlAttr.Replace(dest) + `">` + htmlText.Replace(label) + "</a>"
	},
	heading: func(s string) string { return wrap([2]string{"<b>", "</b>"}, s) },
	bullet:  "• ",
	quote:   func(s string) string { return wrap([2]string{"<blockquote>", "</blockquote>"}, s) },
}}

// Slack writes Slack's mrkdwn; Slack advises messages of at most 4000
// characters.
var Slack = Dialect{Name: "slack", Limit: 4000, Len: utf8.RuneCountInString, st: style{
	escape: htmlText.Replace,
	bold:   [2]string{"*", "*"}, italic: [2]string{"_", "_"}, strike: [2]string{"~", "~"},
	code: func(s string) string { return wrap([2]string{"`", "`"}, htmlText.Replace(s)) },
	pre:  func(_, code string) string { return fenced(htmlText.Replace(code)) },
	link: func(dest, label string) string {
		u := strings.ReplaceAll(htmlText.Replace(dest), "|", "%7C")
		if dest == label {
			return "<" + u + ">"
		}
		return "<" + u + "|" + htmlText.Replace(label) + ">"
	},
	heading: func(s string) string { return wrap([2]string{"*", "*"}, s) },
	bullet:  "• ",
	quote:   quoteLines,
}}

// WhatsApp writes WhatsApp's markup (it has no escapes and no links with a
// label); messages are kept to 4000 characters, which read well on a phone.
var WhatsApp = Dialect{Name: "whatsapp", Limit: 4000, Len: utf8.RuneCountInString, st: style{
	escape: identity,
	bold:   [2]string{"*", "*"}, italic: [2]string{"_", "_"}, strike: [2]string{"~", "~"},
	code:    func(s string) string { return wrap([2]string{"`", "`"}, s) },
	pre:     func(_, code string) string { return fenced(code) },
	link:    labelAndURL,
	heading: func(s string) string { return wrap([2]string{"*", "*"}, s) },
	bullet:  "- ",
	quote:   quoteLines,
}}

// Plain writes text without markup, for the web chat page; one message
// holds any length.
var Plain = Dialect{Name: "web", Len: utf8.RuneCountInString, st: style{
	escape:  identity,
	code:    identity,
	pre:     func(_, code string) string { return code },
	link:    labelAndURL,
	heading: identity,
	bullet:  "• ",
	quote:   quoteLines,
}}

func identity(s string) string { return s }

func fenced(code string) string {
	if strings.TrimSpace(code) == "" {
		return ""
	}
	return "```\n" + code + "\n```"
}

// labelAndURL shows a link as "label (address)", or its address alone.
func labelAndURL(dest, label string) string {
	if shown(dest, label) {
		return label
	}
	return label + " (" + dest + ")"
}

// quoteLines starts every line with "> ".
func quoteLines(s string) string { return "> " + strings.ReplaceAll(s, "\n", "\n> ") }

// TelegramText is the text a Telegram HTML message shows: its tags removed
// and its entities decoded. Sent without a parse mode, it is the same
// message unformatted.
func TelegramText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s // nothing to remove or decode: most text, every separator
	}
	var b strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		s = s[i+j+1:]
	}
	return html.UnescapeString(b.String())
}

// telegramLen counts what Telegram counts: UTF-16 code units of the text
// after entity parsing.
func telegramLen(s string) int { return UTF16Len(TelegramText(s)) }

// UTF16Len is the length of s in UTF-16 code units.
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
