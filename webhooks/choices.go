package webhooks

import (
	"errors"

	"github.com/botgw/botgw"
)

// offerIn is what a request offers the player to tap (CONTRACT.md,
// "Choices the player can tap"): app events with respond, broadcasts'
// messages and operators' messages take it.
type offerIn struct {
	Choices     []string `json:"choices"`
	AskLocation bool     `json:"ask_location"`
}

// offer checks the choices against the limits; errors name the field.
func (o offerIn) offer() (botgw.Offer, error) {
	offer := botgw.Offer{Choices: o.Choices, AskLocation: o.AskLocation}
	return offer, offer.Validate("choices")
}

// offerFor checks an offer that goes with a reply the request asks for:
// without respond: true there is no reply to carry it.
func (o offerIn) offerFor(respond bool) (botgw.Offer, error) {
	offer, err := o.offer()
	switch {
	case err != nil:
		return offer, err
	case respond || offer.IsZero():
		return offer, nil
	case len(offer.Choices) > 0:
		return offer, errors.New("choices: only with respond: true (they go with the reply)")
	}
	return offer, errors.New("ask_location: only with respond: true (it goes with the reply)")
}
