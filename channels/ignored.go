package channels

import "sync/atomic"

// Ignored implements botgw.IgnoreCounter for an adapter to embed: the
// adapter calls Ignore for each input it reads and does not pass on. The
// zero value counts nothing until CountIgnored is called.
type Ignored struct {
	inc atomic.Pointer[func()]
}

// CountIgnored sets the counter Ignore calls.
func (i *Ignored) CountIgnored(inc func()) { i.inc.Store(&inc) }

// Ignore counts one ignored input.
func (i *Ignored) Ignore() {
	if f := i.inc.Load(); f != nil {
		(*f)()
	}
}
