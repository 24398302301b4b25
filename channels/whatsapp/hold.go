package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/types"
)

// Hold stops every send from the linked number, on every replica, after
// WhatsApp restricted the account: replies, broadcasts and operator
// messages wait (nothing is dropped) until Until or until an operator
// lifts it.
type Hold struct {
	// Code is what WhatsApp answered: 463 (reach-out timelock), 403
	// (repeated refusals), 429 (rate over limit) or, for a temporary ban,
	// the ban's reason code (101…106).
	Code   int       `json:"code"`
	Reason string    `json:"reason"`
	Since  time.Time `json:"since"`
	Until  time.Time `json:"until"`
}

// active reports whether h is in force at now.
func (h Hold) active(now time.Time) bool { return h.Until.After(now) }

// 403s hold the number when forbidStrikes come within forbidWindow.
const (
	forbidWindow  = 30 * time.Minute
	forbidStrikes = 3
)

// holdCache is this replica's last read of the number's hold; read is
// real time (the cache bounds Redis reads), the hold's times are the
// adapter's clock.
type holdCache struct {
	mu   sync.Mutex
	h    Hold
	read time.Time
}

// number is the linked number's digits ("" before the first login).
func (a *Adapter) number() string {
	s := a.state.get().JID
	user, _, _ := strings.Cut(s, "@")
	return user
}

// currentHold is the number's hold in force now (zero if none), read from
// Redis at most once per holdRecheck.
func (a *Adapter) currentHold(ctx context.Context) (Hold, error) {
	c := &a.holdc
	c.mu.Lock()
	fresh := !c.read.IsZero() && time.Since(c.read) < a.tm.holdRecheck
	h := c.h
	c.mu.Unlock()
	if !fresh {
		var err error
		if h, err = a.shared.hold(ctx, a.number()); err != nil {
			return Hold{}, err
		}
		a.remember(h)
	}
	if !h.active(a.clock()) {
		return Hold{}, nil
	}
	return h, nil
}

func (a *Adapter) remember(h Hold) {
	a.holdc.mu.Lock()
	a.holdc.h, a.holdc.read = h, time.Now()
	a.holdc.mu.Unlock()
}

// waitHold blocks while the number is held; it returns ctx's error if ctx
// ends first, or the error of reading the hold.
func (a *Adapter) waitHold(ctx context.Context) error {
	var done func()
	defer func() {
		if done != nil {
			done()
		}
	}()
	for {
		h, err := a.currentHold(ctx)
		if err != nil || !h.active(a.clock()) {
			return err
		}
		if done == nil {
			done = a.waits.enter(waitHold)
		}
		if !a.wait(ctx, min(h.Until.Sub(a.clock()), a.tm.holdPoll)) {
			return ctx.Err()
		}
	}
}

// holdNumber holds the number for d from now on every replica, logs the
// alert and counts it. A hold ending later stays in force.
func (a *Adapter) holdNumber(ctx context.Context, code int, d time.Duration, reason string) Hold {
	now := a.clock()
	h := Hold{Code: code, Reason: reason, Since: now, Until: now.Add(d)}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.tm.storeTimeout)
	defer cancel()
	cur, err := a.shared.putHold(ctx, a.number(), h, now)
	if err != nil {
		a.log.Error("whatsapp number hold not shared with the other replicas; holding this one", "err", err)
		cur = h
	}
	a.remember(cur)
	a.counts.held.Add(1)
	a.log.Error("whatsapp number held: no message is sent from it until the hold ends (see docs/whatsapp.md)",
		"code", cur.Code, "reason", cur.Reason, "until", cur.Until.UTC().Format(time.RFC3339))
	return cur
}

// LiftHold ends the number's hold now, on every replica (an operator's
// decision: POST /v1/admin/whatsapp/lift-hold).
func (a *Adapter) LiftHold(ctx context.Context) error {
	if err := a.shared.liftHold(ctx, a.number()); err != nil {
		return err
	}
	a.remember(Hold{})
	a.log.Warn("whatsapp number hold lifted by an operator")
	return nil
}

// serverCode is the error code WhatsApp put in a message's ack (whatsmeow
// returns it as "server returned error <code>", send.go), or 0.
func serverCode(err error) int {
	if !errors.Is(err, whatsmeow.ErrServerReturnedError) {
		return 0
	}
	_, after, ok := strings.Cut(err.Error(), whatsmeow.ErrServerReturnedError.Error()+" ")
	if !ok {
		return 0
	}
	digits := after
	if i := strings.IndexFunc(after, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		digits = after[:i]
	}
	n, _ := strconv.Atoi(digits)
	return n
}

// restriction decides whether a failed send restricts the whole number:
// 429 and rate-overlimit, 463 (reach-out timelock: the contact, then,
// repeated across contacts, the number; see reachOut), and a 403 repeated forbidStrikes times within
// forbidWindow (one 403 is a recipient who blocked the number, or a chat
// the number may not write to: that reply alone fails). held reports
// whether the number is now held, and the hold in force.
func (a *Adapter) restriction(ctx context.Context, err error, to types.JID) (Hold, bool) {
	code := serverCode(err)
	switch {
	case errors.Is(err, whatsmeow.ErrIQRateOverLimit) || code == 429:
		return a.holdNumber(ctx, 429, a.tm.rateLimitPause, "WhatsApp answered rate-overlimit (429): the number sent too much"), true
	case code == 463:
		return a.reachOut(ctx, to), true
	case code == 403 || errors.Is(err, whatsmeow.ErrIQForbidden):
		return a.forbidden(ctx)
	}
	return Hold{}, false
}

// forbidden counts one 403 and holds the number once they repeat.
func (a *Adapter) forbidden(ctx context.Context) (Hold, bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.tm.storeTimeout)
	defer cancel()
	n, err := a.shared.strike(ctx, a.number(), "403", forbidWindow)
	if err != nil {
		a.log.Warn("whatsapp 403 not counted", "err", err)
		return Hold{}, false
	}
	if n < forbidStrikes {
		return Hold{}, false
	}
	return a.holdNumber(ctx, 403, a.tm.forbiddenHold, fmt.Sprintf("WhatsApp refused %d messages (403) within %v: the account is restricted", n, forbidWindow)), true
}
