package whatsapp

import (
	"testing"

	"go.mau.fi/whatsmeow/store"
)

// The device WhatsApp registers when linking (whatsmeow's pairing payload
// carries store.DeviceProps) is named by device_name, so the phone shows
// it under Linked devices instead of "whatsmeow"; unset, "botgw".
func TestDeviceNameIsWhatThePhoneShows(t *testing.T) {
	cfg := linkConfig(t, "")
	cfg.DeviceName = "Quest assistant"
	testClient(t, cfg)
	if got := store.DeviceProps.GetOs(); got != "Quest assistant" {
		t.Errorf("device shown as %q, want the configured name", got)
	}
	testClient(t, linkConfig(t, ""))
	if got := store.DeviceProps.GetOs(); got != "botgw" {
		t.Errorf("device shown as %q, want botgw by default", got)
	}
}
