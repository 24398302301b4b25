package channels

import (
	"strings"
	"testing"

	"github.com/botgw/botgw"
)

func TestTapDataRoundTrip(t *testing.T) {
	offer := botgw.Offer{Ref: "Zx9_-aB3kQ0", Choices: []string{"a", "b"}}
	for i := range botgw.MaxChoices {
		data := TapData(offer, i)
		if len(data) > MaxTapData {
			t.Fatalf("TapData %q is %d bytes, over Telegram's %d", data, len(data), MaxTapData)
		}
		tap, ok := ParseTapData(data)
		if !ok || tap.Ref != offer.Ref || tap.Index != i {
			t.Errorf("ParseTapData(%q) = %+v, %v; want ref %q index %d", data, tap, ok, offer.Ref, i)
		}
	}
	long := botgw.Offer{Ref: strings.Repeat("r", 80)}
	if data := TapData(long, 3); len(data) > MaxTapData {
		t.Errorf("a long ref gave %d bytes of data, want at most %d", len(data), MaxTapData)
	}
}

func TestParseTapDataUnknown(t *testing.T) {
	for _, data := range []string{"", "buy:42", "c1:ref", "c1:ref:x", "c1:ref:10", "c1:ref:-1", "c2:ref:1"} {
		if tap, ok := ParseTapData(data); ok || tap.Data != data {
			t.Errorf("ParseTapData(%q) = %+v, %v; want unknown data kept", data, tap, ok)
		}
	}
}

func TestNumbered(t *testing.T) {
	got := Numbered("The bridge is closed.", []string{"Take the ferry", "Walk"})
	if want := "The bridge is closed.\n\n1. Take the ferry\n2. Walk"; got != want {
		t.Errorf("Numbered = %q, want %q", got, want)
	}
	if got := Numbered("plain", nil); got != "plain" {
		t.Errorf("Numbered without choices = %q", got)
	}
}
