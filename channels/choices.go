package channels

import (
	"strconv"
	"strings"

	"github.com/botgw/botgw"
)

// tapPrefix starts the button data the gateway writes for a choice:
// "c1:<offer ref>:<index>". The version digit lets a later format coexist
// with buttons already on players' screens.
const tapPrefix = "c1:"

// MaxTapData is the most bytes a platform carries back from a button
// (Telegram's callback_data limit).
const MaxTapData = 64

// TapData is the button data of choice i of offer: its reference and index,
// at most MaxTapData bytes. The label is not in it: platforms that send the
// tapped message back give the label from the button itself, and the
// engine finds it by the reference in the chat's history otherwise.
func TapData(offer botgw.Offer, i int) string {
	ref := offer.Ref
	if len(tapPrefix)+len(ref)+1+len(strconv.Itoa(i)) > MaxTapData {
		ref = "" // never happens for the engine's refs; the label still comes from the button
	}
	return tapPrefix + ref + ":" + strconv.Itoa(i)
}

// ParseTapData reads button data back; ok is false for data the gateway
// did not write, which the caller reports as Tap.Data.
func ParseTapData(data string) (tap botgw.Tap, ok bool) {
	rest, found := strings.CutPrefix(data, tapPrefix)
	if !found {
		return botgw.Tap{Data: data}, false
	}
	ref, idx, found := strings.Cut(rest, ":")
	i, err := strconv.Atoi(idx)
	if !found || err != nil || i < 0 || i >= botgw.MaxChoices {
		return botgw.Tap{Data: data}, false
	}
	return botgw.Tap{Ref: ref, Index: i}, true
}

// Numbered is text with the choices as a numbered list under it ("1. Take
// the ferry"), for platforms without buttons: the player answers with the
// number or the label (the engine maps either back to the choice).
func Numbered(text string, choices []string) string {
	if len(choices) == 0 {
		return text
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(text, "\n"))
	if text != "" {
		b.WriteString("\n\n")
	}
	for i, c := range choices {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strconv.Itoa(i+1) + ". " + c)
	}
	return b.String()
}
