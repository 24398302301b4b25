package media

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // decoders image.Decode reads
	"image/jpeg"
	_ "image/png"
	"math"

	"github.com/botgw/botgw"
)

// fit returns img within limit bytes: as it is when it fits (or limit is
// 0), else scaled down and re-encoded as JPEG until it fits. WebP photos
// cannot be decoded here and are refused when too large.
func fit(img botgw.Image, limit int64) (botgw.Image, error) {
	if limit <= 0 || int64(len(img.Data)) <= limit {
		return img, nil
	}
	if img.MIME == "image/webp" {
		return img, fmt.Errorf("a %d-byte WebP photo over the provider's %d bytes: %w", len(img.Data), limit, botgw.ErrTooLarge)
	}
	src, _, err := image.Decode(bytes.NewReader(img.Data))
	if err != nil {
		return img, fmt.Errorf("decode photo: %w", err)
	}
	size := int64(len(img.Data))
	for range 5 {
		f := math.Sqrt(float64(limit)/float64(size)) * 0.9
		src = shrink(src, f)
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: 85}); err != nil {
			return img, fmt.Errorf("encode photo: %w", err)
		}
		if size = int64(buf.Len()); size <= limit {
			return botgw.Image{MIME: "image/jpeg", Data: buf.Bytes()}, nil
		}
	}
	return img, errors.New("photo still over the provider's limit after scaling")
}

// shrink scales src by f (< 1), averaging the source pixels each
// destination pixel covers.
func shrink(src image.Image, f float64) image.Image {
	b := src.Bounds()
	w, h := max(1, int(float64(b.Dx())*f)), max(1, int(float64(b.Dy())*f))
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		y0, y1 := b.Min.Y+y*b.Dy()/h, b.Min.Y+(y+1)*b.Dy()/h
		for x := range w {
			x0, x1 := b.Min.X+x*b.Dx()/w, b.Min.X+(x+1)*b.Dx()/w
			dst.SetRGBA(x, y, average(src, x0, y0, max(x1, x0+1), max(y1, y0+1)))
		}
	}
	return dst
}

func average(src image.Image, x0, y0, x1, y1 int) color.RGBA {
	var r, g, bl, a, n uint64
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			cr, cg, cb, ca := src.At(x, y).RGBA()
			r, g, bl, a, n = r+uint64(cr), g+uint64(cg), bl+uint64(cb), a+uint64(ca), n+1
		}
	}
	return color.RGBA{R: uint8(r / n >> 8), G: uint8(g / n >> 8), B: uint8(bl / n >> 8), A: uint8(a / n >> 8)}
}
