package webhooks

import "time"

// Body limits of the routes this package serves; a larger body is 413
// before it is read (Content-Length) or as soon as it grows past the limit
// (chunked). docs/security.md lists every route's limit, the channel
// adapters' included.
const (
	maxEventBody     = 1 << 20  // POST /v1/events; text past limits.max_input_chars is cut where it is stored
	maxBroadcastBody = 16 << 20 // POST /v1/broadcasts: up to 100,000 chat keys
	maxImportBody    = 8 << 20  // PUT /v1/admin/chats/{chat}/export
	maxConsoleBody   = 64 << 10 // the operator console's small JSON bodies
)

// broadcastWait bounds how long POST /v1/broadcasts waits on Redis to store
// a broadcast (up to 100,000 chats in one transaction) before it answers
// 503; the broadcast's id makes the retry safe.
const broadcastWait = 10 * time.Second
