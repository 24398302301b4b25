package state

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// scriptHook is a Redis hook that runs a step of the test right after a
// given script ran (not after an EVALSHA refused with NOSCRIPT): input arriving at that moment, or the worker's
// process dying there, after which every command of the store fails until
// revive (another replica goes on with the same client).
type scriptHook struct {
	sc   *redis.Script
	src  string
	next atomic.Pointer[func()]
	dead atomic.Bool
}

var errKilled = errors.New("the worker's process was killed")

// hookScript hooks h's client; then runs once, right after src's script
// ran.
func hookScript(h *harness, sc *redis.Script, src string, then func()) *scriptHook {
	hook := &scriptHook{sc: sc, src: src}
	hook.next.Store(&then)
	h.s.c.AddHook(hook)
	return hook
}

func (k *scriptHook) die()    { k.dead.Store(true) }
func (k *scriptHook) revive() { k.dead.Store(false) }

func (k *scriptHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (k *scriptHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		return k.process([]redis.Cmder{cmd}, func() error { return next(ctx, cmd) })
	}
}

func (k *scriptHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		return k.process(cmds, func() error { return next(ctx, cmds) })
	}
}

func (k *scriptHook) process(cmds []redis.Cmder, run func() error) error {
	if k.dead.Load() {
		for _, c := range cmds {
			c.SetErr(errKilled)
		}
		return errKilled
	}
	err := run() // a command's own error is set on it only after the hooks
	for _, c := range cmds {
		if args := c.Args(); err == nil && len(args) > 1 && (args[1] == k.sc.Hash() || args[1] == k.src) {
			if then := k.next.Swap(nil); then != nil {
				(*then)()
			}
		}
	}
	return err
}

// testFinishDiesAfterTheScript: a worker that dies right after the finish
// script kept its chat (input came during the turn) leaves the chat due
// once its lease ran out. On a cluster the work mark is handled in steps
// around the script, and none of them may leave the chat unmarked.
func testFinishDiesAfterTheScript(t *testing.T, h *harness) {
	k := chat("dies-finishing")
	snap := committedTurn(t, h, k)
	mustAppend(t, h, text(k, "m2", "during the turn"))
	var crash *scriptHook
	crash = hookScript(h, finishScript, finishSrc, func() { crash.die() })
	h.s.Finish(t.Context(), k, snap.Lease, nil) // its outcome never reaches the dead worker
	crash.revive()
	h.advance(suiteOpts.LeaseTTL + suiteOpts.Visibility + 100*time.Millisecond)
	if due := dueIDs(t, h); !slices.Equal(due, []string{k.ID}) {
		t.Fatalf("due chats after the worker died finishing = %q, want [%s]: its input is stranded", due, k.ID)
	}
	if taken := mustBegin(t, h, k, ""); len(taken.Pending) != 1 {
		t.Errorf("the chat's new worker sees %d pending entries, want 1", len(taken.Pending))
	}
}

// testFinishIdleKeepsLateInput: input appended right after the finish
// script found the chat idle keeps its work mark, so the chat is found
// should the replica that took the input die before handling it.
func testFinishIdleKeepsLateInput(t *testing.T, h *harness) {
	k := chat("late-input")
	snap := committedTurn(t, h, k)
	hookScript(h, finishScript, finishSrc, func() { mustAppend(t, h, text(k, "m2", "just after the finish")) })
	if more, err := h.s.Finish(t.Context(), k, snap.Lease, nil); err != nil || more {
		t.Fatalf("Finish before the input = %v, %v; want false, nil", more, err)
	}
	h.advance(suiteOpts.Visibility + 100*time.Millisecond)
	if due := dueIDs(t, h); !slices.Equal(due, []string{k.ID}) {
		t.Fatalf("due chats after input came as the chat went idle = %q, want [%s]", due, k.ID)
	}
}
