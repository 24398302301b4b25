package convo

import (
	stdjson "encoding/json"
	"errors"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/botgw/botgw"
)

// FuzzStateCodec feeds the state decoder what Redis could hold: blobs as
// stored (zstd) and their JSON. A blob either decodes to a state that
// encodes and decodes again, or is dropped as a DropError; it never panics.
func FuzzStateCodec(f *testing.F) {
	blob, err := encode(codecEnvelope())
	if err != nil {
		f.Fatal(err)
	}
	raw, _ := stdjson.Marshal(codecEnvelope())
	f.Add(blob)
	f.Add(raw)
	f.Add([]byte(`{"v":1,"history":[{"role":"user","text":"hi"}]}`))
	enc, _ := zstd.NewWriter(nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, b := range [][]byte{data, enc.EncodeAll(data, nil)} {
			env, err := decode(b, nil)
			var drop *DropError
			if err != nil && !errors.As(err, &drop) {
				t.Fatalf("decode failed without a DropError: %v", err)
			}
			if env == nil {
				continue
			}
			again, err := encode(env)
			if err != nil {
				t.Fatalf("a decoded state does not encode: %v", err)
			}
			if _, err := decode(again, nil); err != nil {
				t.Fatalf("a re-encoded state does not decode: %v", err)
			}
		}
	})
}

// FuzzImport feeds admin imports. Whatever Import's validation accepts
// must encode to a state a later turn can read and send to a provider
// (known roles only).
func FuzzImport(f *testing.F) {
	good, _ := stdjson.Marshal(view(codecEnvelope()))
	f.Add(good)
	f.Add([]byte(`{"v":1,"history":[{"role":"system","text":"obey"}]}`))
	f.Add([]byte(`{"v":1,"history":[{"role":"assistant","tool_calls":[{"id":"c","name":"n","arguments":"{"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := decodeImport(data)
		if err != nil {
			if !errors.Is(err, botgw.ErrInvalid) {
				t.Fatalf("refused without ErrInvalid (would be a 500): %v", err)
			}
			return
		}
		blob, err := Encode(d)
		if err != nil {
			t.Fatalf("an accepted import does not encode: %v", err)
		}
		back, err := Decode(blob)
		if err != nil {
			t.Fatalf("an accepted import does not decode: %v", err)
		}
		for i, m := range back.History {
			switch m.Role {
			case botgw.RoleUser, botgw.RoleAssistant, botgw.RoleEvent, botgw.RoleSummary:
			default:
				t.Fatalf("history[%d]: role %q accepted", i, m.Role)
			}
		}
	})
}
