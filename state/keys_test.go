package state

import (
	"strings"
	"testing"

	"github.com/botgw/botgw"
)

// crc16 is CRC16-XMODEM (poly 0x1021, init 0), Redis Cluster's key hash.
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// slot follows the cluster spec: hash only the part between the first "{"
// and the next "}", when that part is non-empty.
func slot(key string) uint16 {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	return crc16(key) % 16384
}

func TestSlotAlgorithm(t *testing.T) {
	// The cluster spec's reference value: CRC16 of "123456789" is 0x31C3.
	if got := crc16("123456789"); got != 0x31c3 {
		t.Fatalf("crc16(123456789) = %#x, want 0x31c3", got)
	}
	if slot("{user1000}.following") != slot("{user1000}.followers") {
		t.Error("keys with one hash tag hash to different slots")
	}
}

func TestChatKeysShareSlot(t *testing.T) {
	s := New(nil, "", Options{})
	for _, raw := range []string{"telegram:-1001234567890/42", "slack:C0123ABC/1700000000.000100", "whatsapp:447700900123@s.whatsapp.net", "web:x"} {
		k, err := botgw.ParseChatKey(raw)
		if err != nil {
			t.Fatal(err)
		}
		ks, err := s.keys(k)
		if err != nil {
			t.Fatal(err)
		}
		want := crc16(raw) % 16384
		for _, key := range []string{ks.state, ks.pending, ks.outbox, ks.lease, ks.seen} {
			if got := slot(key); got != want {
				t.Errorf("%s: slot %d, want %d (the slot of %q)", key, got, want, raw)
			}
		}
	}
}

func TestWorkShardsSpreadOverSlots(t *testing.T) {
	s := New(nil, "", Options{})
	slots := map[uint16]bool{}
	for i := range uint32(workShards) {
		slots[slot(s.workKey(i))] = true
	}
	if len(slots) != workShards {
		t.Errorf("%d work shards use %d slots, want one each", workShards, len(slots))
	}
}
