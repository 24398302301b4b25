package guard

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the reverse proxies (trusted_proxies) whose X-Forwarded-For
// entries the gateway believes.
type Proxies []netip.Prefix

// ParseProxies reads trusted_proxies: CIDRs ("10.0.0.0/8") or single
// addresses ("192.0.2.7"). Errors name the entry (trusted_proxies[i]).
func ParseProxies(list []string) (Proxies, error) {
	out := make(Proxies, 0, len(list))
	for i, s := range list {
		p, err := parsePrefix(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("trusted_proxies[%d]: want a CIDR like 10.0.0.0/8 or an address, got %q", i, s)
		}
		out = append(out, p)
	}
	return out, nil
}

func parsePrefix(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		return p.Masked(), err
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
}

func (ps Proxies) trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Client is who sent the request: the peer address, or, when the peer is a
// trusted proxy, the nearest X-Forwarded-For hop outside the trusted
// proxies (hops are read right to left: each proxy appends the address it
// saw). An IPv6 client is its /64, the block one subscriber holds. An entry
// that is not an address ends the walk: the client is then the last
// address a trusted proxy vouched for, so made-up entries cannot make a
// client look like many.
func (ps Proxies) Client(r *http.Request) string {
	peer, ok := addrOf(r.RemoteAddr)
	if !ok {
		return r.RemoteAddr
	}
	if !ps.trusts(peer) {
		return key(peer)
	}
	hops := forwarded(r.Header)
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(hops[i])
		if err != nil {
			break
		}
		if peer = a.Unmap(); !ps.trusts(peer) {
			return key(peer)
		}
	}
	return key(peer) // every hop is a trusted proxy: the farthest one
}

// forwarded is every X-Forwarded-For entry, over all the header's lines,
// in order.
func forwarded(h http.Header) []string {
	var hops []string
	for _, line := range h.Values("X-Forwarded-For") {
		for _, hop := range strings.Split(line, ",") {
			if hop = strings.TrimSpace(hop); hop != "" {
				hops = append(hops, hop)
			}
		}
	}
	return hops
}

func addrOf(remote string) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	return a.Unmap(), err == nil
}

// key is the client's address as the rate limit counts it.
func key(a netip.Addr) string {
	if a.Is6() {
		p, _ := a.WithZone("").Prefix(64)
		return p.String()
	}
	return a.String()
}
