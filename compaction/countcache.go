package compaction

import (
	"hash/maphash"
	"sync"
)

// countCacheSize bounds each generation of a counter's cache: two
// generations of 16384 entries hold the texts of several thousand chats'
// recent histories in about 1 MB.
const countCacheSize = 16384

// countCache remembers the token counts of texts already counted. A
// conversation's history is counted again on every turn, and a BPE pass
// costs about 0.2 ms per KiB, so the second count of a text must not
// tokenize it again. It keys on a 64-bit hash of the text and keeps two
// generations: when the current one fills, it becomes the old one and the
// texts still in use move back on their next lookup. Safe for concurrent use.
type countCache struct {
	seed maphash.Seed
	mu   sync.Mutex
	cur  map[uint64]int
	old  map[uint64]int
}

func newCountCache() *countCache {
	return &countCache{seed: maphash.MakeSeed(), cur: map[uint64]int{}}
}

// count returns the cached count of text or computes it with fn.
func (c *countCache) count(text string, fn func(string) int) int {
	h := maphash.String(c.seed, text)
	c.mu.Lock()
	n, ok := c.cur[h]
	if !ok {
		if n, ok = c.old[h]; ok {
			c.put(h, n)
		}
	}
	c.mu.Unlock()
	if ok {
		return n
	}
	n = fn(text)
	c.mu.Lock()
	c.put(h, n)
	c.mu.Unlock()
	return n
}

func (c *countCache) put(h uint64, n int) {
	if len(c.cur) >= countCacheSize {
		c.old, c.cur = c.cur, make(map[uint64]int, countCacheSize)
	}
	c.cur[h] = n
}
