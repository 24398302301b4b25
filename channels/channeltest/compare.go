package channeltest

import "testing"

// comparePartsTo reports, under the case's name, how the messages got
// differ from the ones wanted.
func comparePartsTo(t testing.TB, name string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d message(s), want %d", name, len(got), len(want))
		return
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s: message %d of %d\n got: %q\nwant: %q", name, i+1, len(got), got[i], want[i])
		}
	}
}
