package compaction

import (
	"strings"
	"sync"

	"github.com/botgw/botgw"
	"github.com/tiktoken-go/tokenizer/codec"
)

// messageOverhead is what every message costs on top of its text: the role
// and the framing a provider wraps around it.
const messageOverhead = 4

// Counter counts the tokens of a text. Implementations are safe for
// concurrent use.
type Counter interface {
	Count(text string) int
}

// Heuristic estimates a token per four bytes, rounding up: never 0 for a
// non-empty text. It is the counter for models without an offline tokenizer
// (Claude, Llama and others).
var Heuristic Counter = heuristic{}

type heuristic struct{}

func (heuristic) Count(text string) int { return (len(text) + 3) / 4 }

// Codecs are built on first use, once per process: the o200k vocabulary costs
// about 40ms and 16MB.
var (
	o200k  = sync.OnceValue(codec.NewO200kBase)
	cl100k = sync.OnceValue(codec.NewCl100kBase)
)

// families maps OpenAI model name prefixes to their encoding, most specific
// first.
var families = []struct {
	prefix string
	codec  func() *codec.Codec
}{
	{"gpt-4o", o200k}, {"chatgpt-4o", o200k}, {"gpt-4.1", o200k}, {"gpt-4.5", o200k},
	{"gpt-5", o200k}, {"gpt-oss", o200k}, {"o1", o200k}, {"o3", o200k}, {"o4", o200k},
	{"gpt-4", cl100k}, {"gpt-3.5", cl100k}, {"gpt-35", cl100k},
}

// NewCounter returns an offline BPE tokenizer for OpenAI model names (gpt-4o,
// gpt-4.1, gpt-5, o1, o3, o4: o200k; gpt-4, gpt-3.5: cl100k), ignoring case
// and a vendor prefix ("openai/gpt-4o"), and Heuristic for any other model.
// It starts loading the vocabulary in the background, so the first turn
// does not wait for it (a Count before it is loaded waits).
func NewCounter(model string) Counter {
	name := strings.ToLower(model)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	for _, f := range families {
		if strings.HasPrefix(name, f.prefix) {
			go f.codec()
			return bpe{f.codec, newCountCache()}
		}
	}
	return Heuristic
}

// bpe counts with a BPE vocabulary, remembering the counts of texts it has
// seen: histories are counted again on every turn.
type bpe struct {
	codec func() *codec.Codec
	cache *countCache
}

func (b bpe) Count(text string) int {
	if text == "" {
		return 0
	}
	return b.cache.count(text, b.tokenize)
}

func (b bpe) tokenize(text string) int {
	n, err := b.codec().Count(text)
	if err != nil {
		return Heuristic.Count(text)
	}
	return n
}

// CountMessages counts the tokens of a history: each message's text, its
// tool calls' names, arguments, results and errors, and a small per-message
// overhead.
func CountMessages(c Counter, h []botgw.Message) int {
	n := 0
	for _, m := range h {
		n += countMessage(c, m)
	}
	return n
}

func countMessage(c Counter, m botgw.Message) int {
	n := messageOverhead + count(c, m.Text)
	for _, tc := range m.ToolCalls {
		n += count(c, tc.Name) + count(c, tc.Arguments) + count(c, tc.Result) + count(c, tc.Error)
	}
	return n
}

func count(c Counter, s string) int {
	if s == "" {
		return 0
	}
	return c.Count(s)
}
