package channeltest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/botgw/botgw"
)

const (
	CaseShortReply  = "outbound/short-reply"
	CaseLongReply   = "outbound/long-reply-split"
	CaseResume      = "outbound/resume-after-failed-part"
	CaseTemporary   = "outbound/temporary-error"
	CaseRateLimited = "outbound/rate-limited-error"
	CasePermanent   = "outbound/permanent-error"
	CaseTyping      = "outbound/typing"
	CaseCorpus      = "format/corpus"
)

// longCaseNames are the corpus replies longer than any platform's limit.
var longCaseNames = []string{"long-paragraphs", "long-code-block", "emoji-run-without-spaces", "cjk-near-limit", "link-at-limit", "long-table"}

var outboundCases = []suiteCase{
	{CaseShortReply, func(t *testing.T, h Harness, e *env) {
		text := "Hello **there**, see `x_y` & [the map](https://example.com/map_(a))."
		got := e.send(t, h, "r1", text)
		if want := h.Dialect.Render(text); !slices.Equal(got, want) {
			t.Errorf("platform got %q, want %q", got, want)
		}
	}},
	{CaseLongReply, func(t *testing.T, h Harness, e *env) {
		golden := h.golden(t)
		for _, c := range corpusCases(longCaseNames...) {
			got := e.send(t, h, c.Name, c.Markdown)
			if err := CheckParts(h.Dialect, got); err != nil {
				t.Errorf("%s: %v", c.Name, err)
			}
			if len(got) < 2 {
				t.Errorf("%s: %d message(s), want it split", c.Name, len(got))
			}
			comparePartsTo(t, c.Name, got, golden[c.Name])
		}
	}},
	{CaseResume, resume},
	{CaseTemporary, func(t *testing.T, h Harness, e *env) {
		pe := e.failedSend(t, h, Temporary)
		if pe.Permanent {
			t.Errorf("%v is marked permanent; a server error may pass", pe)
		}
	}},
	{CaseRateLimited, func(t *testing.T, h Harness, e *env) {
		pe := e.failedSend(t, h, RateLimited)
		if pe.Permanent || pe.RetryAfter <= 0 {
			t.Errorf("got retry after %v, permanent %v; want the platform's Retry-After, not permanent", pe.RetryAfter, pe.Permanent)
		}
	}},
	{CasePermanent, func(t *testing.T, h Harness, e *env) {
		if pe := e.failedSend(t, h, Permanent); !pe.Permanent {
			t.Errorf("%v is not marked permanent; retrying cannot help", pe)
		}
	}},
	{CaseTyping, typing},
	{CaseCorpus, func(t *testing.T, h Harness, e *env) {
		golden := h.golden(t)
		for _, c := range Corpus() {
			comparePartsTo(t, c.Name, e.send(t, h, "c-"+c.Name, c.Markdown), golden[c.Name])
		}
	}},
}

// resume: part 2 of a long reply fails; the error says one part was taken;
// the retry in this process sends the rest once, and so does a retry on
// another replica (a fresh adapter) told the recorded count (Outbound.Sent).
func resume(t *testing.T, h Harness, e *env) {
	c := corpusCases("long-paragraphs")[0]
	want := h.golden(t)[c.Name]
	out := botgw.Outbound{Chat: e.privateKey(h), ID: "r-resume", Text: c.Markdown}
	e.Fail(Temporary, 1)
	pe, ok := errors.AsType[*botgw.PlatformError](e.ch.Send(t.Context(), out))
	if !ok || pe.Sent != 1 {
		t.Fatalf("Send with part 2 refused returned %v, want a *botgw.PlatformError with Sent 1", pe)
	}
	e.Fail(OK, 0)
	if err := e.ch.Send(t.Context(), out); err != nil {
		t.Fatalf("retried Send: %v", err)
	}
	comparePartsTo(t, "retried reply", e.Sent(), want)
	other := newEnv(t, h)
	out.Sent = pe.Sent
	if err := other.ch.Send(t.Context(), out); err != nil {
		t.Fatalf("Send on another replica: %v", err)
	}
	comparePartsTo(t, "reply retried on another replica", other.Sent(), want[1:])
}

func typing(t *testing.T, h Harness, e *env) {
	ty, ok := e.ch.(botgw.Typer)
	if !ok {
		t.Fatal("the adapter is not a botgw.Typer; declare the case lacking if the platform has no typing signal")
	}
	in := e.one(t, h.msg(1, Text, Private, "are you there?"))
	stop := ty.StartTyping(t.Context(), in)
	defer stop()
	deadline := time.Now().Add(10 * time.Second) // a hung test guard, not a speed check
	for e.Typing() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the platform was never shown a typing signal")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (e *env) privateKey(h Harness) botgw.ChatKey { return e.Key(h.msg(1, Text, Private, "")) }

// send sends text as one reply to the private chat and returns the
// messages the platform accepted for it.
func (e *env) send(t *testing.T, h Harness, id, text string) []string {
	t.Helper()
	before := len(e.Sent())
	if err := e.ch.Send(t.Context(), botgw.Outbound{Chat: e.privateKey(h), ID: id, Text: text}); err != nil {
		t.Fatalf("Send %s: %v", id, err)
	}
	return e.Sent()[before:]
}

// failedSend sends while the platform refuses with f and returns the error.
func (e *env) failedSend(t *testing.T, h Harness, f Failure) *botgw.PlatformError {
	t.Helper()
	e.Fail(f, 0)
	err := e.ch.Send(t.Context(), botgw.Outbound{Chat: e.privateKey(h), ID: "r-fail", Text: "hello"})
	pe, ok := errors.AsType[*botgw.PlatformError](err)
	if !ok {
		t.Fatalf("Send returned %v, want a *botgw.PlatformError", err)
	}
	if pe.Channel != e.ch.Name() {
		t.Errorf("PlatformError.Channel %q, want %q", pe.Channel, e.ch.Name())
	}
	return pe
}

func (h Harness) golden(t *testing.T) map[string][]string {
	g, err := Golden(h.Dialect.Name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func corpusCases(names ...string) []Case {
	var out []Case
	for _, c := range Corpus() {
		if slices.Contains(names, c.Name) {
			out = append(out, c)
		}
	}
	return out
}
