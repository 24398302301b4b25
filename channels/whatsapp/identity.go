package whatsapp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.mau.fi/whatsmeow/types"
)

// Aliases pins each WhatsApp user's chat key, shared by every replica (the
// gateway implements it on Redis), so one person is one conversation
// whichever form — phone-number JID or LID — a message arrives in.
type Aliases interface {
	// Pin returns the value stored under name, storing value first when
	// there is none, and keeps it for ttl from now.
	Pin(ctx context.Context, name, value string, ttl time.Duration) (string, error)
}

// aliasTTL is how long a pinned chat key outlives the person's last message.
const aliasTTL = 30 * 24 * time.Hour

// lookupTimeout bounds asking WhatsApp for a number's LID (GetUserInfo)
// inside the event handler; lookupRetry spaces the lookups of one number.
const (
	lookupTimeout = 2 * time.Second
	lookupRetry   = time.Minute
)

// memAliases is the Aliases of a single process (tests, no Redis given).
type memAliases struct {
	mu sync.Mutex
	m  map[string]string
}

func (m *memAliases) Pin(_ context.Context, name, value string, _ time.Duration) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]string{}
	}
	if v, ok := m.m[name]; ok {
		return v, nil
	}
	m.m[name] = value
	return value, nil
}

// person is what the gateway knows of a message's author: the phone-number
// JID and the LID, either possibly empty, without device parts.
type person struct{ pn, lid types.JID }

// identify finds both forms of the author's JID: from the message
// (Sender, SenderAlt), the device store's LID map, the operators' LIDs
// resolved at connect, and, for a number whose LID is unknown, WhatsApp
// itself (GetUserInfo; it also fills the store's map).
func (a *Adapter) identify(ctx context.Context, cli client, sender, alt types.JID) person {
	var p person
	for _, j := range []types.JID{sender.ToNonAD(), alt.ToNonAD()} {
		switch j.Server {
		case types.DefaultUserServer:
			p.pn = j
		case types.HiddenUserServer:
			p.lid = j
		}
	}
	if p.pn.IsEmpty() && !p.lid.IsEmpty() {
		if pn, ok := cli.PNForLID(ctx, p.lid); ok {
			p.pn = pn
		} else if pn, ok := a.ops.phoneOf(p.lid); ok {
			p.pn = pn
		}
	}
	if p.lid.IsEmpty() && !p.pn.IsEmpty() {
		p.lid = a.lidOf(ctx, cli, p.pn)
	}
	return p
}

// lidOf is pn's LID from the store, or asked of WhatsApp (GetUserInfo,
// bounded by lookupTimeout, since whatsmeow's event loop waits). A lookup
// that found nothing or failed is asked again after lookupRetry, so a
// person whose LID was unknown once is still recognised later instead of
// splitting into two chats; none is asked while the number is held.
func (a *Adapter) lidOf(ctx context.Context, cli client, pn types.JID) types.JID {
	if lid, ok := cli.LIDForPN(ctx, pn); ok {
		return lid
	}
	if h, err := a.currentHold(ctx); err != nil || !h.Until.IsZero() {
		return types.JID{}
	}
	if !a.looked.due(pn.User, a.clock(), lookupRetry) {
		return types.JID{}
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	lids, err := cli.UserLIDs(ctx, []types.JID{pn})
	if err != nil {
		a.log.Warn("whatsapp LID lookup failed; asked again at the person's next message after a while", "err", err, "retry_after", lookupRetry)
	}
	return lids[pn]
}

// directKey is the chat of a direct message from p: the phone-number JID,
// unless the person's first message came with a LID WhatsApp gave no
// number for, in which case it stays the LID. The choice is pinned on the
// LID, so a later message (or a redelivery) in the other form lands in
// the same conversation and is deduplicated there.
func (a *Adapter) directKey(ctx context.Context, p person) (types.JID, error) {
	first := p.pn
	if first.IsEmpty() {
		first = p.lid
	}
	if p.lid.IsEmpty() {
		return first, nil
	}
	pctx, cancel := context.WithTimeout(ctx, a.tm.storeTimeout)
	defer cancel()
	v, err := a.aliases.Pin(pctx, Name+":"+p.lid.String(), first.String(), aliasTTL)
	if err != nil {
		return types.JID{}, fmt.Errorf("pin the chat of %s: %w", p.lid, err)
	}
	j, err := types.ParseJID(v)
	if err != nil {
		return types.JID{}, fmt.Errorf("pinned chat %q of %s: %w", v, p.lid, err)
	}
	return j, nil
}

// userID is the author's phone digits (what operators are matched
// against), or the full LID JID when the number is unknown, which can never
// match an operator's phone number by accident.
func (p person) userID() string {
	if !p.pn.IsEmpty() {
		return p.pn.User
	}
	return p.lid.String()
}

// lookups remembers when each number's LID was last asked of WhatsApp
// (bounded: it forgets them all past 10,000, which only repeats a lookup).
type lookups struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// due reports whether k may be looked up at now (never, or more than
// every ago), and if so records the lookup.
func (o *lookups) due(k string, now time.Time, every time.Duration) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.last == nil || len(o.last) > 10000 {
		o.last = map[string]time.Time{}
	}
	if t, ok := o.last[k]; ok && now.Sub(t) < every && !now.Before(t) {
		return false
	}
	o.last[k] = now
	return true
}

// operators maps the operators' LIDs to their numbers
// (admin.operators.whatsapp holds numbers; WhatsApp may show a LID).
type operators struct {
	mu   sync.Mutex
	byID map[types.JID]types.JID
}

func (o *operators) phoneOf(lid types.JID) (types.JID, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	pn, ok := o.byID[lid]
	return pn, ok
}

// resolveOperators learns the operators' LIDs, from the store or from
// WhatsApp (GetUserInfo, which also stores the mapping), so an operator
// writing from a LID is recognised. Run at each login.
func (a *Adapter) resolveOperators(ctx context.Context, cli client) {
	var ask []types.JID
	found := map[types.JID]types.JID{}
	for _, n := range a.operators {
		pn := types.NewJID(strings.TrimSpace(n), types.DefaultUserServer)
		if lid, ok := cli.LIDForPN(ctx, pn); ok {
			found[lid] = pn
		} else {
			ask = append(ask, pn)
		}
	}
	if h, err := a.currentHold(ctx); len(ask) > 0 && (err != nil || !h.Until.IsZero()) {
		a.log.Warn("whatsapp operators' LIDs not asked of WhatsApp while the number is held; an operator writing from a LID is not recognised until the next login")
		ask = nil
	}
	if len(ask) > 0 {
		ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
		lids, err := cli.UserLIDs(ctx, ask)
		cancel()
		if err != nil {
			a.log.Warn("whatsapp operators' LIDs not resolved; an operator writing from a LID is not recognised until the next login", "err", err)
		}
		for pn, lid := range lids {
			found[lid] = pn
		}
	}
	a.ops.mu.Lock()
	a.ops.byID = found
	a.ops.mu.Unlock()
}
