package botgw

import "testing"

func TestLocationText(t *testing.T) {
	tests := []struct {
		l    Location
		want string
	}{
		{Location{Latitude: 53.99212, Longitude: -1.54181}, "53.99212, -1.54181"},
		{Location{Latitude: 54, Longitude: -1.5}, "54.00000, -1.50000"},
		{Location{Latitude: 53.9921234, Longitude: -1.5418}, "53.9921234, -1.54180"},
		{Location{Latitude: 53.99466, Longitude: -1.53897, Title: "Harrogate Theatre", Address: " Oxford St "},
			"53.99466, -1.53897\nHarrogate Theatre\nOxford St"},
	}
	for _, tc := range tests {
		if got := tc.l.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.l, got, tc.want)
		}
	}
	for _, bad := range []Location{{Latitude: 91}, {Longitude: -180.5}} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// Of a photo's renditions, the largest under the limit is taken: by
// bytes where known, else by pixels; none fits when all are larger.
func TestMediaPick(t *testing.T) {
	m := Media{Kind: MediaPhoto, Sizes: []MediaSize{
		{Ref: "s", Size: 1_000, Width: 90, Height: 60},
		{Ref: "m", Size: 50_000, Width: 320, Height: 240},
		{Ref: "l", Size: 900_000, Width: 1280, Height: 960},
	}}
	for limit, want := range map[int64]string{1 << 20: "l", 100_000: "m", 1_000: "s"} {
		if got, ok := m.Pick(limit); !ok || got.Ref != want || got.Sizes != nil {
			t.Errorf("Pick(%d) = %q %v, want %q", limit, got.Ref, ok, want)
		}
	}
	if _, ok := m.Pick(999); ok {
		t.Error("Pick(999) found a rendition although all are larger")
	}
	unknown := Media{Sizes: []MediaSize{{Ref: "a", Width: 90, Height: 60}, {Ref: "b", Width: 800, Height: 600}}}
	if got, _ := unknown.Pick(1 << 20); got.Ref != "b" {
		t.Errorf("without sizes picked %q, want the most pixels", got.Ref)
	}
}
