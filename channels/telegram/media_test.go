package telegram

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/botgw/botgw"
)

// A photo is fetched as the Bot API serves it: getFile, then the file URL
// with the token; what is too large or gone comes back as the errors the
// gateway answers with a notice, and no error carries the token.
func TestFetchMedia(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	jpeg := append([]byte("\xff\xd8\xff\xe0"), bytes.Repeat([]byte{7}, 5000)...)
	ta.api.AddFile("photo-1", jpeg)
	ta.api.AddLargeFile("big", 30<<20)
	ta.api.AddGoneFile("gone")
	ta.api.AddFile("grown", bytes.Repeat([]byte{1}, 3000))

	got, err := ta.FetchMedia(t.Context(), botgw.Media{Kind: botgw.MediaPhoto, Ref: "photo-1"}, 1<<20)
	if err != nil || !bytes.Equal(got, jpeg) {
		t.Fatalf("fetched %d bytes, err %v; want the photo's %d", len(got), err, len(jpeg))
	}
	if ta.api.FileDownloads() != 1 || len(ta.api.CallsTo("getFile")) != 1 {
		t.Errorf("getFile calls %d, downloads %d; want one each", len(ta.api.CallsTo("getFile")), ta.api.FileDownloads())
	}
	tests := []struct {
		ref   string
		limit int64
		want  error
	}{
		{"big", 5 << 20, botgw.ErrTooLarge},  // Telegram refuses files over 20 MB
		{"grown", 2000, botgw.ErrTooLarge},   // file_size over the limit: not downloaded
		{"gone", 5 << 20, botgw.ErrNotFound}, // the file path answers 404
		{"unknown", 5 << 20, botgw.ErrNotFound},
	}
	for _, tc := range tests {
		_, err := ta.FetchMedia(t.Context(), botgw.Media{Ref: tc.ref}, tc.limit)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err %v, want %v", tc.ref, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), testToken) {
			t.Errorf("%s: the error carries the bot token: %v", tc.ref, err)
		}
	}
}
