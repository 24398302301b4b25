package botgw

import (
	"errors"
	"fmt"
	"time"
)

var (
	ErrNotFound    = errors.New("not found")
	ErrBusy        = errors.New("busy")
	ErrConflict    = errors.New("state version conflict")
	ErrLeaseLost   = errors.New("lease lost")
	ErrDuplicate   = errors.New("duplicate")
	ErrUnsupported = errors.New("unsupported")
	// ErrCancelled is the cause of a send stopped because its reply is no
	// longer wanted (its broadcast was cancelled).
	ErrCancelled = errors.New("cancelled")
	ErrBadCursor = errors.New("not a cursor this list handed out")
	// ErrInvalidInput is input that can never be stored (a chat key or a
	// field the store cannot hold): retrying cannot help.
	ErrInvalidInput = errors.New("input cannot be stored")
	// ErrInvalid: an operator's or API client's request is malformed (a
	// cursor the store did not hand out, an import that would break the
	// chat). The error's text names the field; HTTP answers it with 400.
	ErrInvalid = errors.New("invalid")
	// ErrTooLarge: a file is larger than the gateway takes.
	ErrTooLarge = errors.New("too large")
)

// ProviderError is a failed LLM call, translated from the vendor SDK's error.
type ProviderError struct {
	Provider   string        // provider ID
	Status     int           // HTTP status; 0 for transport errors and timeouts
	Code       string        // vendor error code or type, when given
	RetryAfter time.Duration // from Retry-After, when given
	Err        error
}

func (e *ProviderError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s: %v", e.Provider, e.Err)
	}
	return fmt.Sprintf("%s: %d: %v", e.Provider, e.Status, e.Err)
}

func (e *ProviderError) Unwrap() error { return e.Err }

// Retryable reports whether the same call may succeed later: rate limits,
// server errors, timeouts and transport failures.
func (e *ProviderError) Retryable() bool {
	return e.Status == 0 || e.Status == 408 || e.Status == 409 || e.Status == 429 || e.Status >= 500
}

// PlatformError is a failed send to a chat platform.
type PlatformError struct {
	Channel    string
	Status     int           // HTTP status, when there was one
	RetryAfter time.Duration // from the platform's rate-limit answer
	Permanent  bool          // retrying cannot help (blocked bot, bad chat id)
	// Waiting says why the channel cannot send for now (its account is
	// banned, held or disconnected): the reply waits in the outbox for
	// the channel to come back, and the wait costs no delivery round.
	Waiting string
	// Sent is how many parts of a split reply the platform had taken when
	// the send failed (0: none, or not split); a retry resumes after them.
	Sent int
	// Reason, when set, is the dead letter's reason for a permanent
	// refusal (Slack: "uninstalled") instead of the error's text.
	Reason string
	Err    error
}

func (e *PlatformError) Error() string {
	return fmt.Sprintf("%s: send: %v", e.Channel, e.Err)
}

func (e *PlatformError) Unwrap() error { return e.Err }
