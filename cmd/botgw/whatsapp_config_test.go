//go:build !nowhatsapp

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A WhatsApp operator written with "+" or spaces would never match a
// sender (WhatsApp user ids are digits): config check refuses it and says
// how to write it.
func TestConfigRefusesWhatsAppOperatorsNotInDigits(t *testing.T) {
	store := "sqlite://" + filepath.Join(t.TempDir(), "wa.db")
	out := checkFails(t, `
channels:
  whatsapp:
    store: `+store+`
admin:
  operators:
    whatsapp: ["447700900123", "+44 7700 900124"]
`, `admin.operators.whatsapp[1]: "+44 7700 900124" is not a phone number in digits: write it as 447700900123, no + or spaces`)
	if strings.Contains(out, "whatsapp[0]") {
		t.Errorf("the valid number was refused:\n%s", out)
	}
}
