package whatsapp

import (
	"context"
	"fmt"
	"time"

	"go.mau.fi/whatsmeow/types/events"
)

// lockedHold is how long a number WhatsApp locked (403) or banned (406)
// stays held: until an operator lifts the hold once WhatsApp reinstated
// the number (an appeal), in practice.
const lockedHold = 365 * 24 * time.Hour

// forgetTimeout bounds deleting the logged-out device from the store.
const forgetTimeout = 30 * time.Second

const (
	lockedDetail = "WhatsApp %s this number (%d, %s): it is held and sends nothing. " +
		"Do not re-link it: a banned number that comes back is banned again. Appeal in the WhatsApp app on the phone; " +
		"once WhatsApp reinstates the number, link it again and lift the hold (POST /v1/admin/whatsapp/lift-hold)."
	loggedOutDetail = "the WhatsApp device was logged out (%s): re-link it with `botgw whatsapp link -config FILE`"
	rejectedDetail  = "WhatsApp rejected this client (%d %s): botgw stays off, as connecting again would be refused the same way. " +
		"Update botgw to a release with a newer whatsmeow, then restart it."
)

// bannedLogout reports logouts that are WhatsApp's sanctions, not an
// unlinked device: 403 (LOCKED in WhatsApp Web's code) and 406 (BANNED).
func bannedLogout(r events.ConnectFailureReason) (verb string, ok bool) {
	switch r {
	case events.ConnectFailureMainDeviceGone:
		return "locked", true
	case events.ConnectFailureUnknownLogout:
		return "banned", true
	}
	return "", false
}

// rejected reports connect failures that connecting again cannot fix.
func rejected(r events.ConnectFailureReason) bool {
	return r == events.ConnectFailureBadUserAgent || r == events.ConnectFailureClientUnknown
}

// loggedOut handles the device's logout: it deletes the device from the
// store itself (whatsmeow's own delete runs on the connection's context,
// which the session cancels as it ends, so it can be cut off and the
// revoked device would log in again and again), then alerts the operator.
// A locked or banned number is held on every replica instead of being
// offered for re-linking.
func (s *session) loggedOut(ctx context.Context, e *events.LoggedOut) {
	s.a.setCurrent(nil)
	s.forget(ctx)
	if verb, ok := bannedLogout(e.Reason); ok {
		h := s.a.holdNumber(ctx, int(e.Reason), lockedHold, fmt.Sprintf("WhatsApp %s the number (%d %s)", verb, int(e.Reason), e.Reason))
		s.a.state.update(func(st *State) { st.Linked, st.BanExpires = false, h.Until })
		s.a.setState(StateLocked, fmt.Sprintf(lockedDetail, verb, int(e.Reason), e.Reason))
		return
	}
	s.a.state.update(func(st *State) { st.Linked, st.JID = false, "" })
	s.a.setState(StateLoggedOut, fmt.Sprintf(loggedOutDetail, e.PermanentDisconnectDescription()))
}

// forget deletes the session's device from the store, on a context the
// session does not cancel.
func (s *session) forget(ctx context.Context) {
	if s.device.IsEmpty() {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), forgetTimeout)
	defer cancel()
	if err := s.cli.ForgetDevice(ctx, s.device); err != nil {
		s.a.log.Error("whatsapp logged-out device not deleted from the store: delete it, or it logs in again and is refused", "err", err)
	}
}
