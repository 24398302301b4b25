package guard

import (
	"errors"
	"fmt"
	"io"
	"net/http"
)

// ReadBody reads a request body of at most limit bytes. A Content-Length
// over the limit is refused before a byte is read; a body that grows past
// it while being read (chunked) is refused as soon as it does. The buffer
// grows as the body arrives, each growth charged to the budget before it
// is made, so a declared length that never arrives holds next to nothing.
// Errors are *http.MaxBytesError (413), ErrClientBusy (429), ErrBusy
// (503), ErrSlowBody (408) or a read error (400): see Status.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	declared := r.ContentLength
	if declared > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	cb, _ := r.Body.(*chargedBody)
	size := declared // the most the buffer grows to
	if declared < 0 {
		size = limit + 1 // chunked: the byte past the limit tells a larger body
	}
	buf := []byte{}
	for {
		if len(buf) == cap(buf) {
			if int64(cap(buf)) == size {
				break // every declared byte is in
			}
			var err error
			if buf, err = grow(buf, size, cb); err != nil {
				return nil, err
			}
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read body: %w", err)
		}
	}
	if declared >= 0 && int64(len(buf)) < declared {
		return nil, fmt.Errorf("read body: %w", io.ErrUnexpectedEOF)
	}
	return buf, nil
}

// grow makes room for more of a body, up to size bytes: twice the buffer,
// at least chunk. The new room is charged before it is made; the old
// buffer is garbage once copied.
func grow(buf []byte, size int64, cb *chargedBody) ([]byte, error) {
	next := min(max(2*int64(cap(buf)), chunk), size)
	if err := cb.reserve(next - int64(cap(buf))); err != nil {
		return nil, err
	}
	out := make([]byte, len(buf), next)
	copy(out, buf)
	return out, nil
}

// LimitBody is r.Body bounded to limit bytes for a decoder; see ReadBody
// for the errors. A Content-Length over the limit fails the first read.
func LimitBody(w http.ResponseWriter, r *http.Request, limit int64) io.Reader {
	if r.ContentLength > limit {
		return errReader{&http.MaxBytesError{Limit: limit}}
	}
	return http.MaxBytesReader(w, r.Body, limit)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// Status is the answer to a body that could not be read: 413 past the
// limit (naming it), 429 when the client's allowance of bodies in flight
// is spent, 503 when the budget of all of them is full (both with
// Retry-After), 408 when the body did not arrive in time, else 400.
func Status(w http.ResponseWriter, err error) (int, string) {
	if tooBig, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return http.StatusRequestEntityTooLarge, "body: larger than " + Size(tooBig.Limit)
	}
	switch {
	case errors.Is(err, ErrClientBusy):
		w.Header().Set("Retry-After", "1")
		return http.StatusTooManyRequests, ErrClientBusy.Error() + "; retry"
	case errors.Is(err, ErrBusy):
		w.Header().Set("Retry-After", "1")
		return http.StatusServiceUnavailable, ErrBusy.Error() + "; retry"
	case errors.Is(err, ErrSlowBody):
		return http.StatusRequestTimeout, ErrSlowBody.Error()
	}
	return http.StatusBadRequest, "body: could not be read"
}

// Unread reports whether err is a body refused for its size, for the
// budget or for its deadline (413, 429, 503, 408), not one that was read
// and found bad.
func Unread(err error) bool {
	_, tooBig := errors.AsType[*http.MaxBytesError](err)
	return tooBig || errors.Is(err, ErrBusy) || errors.Is(err, ErrClientBusy) || errors.Is(err, ErrSlowBody)
}

// Size writes a byte count the way the limits table does: "1 MiB", "64 KiB".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
