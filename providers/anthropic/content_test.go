package anthropic_test

import (
	"encoding/base64"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/providertest"
)

// A photo goes to Claude on its turn as a base64 image block before the
// caption's text block.
func TestPhotoIsAnImageBlock(t *testing.T) {
	api := providertest.NewAnthropic(t, ok("That is the old bridge."))
	p := newProvider(t, api, nil)
	png := []byte("\x89PNG\r\n\x1a\nphoto-bytes")
	_, err := p.Complete(t.Context(), botgw.Request{System: "sys", Messages: []botgw.Message{
		{Role: botgw.RoleUser, Text: "[photo] is this the bridge?", Media: botgw.MediaPhoto,
			Images: []botgw.Image{{MIME: "image/png", Data: png}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	blocks := api.Calls()[0].Body.Messages[0].Content
	if len(blocks) != 2 || blocks[0].Type != "image" || blocks[0].Source == nil || blocks[1].Type != "text" {
		t.Fatalf("blocks = %+v, want an image block then the text", blocks)
	}
	src := blocks[0].Source
	if src.Type != "base64" || src.MediaType != "image/png" || src.Data != base64.StdEncoding.EncodeToString(png) {
		t.Errorf("image source = %+v", src)
	}
	if blocks[1].Text != "[photo] is this the bridge?" {
		t.Errorf("text block %q", blocks[1].Text)
	}
}
