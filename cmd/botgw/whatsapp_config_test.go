//go:build !nowhatsapp

package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botgw/botgw/internal/e2e"
)

// A WhatsApp operator written with "+" or spaces would never match a
// sender (WhatsApp user ids are digits): config check refuses it and says
// how to write it.
func TestConfigRefusesWhatsAppOperatorsNotInDigits(t *testing.T) {
	store := "sqlite://" + filepath.Join(t.TempDir(), "wa.db")
	p := e2e.WriteFile(t, `
channels:
  whatsapp:
    store: `+store+`
admin:
  operators:
    whatsapp: ["447700900123", "+44 7700 900124"]
`)
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"config", "check", "-config", p}, &out, &errOut); err == nil {
		t.Fatal("config check passed an operator number with + and spaces")
	}
	want := `admin.operators.whatsapp[1]: "+44 7700 900124" is not a phone number in digits: write it as 447700900123, no + or spaces`
	if !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
	if strings.Contains(out.String(), "whatsapp[0]") {
		t.Errorf("the valid number was refused:\n%s", out.String())
	}
}
