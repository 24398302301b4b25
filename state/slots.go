package state

import (
	"strconv"
	"sync"
)

// clusterSlots is Redis Cluster's number of hash slots.
const clusterSlots = 16384

// tagSlot is the cluster slot of a hash tag's content: CRC16 (XMODEM)
// mod 16384, as Redis computes it.
func tagSlot(tag string) uint16 {
	var crc uint16
	for i := 0; i < len(tag); i++ {
		crc ^= uint16(tag[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc % clusterSlots
}

var (
	slotTagsOnce sync.Once
	slotTags     []string
)

// slotTag is a short string whose hash tag lands on slot: the stream unit
// of the chats of that slot is named with it.
func slotTag(slot uint16) string {
	slotTagsOnce.Do(func() {
		slotTags = make([]string, clusterSlots)
		left := clusterSlots
		for i := 0; left > 0; i++ {
			t := "u" + strconv.Itoa(i)
			if s := tagSlot(t); slotTags[s] == "" {
				slotTags[s] = t
				left--
			}
		}
	})
	return slotTags[slot]
}
