package markup

import (
	"strings"
	"testing"
)

// Telegram counts a message's length after parsing its entities: 3000
// ampersands are 15000 bytes of HTML but 3000 characters, one message.
func TestTelegramCountsVisibleText(t *testing.T) {
	parts := Telegram.Render(strings.Repeat("&", 3000))
	if len(parts) != 1 || len(parts[0]) != 15000 || telegramLen(parts[0]) != 3000 {
		t.Fatalf("%d parts, first %d bytes / %d long; want one of 15000 bytes, 3000 long", len(parts), len(parts[0]), telegramLen(parts[0]))
	}
	if got := TelegramText(`<b>a &lt;b&gt;</b> <a href="https://x.org/?a=1&amp;b=2">c &amp; d</a>`); got != "a <b> c & d" {
		t.Errorf("TelegramText = %q", got)
	}
	if n := UTF16Len("a😀"); n != 3 {
		t.Errorf("UTF16Len = %d, want 3 (an emoji is a surrogate pair)", n)
	}
}
