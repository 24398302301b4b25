package channeltest

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botgw/botgw/channels/markup"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current renderers")

var dialects = []markup.Dialect{markup.Telegram, markup.Slack, markup.WhatsApp, markup.Plain}

// TestCorpusGolden renders the corpus in every dialect and compares it with
// the golden files (go test ./channels/channeltest -update rewrites them).
func TestCorpusGolden(t *testing.T) {
	cases := Corpus()
	if len(cases) < 30 {
		t.Fatalf("corpus has %d cases, want at least 30", len(cases))
	}
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			got := map[string][]string{}
			for _, c := range cases {
				got[c.Name] = d.Render(c.Markdown)
				if err := CheckParts(d, got[c.Name]); err != nil {
					t.Errorf("%s: %v", c.Name, err)
				}
			}
			path := filepath.Join("testdata", d.Name+".golden")
			if *update {
				if err := os.WriteFile(path, FormatGolden(cases, got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := Golden(d.Name)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			for _, c := range cases {
				comparePartsTo(t, c.Name, got[c.Name], want[c.Name])
			}
		})
	}
}

// TestSmallLimitsKeepEveryMessageWhole splits the whole corpus at limits
// far below the platforms' own, so cuts fall everywhere: every message must
// still stand alone and fit.
func TestSmallLimitsKeepEveryMessageWhole(t *testing.T) {
	for _, d := range dialects[:3] {
		for _, limit := range []int{60, 97, 250, 1000} {
			small := d.WithLimit(limit)
			for _, c := range Corpus() {
				parts := small.Render(c.Markdown)
				if err := CheckParts(small, parts); err != nil {
					t.Errorf("%s at %d, %s: %v", d.Name, limit, c.Name, err)
				}
				if d.Name == markup.Telegram.Name && shown(parts) != shown(d.WithLimit(0).Render(c.Markdown)) {
					t.Errorf("%s at %d, %s: the messages show other text than the whole reply", d.Name, limit, c.Name)
				}
			}
		}
	}
}

// shown is the text Telegram messages show, without white space.
func shown(parts []string) string {
	return strings.Join(strings.Fields(markup.TelegramText(strings.Join(parts, ""))), "")
}
