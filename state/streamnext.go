package state

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/botgw/botgw"
)

// StreamBatch is one read of a sink's stream unit: records as stored,
// oldest first, each with the seq the relay delivers it under.
type StreamBatch struct {
	Raws  []string
	Seqs  []int64
	chats []string // the chats of the read, as their records store them
	of    []int64  // each record's chat, an index into chats from 1
}

// Record decodes the batch's ith record with its seq and id, and returns
// when it was committed.
func (b StreamBatch) Record(i int) (botgw.StreamRecord, time.Time, error) {
	r, at, err := DecodeStreamRecord(b.Raws[i])
	if err == nil {
		r.Seq = b.Seqs[i]
		r.ID = botgw.StreamID(r.ConversationID, r.Seq)
	}
	return r, at, err
}

// StreamNext removes the first n records of done, a batch of the unit read
// before, once the sink took them, noting each chat's last seq among them;
// then reads up to m records that follow, numbered. It reports whether
// done's records were removed: false when another relay trimmed the list
// meanwhile (nothing is removed; the read shows the list as it is).
func (s *Store) StreamNext(ctx context.Context, sink, tag string, done StreamBatch, n, m int) (StreamBatch, bool, error) {
	count := "0"
	if s.cluster {
		count = "1"
	}
	args := []any{n, "", m, count}
	if n > 0 {
		args[1] = done.Raws[n-1]
		args = append(args, done.lasts(n)...)
	}
	keys := []string{s.streamList(sink, tag), s.seqHash(sink, tag)}
	res, err := streamNextScript.Run(ctx, s.c, keys, args...).Slice()
	if err == nil && len(res) != 6 {
		err = fmt.Errorf("an answer of %d parts, want 6", len(res))
	}
	if err != nil {
		return StreamBatch{}, false, fmt.Errorf("relay stream %s unit %s: %w", sink, tag, err)
	}
	acked, _ := res[0].(int64)
	if left, _ := res[1].(int64); left == 0 {
		s.unlistUnit(ctx, sink, tag)
	}
	b := StreamBatch{Raws: elems[string](res[2]), Seqs: elems[int64](res[3]), chats: elems[string](res[4]), of: elems[int64](res[5])}
	if len(b.Seqs) != len(b.Raws) || len(b.of) != len(b.Raws) {
		return StreamBatch{}, false, fmt.Errorf("relay stream %s unit %s: a read of %d records with %d seqs", sink, tag, len(b.Raws), len(b.Seqs))
	}
	return b, acked == 1, nil
}

// lasts are the HSET pairs of the first n records: each chat and
// "<seq>:<ms>" of its last record among them.
func (b StreamBatch) lasts(n int) []any {
	last := map[int64]int{}
	for i := range n {
		last[b.of[i]] = i
	}
	out := make([]any, 0, 2*len(last))
	for c, i := range last {
		var st stored
		_ = json.Unmarshal([]byte(b.Raws[i]), &st) // undecodable: ms 0, pruned first
		out = append(out, b.chats[c-1], strconv.FormatInt(b.Seqs[i], 10)+":"+strconv.FormatInt(st.Ms, 10))
	}
	return out
}

// elems are the elements of a script's array answer v, as T.
func elems[T any](v any) []T {
	vs, _ := v.([]any)
	out := make([]T, len(vs))
	for i, x := range vs {
		out[i], _ = x.(T)
	}
	return out
}

// stored is a stored record: the record and when it was committed.
type stored struct {
	botgw.StreamRecord
	Ms int64 `json:"ms"`
}

// DecodeStreamRecord decodes a stored record and returns when it was
// committed. Its Seq and ID are those of the read that numbered it
// (StreamBatch.Record), zero here.
func DecodeStreamRecord(raw string) (botgw.StreamRecord, time.Time, error) {
	var st stored
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		return botgw.StreamRecord{}, time.Time{}, fmt.Errorf("decode stream record: %w", err)
	}
	return st.StreamRecord, time.UnixMilli(st.Ms), nil
}
