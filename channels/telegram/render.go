package telegram

import (
	"unicode/utf16"

	"github.com/botgw/botgw/channels"
)

const (
	// maxMessage is Telegram's limit on one message, in UTF-16 code units.
	maxMessage = 4096
	// splitLimit is the Markdown part size, in runes, leaving room for tags
	// and entities added by the conversion.
	splitLimit = 3500
	// minSplit is where re-splitting stops: a part this small cannot grow
	// past maxMessage when converted.
	minSplit = 256
)

// chunk is one message of a reply: its Markdown source and its HTML.
type chunk struct{ src, html string }

// render splits a Markdown reply into messages within Telegram's limit. The
// sources of the chunks concatenate to text exactly; a code block longer
// than one message is closed at the end of a chunk and reopened in the next.
func render(text string) []chunk {
	var out []chunk
	var st fence
	for _, part := range channels.Split(text, splitLimit) {
		out = appendRendered(out, part, &st, splitLimit)
	}
	return out
}

// appendRendered converts src, splitting it smaller while its HTML is too
// long (escaping can make HTML several times longer than its source) or the
// source itself, sent as plain text if Telegram rejects the HTML, would be.
func appendRendered(out []chunk, src string, st *fence, limit int) []chunk {
	html, next := toHTML(src, *st)
	if fits(html) && fits(src) || limit <= minSplit {
		*st = next
		return append(out, chunk{src: src, html: html})
	}
	for _, part := range channels.Split(src, limit/2) {
		out = appendRendered(out, part, st, limit/2)
	}
	return out
}

func fits(s string) bool { return utf16Len(s) <= maxMessage }

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
