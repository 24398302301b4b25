package channels

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	para := strings.Repeat("word ", 180) + "\n\n" // 902 runes
	code := "```go\n" + strings.Repeat("fmt.Println(\"x\")\n", 50) + "```\n"
	tests := []struct {
		name  string
		text  string
		limit int
		parts int
		check func(t *testing.T, parts []string)
	}{
		{"short text is one part", "hello", 10, 1, nil},
		{"cuts after paragraphs", strings.Repeat(para, 10), 4096, 3, func(t *testing.T, parts []string) {
			for _, p := range parts[:len(parts)-1] {
				if !strings.HasSuffix(p, "\n\n") {
					t.Errorf("part does not end at a paragraph break: %q", p[len(p)-20:])
				}
			}
		}},
		{"never inside a code block", strings.Repeat(para, 3) + code + strings.Repeat(para, 6), 4096, 3, func(t *testing.T, parts []string) {
			n := 0
			for _, p := range parts {
				if strings.Contains(p, code) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("code block intact in %d parts, want 1", n)
			}
		}},
		{"falls back to words", strings.Repeat("abcd ", 100), 52, 10, nil},
		{"hard cut for one huge word", strings.Repeat("x", 25), 10, 3, nil},
		{"counts runes, not bytes", strings.Repeat("é", 30), 10, 3, nil},
		{"a code block longer than the limit is cut at lines", "```\n" + strings.Repeat("line\n", 40) + "```", 50, 5, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parts := Split(tc.text, tc.limit)
			if strings.Join(parts, "") != tc.text {
				t.Fatal("parts do not concatenate to the original text")
			}
			if len(parts) != tc.parts {
				t.Errorf("got %d parts, want %d", len(parts), tc.parts)
			}
			for i, p := range parts {
				if n := utf8.RuneCountInString(p); n > tc.limit || n == 0 {
					t.Errorf("part %d has %d runes (limit %d)", i, n, tc.limit)
				}
			}
			if tc.check != nil {
				tc.check(t, parts)
			}
		})
	}
}

func BenchmarkSplit(b *testing.B) {
	text := strings.Repeat(strings.Repeat("word ", 180)+"\n\n", 10)
	b.ReportAllocs()
	for b.Loop() {
		Split(text, 4096)
	}
}
