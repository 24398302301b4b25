package channeltest

import (
	"flag"
	"os"
	"path/filepath"
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
