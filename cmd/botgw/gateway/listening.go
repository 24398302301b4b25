package gateway

import "net"

// listening is onListen that first tells the web chat the address the
// gateway listens on (its own origins on a loopback listen on port 0).
func (gw *gateway) listening(onListen func(net.Addr)) func(net.Addr) {
	return func(addr net.Addr) {
		if gw.channels.web != nil {
			gw.channels.web.Listening(addr)
		}
		if onListen != nil {
			onListen(addr)
		}
	}
}
