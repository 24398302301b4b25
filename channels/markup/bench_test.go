package markup

import (
	"strings"
	"testing"
)

// BenchmarkRender converts replies to Telegram HTML, as every Telegram
// send does: a plain paragraph the size of the load harness's reply, and
// a formatted one with a list, emphasis, a link and a code block.
func BenchmarkRender(b *testing.B) {
	replies := map[string]string{
		"plain": "Sure! Here is a short summary of what we discussed so far: you asked about the delivery status of your order, " +
			"I explained that it left the warehouse yesterday and should arrive within two business days, and you asked whether " +
			"you can change the delivery address. You can change it from the order page until the courier picks the parcel up; " +
			"after that, please contact the courier directly with your tracking number. Is there anything else I can help you with today?",
		"formatted": "## Next clue\n\nHead **north** past the _fountain_, then look for the [blue door](https://example.org/door?a=1&b=2).\n\n" +
			strings.Repeat("- Walk past the `clock tower` and count the windows < 10.\n", 5) +
			"\n```go\nfmt.Println(\"x < y\")\n```\n",
	}
	for name, text := range replies {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Telegram.Render(text)
			}
		})
	}
}
