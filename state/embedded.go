package state

import (
	"fmt"
	"sync"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// embeddedTick is how often the embedded server's TTL clock advances.
const embeddedTick = 250 * time.Millisecond

// embedded is the in-process Redis of the zero-config default. miniredis
// only expires keys when told time has passed, so a goroutine feeds it the
// wall-clock time elapsed. (miniredis' ClockTTL does the same on every
// command, but scans and sorts all keys each time; a tick does it 4 times a
// second whatever the load.)
type embedded struct {
	m         *miniredis.Miniredis
	done      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// startEmbedded starts miniredis on a loopback port. (Its in-memory Dial is
// an unbuffered net.Pipe, on which a large go-redis pipeline can deadlock.)
func startEmbedded() (*embedded, error) {
	m, err := miniredis.Run()
	if err != nil {
		return nil, fmt.Errorf("start embedded redis: %w", err)
	}
	e := &embedded{m: m, done: make(chan struct{})}
	e.wg.Go(e.advanceClock)
	return e, nil
}

func (e *embedded) advanceClock() {
	t := time.NewTicker(embeddedTick)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-e.done:
			return
		case <-t.C:
			now := time.Now()
			e.m.FastForward(now.Sub(last))
			last = now
		}
	}
}

func (e *embedded) close() {
	e.closeOnce.Do(func() {
		close(e.done)
		e.wg.Wait()
		e.m.Close()
	})
}
