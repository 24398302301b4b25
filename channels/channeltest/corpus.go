package channeltest

import (
	"embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

//go:embed testdata/corpus.md testdata/*.golden
var testdata embed.FS

// Case is one reply of the formatting corpus: Markdown as models write it.
type Case struct{ Name, Markdown string }

// Corpus returns the formatting corpus: the replies in testdata/corpus.md
// and long ones, built here, that cross every platform's message limit.
func Corpus() []Case {
	b, err := testdata.ReadFile("testdata/corpus.md")
	if err != nil {
		panic(err) // embedded: cannot happen
	}
	var cases []Case
	for _, block := range strings.Split(string(b), "%%% ")[1:] {
		name, md, _ := strings.Cut(block, "\n")
		cases = append(cases, Case{Name: name, Markdown: md})
	}
	return append(cases, longCases()...)
}

// longCases are replies longer than one message on every platform.
func longCases() []Case {
	var paras, list, code strings.Builder
	for i := range 12 {
		fmt.Fprintf(&paras, "**Stop %d.** Walk to the _old spa_ and see [the map](https://example.com/map_(%d)). ", i, i)
		paras.WriteString(strings.Repeat("The clue mentions the year the baths opened & the architect. ", 8) + "\n\n")
	}
	for i := range 160 {
		fmt.Fprintf(&list, "- item %d: collect the `token_%d` at the *gate*\n", i, i)
	}
	code.WriteString("Before the code.\n\n```go\n")
	for i := range 300 {
		fmt.Fprintf(&code, "if visited[%d] < 3 && score > 0 { score += bonus(%d) }\n", i, i)
	}
	code.WriteString("```\n\nAfter the code.")
	return []Case{
		{"long-paragraphs", paras.String()},
		{"long-list", list.String()},
		{"long-code-block", code.String()},
		{"emoji-near-limit", strings.Repeat("ab ", 1330) + "😀👍🏽 👨‍👩‍👧‍👦 🇬🇧 end " + strings.Repeat("cd ", 50)},
		{"emoji-run-without-spaces", strings.Repeat("👨‍👩‍👧‍👦🇬🇧👍🏽", 500)},
		{"cjk-near-limit", strings.Repeat("这是一个很长的句子，没有空格。", 350)},
		{"link-at-limit", strings.Repeat("word ", 797) + "[a link_with_underscores](https://example.com/a_(b)) " + strings.Repeat("more ", 20)},
		{"long-table", "| n | square |\n|---|---|\n" + tableRows(400)},
	}
}

func tableRows(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "| %d | %d |\n", i, i*i)
	}
	return b.String()
}

var goldenHeader = regexp.MustCompile(`(?m)^%%% (\S+) (\d+)/(\d+)\n`)

// Golden returns the messages each corpus case renders to in the dialect
// called name, from testdata/<name>.golden.
func Golden(name string) (map[string][]string, error) {
	b, err := testdata.ReadFile("testdata/" + name + ".golden")
	if err != nil {
		return nil, fmt.Errorf("golden file for %s: %w", name, err)
	}
	return ParseGolden(string(b))
}

// ParseGolden reads a golden file: each message under a line
// "%%% <case> <part>/<parts>".
func ParseGolden(s string) (map[string][]string, error) {
	out := map[string][]string{}
	heads := goldenHeader.FindAllStringSubmatchIndex(s, -1)
	for i, h := range heads {
		name := s[h[2]:h[3]]
		parts, _ := strconv.Atoi(s[h[6]:h[7]])
		if parts == 0 {
			out[name] = []string{}
			continue
		}
		end := len(s)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		out[name] = append(out[name], strings.TrimSuffix(s[h[1]:end], "\n"))
	}
	return out, nil
}

// FormatGolden writes the messages of each case in the golden file format.
func FormatGolden(cases []Case, rendered map[string][]string) []byte {
	var b strings.Builder
	for _, c := range cases {
		parts := rendered[c.Name]
		if len(parts) == 0 {
			fmt.Fprintf(&b, "%%%%%% %s 0/0\n", c.Name)
		}
		for i, p := range parts {
			fmt.Fprintf(&b, "%%%%%% %s %d/%d\n%s\n", c.Name, i+1, len(parts), p)
		}
	}
	return []byte(b.String())
}
