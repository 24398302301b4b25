//go:build !nowhatsapp

package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/wait"
	"go.mau.fi/whatsmeow/proto/waAdv"
	"go.mau.fi/whatsmeow/store/sqlstore"
	"go.mau.fi/whatsmeow/types"
)

// TestFaultWhatsAppSessionLeaseAcrossProcesses runs two replicas of the
// built binary that share one linked WhatsApp device and one Redis. The
// network to WhatsApp is a loopback port nobody listens on, so the holder
// keeps trying to connect, as it would during an outage. Exactly one
// replica holds the session; kill -9 of the holder hands it to the other
// within the lease TTL; SIGTERM of the holder hands it over at once.
func TestFaultWhatsAppSessionLeaseAcrossProcesses(t *testing.T) {
	target := sharedRedis(t)
	const ttl = 3 * time.Second
	store := "sqlite://" + filepath.Join(t.TempDir(), "whatsapp.db")
	linkTestDevice(t, store)

	_, llmURL := newFaultLLM(t)
	prefix := "botgwfault-" + randomSuffix()
	cleanRedis(t, target.shared, prefix+":*")
	wa := fmt.Sprintf("channels:\n  whatsapp: {store: %q, lease_ttl: %s, proxy: %q}\n", store, ttl, "http://"+closedPort(t))
	var rs []*replica
	for _, name := range []string{"a", "b"} {
		cfg := strings.Replace(faultConfig(target.keys, prefix, llmURL, "sk-"+name, "http://127.0.0.1:1"), "channels:\n", wa, 1)
		rs = append(rs, startReplica(t, name, cfg))
	}

	holder := waitForOneHolder(t, rs, 10*time.Second)
	other := rs[1-holder]
	if s := waState(t, other); s.State != "standby" {
		t.Errorf("replica %s without the lease is %q, want standby", other.name, s.State)
	}

	rs[holder].kill(t)
	killed := time.Now()
	wait.Eventually(t, "the condition", func() bool { return waState(t, other).LeaseHeld })
	took := time.Since(killed)
	t.Logf("replica %s took the session over %s after replica %s was killed (lease_ttl %s)", other.name, took.Round(100*time.Millisecond), rs[holder].name, ttl)
	if took > ttl+ttl/3+time.Second {
		t.Errorf("takeover after kill -9 took %s, want within lease_ttl (%s) plus one retry (%s)", took, ttl, ttl/3)
	}

	// The killed replica comes back as a standby, then a graceful stop of
	// the holder releases the lease instead of letting it expire.
	rs[holder].start(t)
	wait.Eventually(t, "the condition", func() bool { return waState(t, rs[holder]).State == "standby" })
	if s := waState(t, rs[holder]); s.LeaseHeld {
		t.Fatalf("restarted replica %s holds the lease while %s does", rs[holder].name, other.name)
	}
	other.stop(t)
	stopped := time.Now()
	wait.Eventually(t, "the condition", func() bool { return waState(t, rs[holder]).LeaseHeld })
	t.Logf("after SIGTERM of %s, %s took the session over in %s", other.name, rs[holder].name, time.Since(stopped).Round(100*time.Millisecond))
}

// waView is the part of GET /v1/admin/whatsapp this test reads.
type waView struct {
	State     string `json:"state"`
	LeaseHeld bool   `json:"lease_held"`
}

func waState(t *testing.T, r *replica) waView {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, r.base+"/v1/admin/whatsapp", nil)
	req.Header.Set("Authorization", "Bearer "+faultAdminToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return waView{State: "unreachable"}
	}
	defer res.Body.Close()
	var v struct {
		Status waView `json:"status"`
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/admin/whatsapp on %s: %s", r.name, res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
		t.Fatalf("GET /v1/admin/whatsapp on %s: %v", r.name, err)
	}
	return v.Status
}

// waitForOneHolder waits until one replica holds the session lease and
// fails if two ever do at once.
func waitForOneHolder(t *testing.T, rs []*replica, within time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		holder := -1
		for i, r := range rs {
			if waState(t, r).LeaseHeld {
				if holder >= 0 {
					t.Fatalf("replicas %s and %s both hold the WhatsApp session lease", rs[holder].name, r.name)
				}
				holder = i
			}
		}
		if holder >= 0 {
			return holder
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no replica took the WhatsApp session lease within %s", within)
	return -1
}

// linkTestDevice saves a paired device in store as whatsmeow does on
// pair-success, so the gateway sees a linked number.
func linkTestDevice(t *testing.T, store string) {
	t.Helper()
	ctx := context.Background()
	path := strings.TrimPrefix(store, "sqlite://")
	c, err := sqlstore.New(ctx, "sqlite", "file:"+path+"?_pragma=foreign_keys(1)", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	dev := c.NewDevice()
	dev.ID = &types.JID{User: "447700900999", Device: 7, Server: types.DefaultUserServer}
	dev.Account = &waAdv.ADVSignedDeviceIdentity{
		Details: []byte{1}, AccountSignature: make([]byte, 64), AccountSignatureKey: make([]byte, 32), DeviceSignature: make([]byte, 64),
	}
	if err := c.PutDevice(ctx, dev); err != nil {
		t.Fatalf("save the linked device: %v", err)
	}
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
