// Package channeltest is what tests of chat channels share; production code
// never imports it.
//
//   - Run: the conformance suite every adapter passes (receiving, sending,
//     errors, typing, formatting), driven by a small per-adapter Harness.
//   - Corpus and the golden files in testdata: Markdown as models write it
//     and what each platform must receive for it (go test -update rewrites
//     them); CheckParts checks split replies as a platform would.
//   - Fakes speaking the platforms' wire formats: BotAPI (Telegram Bot API),
//     SlackAPI and SlackSocket (Slack Web API and Socket Mode), Store (the
//     gateway's durable, deduplicating Deliver) and Recorder (a Channel that
//     records what it is asked to send).
//
// It is an ordinary package rather than an internal one because cmd/botgw's
// end-to-end tests use the same fakes, and Go's internal rule would hide
// channels/internal from them.
package channeltest
