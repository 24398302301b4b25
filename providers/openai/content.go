package openai

import (
	"encoding/base64"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	sdk "github.com/openai/openai-go/v3"

	"github.com/botgw/botgw"
)

// content is a message's "content": a string, or for a user message with
// photos an array of the SDK's content parts (image_url parts with a data
// URL, then a text part with the caption).
type content struct {
	text  *string
	parts []sdk.ChatCompletionContentPartUnionParam
}

func text(s *string) content { return content{text: s} }

func (c content) IsZero() bool { return c.text == nil && c.parts == nil }

// MarshalJSONTo writes the string or the parts (the SDK's own encoding).
func (c content) MarshalJSONTo(enc *jsontext.Encoder) error {
	if c.parts != nil {
		return json.MarshalEncode(enc, c.parts)
	}
	return enc.WriteToken(jsontext.String(*c.text))
}

// userMessage is a user message: its text, or with the turn's photos the
// image parts and the text.
func userMessage(m *botgw.Message) message {
	if len(m.Images) == 0 {
		return message{Role: "user", Content: text(&m.Text)}
	}
	parts := make([]sdk.ChatCompletionContentPartUnionParam, 0, len(m.Images)+1)
	for _, img := range m.Images {
		parts = append(parts, sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{
			URL: dataURL(img), Detail: "auto"}))
	}
	parts = append(parts, sdk.TextContentPart(m.Text))
	return message{Role: "user", Content: content{parts: parts}}
}

// dataURL is data:<mime>;base64,<the photo's bytes>.
func dataURL(img botgw.Image) string {
	prefix := "data:" + img.MIME + ";base64,"
	b := make([]byte, len(prefix)+base64.StdEncoding.EncodedLen(len(img.Data)))
	copy(b, prefix)
	base64.StdEncoding.Encode(b[len(prefix):], img.Data)
	return string(b)
}
