package codec

import (
	stdjson "encoding/json"
	"errors"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// FuzzStateCodec feeds the state decoder what Redis could hold: blobs as
// stored (zstd) and their JSON. A blob either decodes to a state that
// encodes and decodes again, or is dropped as a DropError; it never panics.
func FuzzStateCodec(f *testing.F) {
	blob, err := Encode(codecEnvelope())
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
			env, err := Decode(b, nil)
			var drop *DropError
			if err != nil && !errors.As(err, &drop) {
				t.Fatalf("decode failed without a DropError: %v", err)
			}
			if env == nil {
				continue
			}
			again, err := Encode(env)
			if err != nil {
				t.Fatalf("a decoded state does not encode: %v", err)
			}
			if _, err := Decode(again, nil); err != nil {
				t.Fatalf("a re-encoded state does not decode: %v", err)
			}
		}
	})
}
