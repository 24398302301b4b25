package openai_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/providertest"
)

// A photo goes to the model on its turn as the Chat Completions wire
// wants it: a content array with an image_url part holding a data URL and
// a text part with the caption; earlier photos are "[photo]" text only.
func TestPhotoIsAnImagePart(t *testing.T) {
	api := providertest.NewOpenAI(t, ok("That is the old bridge."))
	p := newProvider(t, api, nil)
	jpeg := []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00photo-bytes")
	_, err := p.Complete(t.Context(), botgw.Request{Messages: []botgw.Message{
		{Role: botgw.RoleUser, Text: "[photo] the first one", Media: botgw.MediaPhoto},
		msg("assistant", "Nice."),
		{Role: botgw.RoleUser, Text: "[photo] is this the bridge?", Media: botgw.MediaPhoto,
			Images: []botgw.Image{{MIME: "image/jpeg", Data: jpeg}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(api.Calls()[0].Raw, &raw); err != nil {
		t.Fatal(err)
	}
	if got := string(raw.Messages[0].Content); got != `"[photo] the first one"` {
		t.Errorf("an earlier photo is sent as %s, want its text only", got)
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL    string `json:"url"`
			Detail string `json:"detail"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(raw.Messages[2].Content, &parts); err != nil {
		t.Fatalf("the photo's message content %s: %v", raw.Messages[2].Content, err)
	}
	wantURL := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpeg)
	if len(parts) != 2 || parts[0].Type != "image_url" || parts[0].ImageURL.URL != wantURL ||
		parts[1].Type != "text" || parts[1].Text != "[photo] is this the bridge?" {
		t.Errorf("content parts = %+v, want the image_url data URL then the caption", parts)
	}
}
