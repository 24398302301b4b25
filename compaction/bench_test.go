package compaction

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
)

// history200 is a simulated history of at least 200 messages.
func history200() []botgw.Message {
	r := rand.New(rand.NewPCG(3, 4))
	var h []botgw.Message
	for i := 0; len(h) < 200; i++ {
		h = turn(r, h, i)
	}
	return h
}

func BenchmarkCompact(b *testing.B) {
	h := history200()
	o200k := NewCounter("gpt-4o")
	o200k.Count("warm up")
	summariser := &fakeProvider{reply: replyText("The player toured the town.")}
	strategies := []struct {
		name string
		c    botgw.Compactor
	}{
		{"none", None()},
		{"last_n=20", KeepLast(20)},
		{"token_budget=4000/heuristic", TokenBudget(4000, Heuristic)},
		{"token_budget=4000/o200k", TokenBudget(4000, o200k)},
		{"summarize=4000/heuristic", Summarize(summariser, 4000, 4, Heuristic, nil)},
	}
	for _, s := range strategies {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.c.Compact(context.Background(), h, botgw.UsageHint{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// The common turn: a history of the load harness's size (10 exchanges
	// of a question and a 470-byte answer) well under the budget.
	short := history20()
	b.Run("token_budget=4000/o200k/under", func(b *testing.B) {
		c := TokenBudget(4000, o200k)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Compact(context.Background(), short, botgw.UsageHint{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// history20 is 10 exchanges of a user's question and an assistant's answer.
func history20() []botgw.Message {
	var h []botgw.Message
	for i := range 10 {
		h = append(h, user(fmt.Sprintf("Message %d: I'm at the clock tower, where is the next clue?", i)),
			assistant(strings.Repeat("Head north past the fountain, then look for the blue door. ", 8)))
	}
	return h
}

// text1KB is 1 KiB of English-like text.
var text1KB = strings.Repeat("The player walks to the old theatre and asks for coffee. ", 18)[:1024]

// BenchmarkCount1KB counts a text never seen before (the tokenizer's own
// cost) and one counted already (the cache's), as every turn recounts the
// history.
func BenchmarkCount1KB(b *testing.B) {
	for _, model := range []string{"gpt-4o", "gpt-4", "claude-sonnet-4-5"} {
		c := NewCounter(model)
		c.Count("warm up")
		b.Run(model+"/new", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text1KB)))
			i := 0
			for b.Loop() {
				i++
				c.Count(text1KB[:1000] + strconv.Itoa(i))
			}
		})
		b.Run(model+"/seen", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text1KB)))
			for b.Loop() {
				c.Count(text1KB)
			}
		})
	}
}

// BenchmarkCounterFirstUse measures the first Count of a gpt-4o counter (the
// o200k vocabulary is built then) in a fresh process each time, since a
// process builds it only once. It reports the time and the bytes allocated.
func BenchmarkCounterFirstUse(b *testing.B) {
	var took time.Duration
	var bytes uint64
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFirstUseHelper$")
		cmd.Env = append(os.Environ(), "BOTGW_COMPACTION_FIRST_USE=1")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("helper process: %v", err)
		}
		var ns int64
		var by uint64
		if _, err := fmt.Sscanf(string(out), "first-use %d %d", &ns, &by); err != nil {
			b.Fatalf("helper output %q: %v", out, err)
		}
		took += time.Duration(ns)
		bytes += by
	}
	b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "ms/first-use")
	b.ReportMetric(float64(bytes>>20)/float64(b.N), "MB/first-use")
}

// TestFirstUseHelper is the process BenchmarkCounterFirstUse starts.
func TestFirstUseHelper(t *testing.T) {
	if os.Getenv("BOTGW_COMPACTION_FIRST_USE") != "1" {
		t.Skip("helper process of BenchmarkCounterFirstUse")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	NewCounter("gpt-4o").Count(text1KB)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	fmt.Printf("first-use %d %d\n", took.Nanoseconds(), after.TotalAlloc-before.TotalAlloc)
	os.Exit(0)
}
