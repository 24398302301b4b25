// Package syncbuf is a buffer that a logger or a child process writes
// while a test reads it.
package syncbuf

import (
	"bytes"
	"strings"
	"sync"
)

// Buffer collects output written from several goroutines. The zero value
// is ready to use. Safe for concurrent use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Line is the first line written that contains s, or "".
func (b *Buffer) Line(s string) string {
	for l := range strings.Lines(b.String()) {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
