package compaction

import (
	"strconv"
	"sync"
	"testing"
)

func TestCachedCountsMatchTheTokenizer(t *testing.T) {
	c := NewCounter("gpt-4o").(bpe)
	texts := []string{"Where is the next clue?", text1KB, "🎭 Harrogate Theatre, 50 points", "a"}
	for round := range 2 { // the second round answers from the cache
		for _, s := range texts {
			if got, want := c.Count(s), c.tokenize(s); got != want {
				t.Errorf("round %d: Count(%.20q) = %d, tokenizer says %d", round, s, got, want)
			}
		}
	}
}

func TestCountCacheStaysBoundedAndCorrectAcrossGenerations(t *testing.T) {
	cache := newCountCache()
	calls := 0
	length := func(s string) int { calls++; return len(s) }
	const n = 3*countCacheSize + 7
	for i := range n {
		if got := cache.count(strconv.Itoa(i), length); got != len(strconv.Itoa(i)) {
			t.Fatalf("count(%d) = %d", i, got)
		}
	}
	if len(cache.cur) > countCacheSize || len(cache.old) > countCacheSize {
		t.Errorf("cache holds %d+%d entries, bound %d each", len(cache.cur), len(cache.old), countCacheSize)
	}
	calls = 0
	cache.count(strconv.Itoa(n-1), length) // recent: still cached
	if calls != 0 {
		t.Error("a text counted just before was tokenized again")
	}
}

func TestCountCacheIsSafeForConcurrentUse(t *testing.T) {
	c := NewCounter("gpt-4o")
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				s := "message " + strconv.Itoa(i%50) + " from " + strconv.Itoa(g%2)
				if c.Count(s) == 0 {
					t.Errorf("Count(%q) = 0", s)
				}
			}
		})
	}
	wg.Wait()
}
