//go:build !nowhatsapp

package main

import "testing"

// config check names a bad cold_daily_cap by its key path.
func TestConfigCheckNamesColdDailyCap(t *testing.T) {
	checkFails(t, `
listen: "127.0.0.1:8080"
provider:
  kind: fake
channels:
  whatsapp:
    store: sqlite://wa.db
    cold_daily_cap: -1
`, "channels.whatsapp.cold_daily_cap: -1 is negative")
}
