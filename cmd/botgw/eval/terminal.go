package eval

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// Print writes the report for a person: a line per conversation, each
// failure with its step, the reply and the reason, then a summary.
func (rep *Report) Print(w io.Writer) {
	for _, r := range rep.Conversations {
		mark := "PASS"
		if !r.Pass {
			mark = "FAIL"
		}
		runs := ""
		if r.Runs > 1 {
			runs = fmt.Sprintf(" · %d/%d runs passed", r.PassedRuns, r.Runs)
		}
		fmt.Fprintf(w, "%s  %s › %s (%s, %d steps, %s%s)\n", mark, r.Suite, r.Name, r.Where(), len(r.Steps), ms(r.DurationMS), runs)
		if !r.Pass {
			printFailure(w, r)
		}
	}
	steps := 0
	for _, r := range rep.Conversations {
		steps += len(r.Steps)
	}
	fmt.Fprintf(w, "\n%d conversations: %d passed, %d failed · %d steps · %s · tokens %d in / %d out · %s\n",
		len(rep.Conversations), rep.Passed, rep.Failed, steps, ms(rep.DurationMS),
		rep.Tokens.InputTokens, rep.Tokens.OutputTokens, rep.Provider)
}

func printFailure(w io.Writer, r *Result) {
	if r.Error != "" {
		fmt.Fprintf(w, "      stopped: %s\n", r.Error)
	}
	for _, s := range r.Steps {
		var failed []ExpectResult
		for _, e := range s.Expect {
			if e.Rate < r.MinPassRate {
				failed = append(failed, e)
			}
		}
		if len(failed) == 0 {
			continue
		}
		fmt.Fprintf(w, "      step %s %s (%s:%d)\n", s.Kind, short(s.Input, 80), r.File, s.Line)
		if s.Reached {
			fmt.Fprintf(w, "        reply: %s\n", indent(s.Reply))
		}
		for _, e := range failed {
			rate := ""
			if r.Runs > 1 {
				rate = fmt.Sprintf(" [%d/%d runs, need %.0f%%]", e.Passes, e.Runs, r.MinPassRate*100)
			}
			fmt.Fprintf(w, "        ✗ %s (%s:%d)%s: %s\n", e.Expect, r.File, e.Line, rate, e.Reason)
		}
	}
}

func indent(s string) string {
	if s == "" {
		return "(none)"
	}
	return strings.ReplaceAll(s, "\n", "\n               ")
}

func ms(d int64) string {
	if d < 1000 {
		return fmt.Sprintf("%dms", d)
	}
	return fmt.Sprintf("%.1fs", float64(d)/1000)
}

// Bar draws a progress bar on a terminal, rewriting one line.
type Bar struct {
	W    io.Writer
	mu   sync.Mutex
	last int
}

// Update shows done of total; Clear removes the line.
func (b *Bar) Update(done, total int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	const width = 30
	filled := width * done / max(total, 1)
	if filled == b.last && done != total {
		return
	}
	b.last = filled
	fmt.Fprintf(b.W, "\r[%s%s] %d/%d", strings.Repeat("#", filled), strings.Repeat(" ", width-filled), done, total)
}

// Clear removes the bar's line.
func (b *Bar) Clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	fmt.Fprintf(b.W, "\r%s\r", strings.Repeat(" ", 50))
}
