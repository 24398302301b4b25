// Package channels holds what every chat adapter shares: the HTTP client
// for platform APIs, progress of split replies across retries, the ignored
// input counter. Formatting and splitting replies is in channels/markup, the
// conformance suite every adapter runs in channels/channeltest. Each adapter
// lives in its own sub-package, built on the platform's library.
package channels
