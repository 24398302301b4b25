package whatsapp

import (
	"sync"

	"go.mau.fi/whatsmeow/store"
)

const (
	defaultDeviceName = "botgw"
	maxDeviceName     = 64
)

// deviceVersion is the version shown with the device name.
var deviceVersion = [3]uint32{0, 1, 0}

func (c Config) deviceName() string {
	if c.DeviceName == "" {
		return defaultDeviceName
	}
	return c.DeviceName
}

// deviceNameMu guards whatsmeow's process-wide device properties, which
// store.SetOSInfo writes.
var deviceNameMu sync.Mutex

// setDeviceName makes the device show as name under Linked devices on the
// phone (whatsmeow sends it when pairing) instead of "whatsmeow". The
// setting is whatsmeow's, for the whole process.
func setDeviceName(name string) {
	deviceNameMu.Lock()
	defer deviceNameMu.Unlock()
	if store.DeviceProps.GetOs() == name {
		return
	}
	store.SetOSInfo(name, deviceVersion)
}
