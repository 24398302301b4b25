// Package channels holds what every chat adapter shares: splitting long
// replies to a platform's limit without breaking paragraphs or code blocks.
// Each adapter lives in its own sub-package, built on the platform's library.
package channels

import "strings"

// Split cuts text into parts of at most limit runes whose concatenation is
// exactly text. It cuts after a blank line if it can, else after a line
// break, else after a space, and never inside a fenced code block unless the
// block alone is longer than limit (then at a line break inside it, or hard).
func Split(text string, limit int) []string {
	r := []rune(text)
	if limit <= 0 || len(r) <= limit {
		return []string{text}
	}
	fences := fenceSpans(r)
	var parts []string
	for start := 0; start < len(r); {
		if len(r)-start <= limit {
			parts = append(parts, string(r[start:]))
			break
		}
		end := cutPoint(r, start, start+limit, fences)
		parts = append(parts, string(r[start:end]))
		start = end
	}
	return parts
}

// span is a fenced code block from its opening fence line to the end of its
// closing fence line; cutting strictly inside it breaks the block.
type span struct{ from, to int }

func inside(c int, fences []span) bool {
	for _, f := range fences {
		if c > f.from && c < f.to {
			return true
		}
	}
	return false
}

// cutPoint picks where the part starting at start ends, at most at max.
func cutPoint(r []rune, start, max int, fences []span) int {
	for _, sep := range []string{"\n\n", "\n", " "} {
		if c := lastCut(r, start, max, sep, fences, false); c > start {
			return c
		}
	}
	// No clean cut outside a block: the block itself is too long.
	for _, sep := range []string{"\n", " "} {
		if c := lastCut(r, start, max, sep, fences, true); c > start {
			return c
		}
	}
	return max
}

// lastCut finds the last position in (start, max] just after sep.
func lastCut(r []rune, start, max int, sep string, fences []span, inBlock bool) int {
	s := []rune(sep)
	for c := max; c-len(s) > start; c-- {
		if !matchAt(r, c-len(s), s) {
			continue
		}
		if inBlock || !inside(c, fences) {
			return c
		}
	}
	return -1
}

func matchAt(r []rune, i int, s []rune) bool {
	if i < 0 || i+len(s) > len(r) {
		return false
	}
	for j := range s {
		if r[i+j] != s[j] {
			return false
		}
	}
	return true
}

// fenceSpans finds ``` fenced blocks (a fence line starts with ```, after at
// most three spaces). An unclosed fence runs to the end of the text.
func fenceSpans(r []rune) []span {
	var spans []span
	open := -1
	for lineStart := 0; lineStart < len(r); {
		lineEnd := lineStart
		for lineEnd < len(r) && r[lineEnd] != '\n' {
			lineEnd++
		}
		next := min(lineEnd+1, len(r))
		if isFence(string(r[lineStart:lineEnd])) {
			if open < 0 {
				open = lineStart
			} else {
				spans = append(spans, span{open, next})
				open = -1
			}
		}
		lineStart = next
	}
	if open >= 0 {
		spans = append(spans, span{open, len(r)})
	}
	return spans
}

func isFence(line string) bool {
	trimmed := strings.TrimLeft(line, " ")
	return len(line)-len(trimmed) <= 3 && strings.HasPrefix(trimmed, "```")
}
