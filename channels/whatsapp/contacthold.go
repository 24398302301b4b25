package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
	"go.mau.fi/whatsmeow/types"
)

// A 463 (reach-out timelock) can be one contact's stale privacy token
// (whatsmeow #1074), not the account's restriction: it holds that
// contact's chat first, and the whole number only once reachOutContacts
// different contacts got one within reachOutHold.
const reachOutContacts = 3

// waitContact is the reason Status counts sends waiting for their chat's
// hold.
const waitContact = "contact_held"

// holdContact holds chat until until (compared on the adapter's clock)
// and returns how many contacts got a 463 within window, on every replica.
func (s *shared) holdContact(ctx context.Context, number, chat string, until, now time.Time, window time.Duration) (int64, error) {
	seen := s.key("463", number)
	var n *redis.IntCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, s.key("contacthold", number, chat), until.UnixMilli(), until.Sub(now)+holdKeep)
		p.SAdd(ctx, seen, chat)
		p.PExpire(ctx, seen, window)
		n = p.SCard(ctx, seen)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("hold whatsapp contact: %w", err)
	}
	return n.Val(), nil
}

// contactHold is when chat's hold ends (zero: none was set lately).
func (s *shared) contactHold(ctx context.Context, number, chat string) (time.Time, error) {
	v, err := s.rdb.Get(ctx, s.key("contacthold", number, chat)).Result()
	if errors.Is(err, redis.Nil) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("read whatsapp contact hold: %w", err)
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("decode whatsapp contact hold: %w", err)
	}
	return time.UnixMilli(ms), nil
}

// reachOut handles a 463 from a send to to: the contact is held; the
// number too when the 463s repeat across contacts. It returns the hold
// the send waits for.
func (a *Adapter) reachOut(ctx context.Context, to types.JID) Hold {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.tm.storeTimeout)
	defer cancel()
	now := a.clock()
	h := Hold{Code: 463, Reason: "WhatsApp answered 463 (reach-out timelock) for this contact", Since: now, Until: now.Add(a.tm.reachOutHold)}
	n, err := a.shared.holdContact(ctx, a.number(), to.String(), h.Until, now, a.tm.reachOutHold)
	if err == nil && n < reachOutContacts {
		a.log.Warn("whatsapp contact held after 463; the number sends on to others", "chat", to.String(), "contacts", n)
		return h
	}
	if err != nil {
		a.log.Warn("whatsapp contact hold not stored; holding the number", "err", err)
	}
	return a.holdNumber(ctx, 463, a.tm.reachOutHold, fmt.Sprintf("WhatsApp answered 463 (reach-out timelock) for %d contacts: the account may not write to new contacts for a while", n))
}

// waitContactHold blocks while to's chat is held.
func (a *Adapter) waitContactHold(ctx context.Context, to types.JID) error {
	var done func()
	defer func() {
		if done != nil {
			done()
		}
	}()
	for {
		until, err := a.shared.contactHold(ctx, a.number(), to.String())
		if err != nil || !until.After(a.clock()) {
			return err
		}
		if done == nil {
			done = a.waits.enter(waitContact)
		}
		if !a.wait(ctx, min(until.Sub(a.clock()), a.tm.holdPoll)) {
			return ctx.Err()
		}
	}
}
