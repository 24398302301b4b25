package fake_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/fake"
)

func user(text string) botgw.Message { return botgw.Message{Role: botgw.RoleUser, Text: text} }

func TestScriptedStepsThenDemo(t *testing.T) {
	boom := &botgw.ProviderError{Provider: fake.ID, Status: 500}
	call := botgw.ToolCall{ID: "c1", Name: "get_location", Arguments: `{}`}
	p := fake.New(
		fake.Step{ToolCalls: []botgw.ToolCall{call}},
		fake.Step{Err: boom},
		fake.Step{Text: "scripted"},
	)
	req := botgw.Request{Messages: []botgw.Message{user("hi")}}
	ctx := t.Context()

	r, err := p.Complete(ctx, req)
	if err != nil || len(r.ToolCalls) != 1 || r.ToolCalls[0] != call {
		t.Fatalf("step 1 = %+v, %v; want the tool call", r, err)
	}
	if _, err := p.Complete(ctx, req); !errors.Is(err, boom) {
		t.Fatalf("step 2 err = %v, want %v", err, boom)
	}
	if r, _ := p.Complete(ctx, req); r.Text != "scripted" || r.Provider != fake.ID {
		t.Fatalf("step 3 = %+v, want text %q from %s", r, "scripted", fake.ID)
	}
	if r, _ := p.Complete(ctx, req); !strings.HasPrefix(r.Text, "Demo reply") {
		t.Fatalf("after the script: %q, want the demo reply", r.Text)
	}
}

func TestDemoReplyRemembersTheConversation(t *testing.T) {
	p := fake.New()
	history := []botgw.Message{
		user("hello"),
		{Role: botgw.RoleAssistant, Text: "Demo reply ..."},
		{Role: botgw.RoleEvent, Text: "User is at the station"},
		user("where am I"),
		{Role: botgw.RoleAssistant, Text: "Demo reply ..."},
		{Role: botgw.RoleEvent, Text: "User has just visited Harrogate Theatre"},
		user("hi"),
	}
	r, err := p.Complete(t.Context(), botgw.Request{System: "be nice", Messages: history})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"OPENAI_API_KEY",
		`You said: "hi"`,
		"3 messages from you",
		`your first was: "hello"`,
		`Latest app event: "User has just visited Harrogate Theatre"`,
	} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("demo reply %q lacks %q", r.Text, want)
		}
	}
	if r.Usage.InputTokens == 0 || r.Usage.OutputTokens == 0 {
		t.Errorf("usage = %+v, want rough non-zero counts", r.Usage)
	}
}

func TestDemoReplyFirstMessage(t *testing.T) {
	r, _ := fake.New().Complete(t.Context(), botgw.Request{Messages: []botgw.Message{user("hello there")}})
	if !strings.Contains(r.Text, `You said: "hello there"`) || !strings.Contains(r.Text, "first message") {
		t.Fatalf("demo reply %q: want the echo and a first-message note", r.Text)
	}
}

func TestRequestsAreDeepCopies(t *testing.T) {
	p := fake.New()
	msgs := []botgw.Message{{Role: botgw.RoleAssistant, ToolCalls: []botgw.ToolCall{{ID: "c1", Result: "ok"}}}, user("a")}
	p.Complete(t.Context(), botgw.Request{System: "s1", Messages: msgs})
	p.Complete(t.Context(), botgw.Request{System: "s2", Messages: msgs[1:]})
	msgs[0].ToolCalls[0].Result = "changed"
	msgs[1].Text = "changed"

	got := p.Requests()
	if len(got) != 2 || got[0].System != "s1" || got[1].System != "s2" {
		t.Fatalf("requests = %+v, want s1 then s2", got)
	}
	if got[0].Messages[0].ToolCalls[0].Result != "ok" || got[0].Messages[1].Text != "a" {
		t.Fatalf("recorded request changed with the caller's slice: %+v", got[0].Messages)
	}
}

func TestBlockHoldsUntilRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := fake.New(fake.Step{Text: "late"})
		release := p.Block()
		done := make(chan botgw.Reply)
		go func() {
			r, _ := p.Complete(context.Background(), botgw.Request{})
			done <- r
		}()
		synctest.Wait() // the call is blocked, inside Complete or on done
		select {
		case r := <-done:
			t.Fatalf("blocked provider answered %+v", r)
		default:
		}
		if len(p.Requests()) != 1 {
			t.Fatal("the blocked call was not recorded")
		}
		release()
		release() // idempotent
		if r := <-done; r.Text != "late" {
			t.Fatalf("after release: %q, want %q", r.Text, "late")
		}
	})
}

func TestBlockRespectsContext(t *testing.T) {
	p := fake.New(fake.Step{Text: "kept"})
	release := p.Block()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := p.Complete(ctx, botgw.Request{})
	var pe *botgw.ProviderError
	if !errors.As(err, &pe) || pe.Status != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want a ProviderError wrapping context.Canceled", err)
	}
	release()
	if r, _ := p.Complete(t.Context(), botgw.Request{}); r.Text != "kept" {
		t.Fatalf("the cancelled call consumed the step: got %q", r.Text)
	}
	if n := len(p.Requests()); n != 2 {
		t.Fatalf("recorded %d requests, want 2 (the stuck one too)", n)
	}
}

func TestSetDelayRespectsContext(t *testing.T) {
	p := fake.New()
	p.SetDelay(time.Hour)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	if _, err := p.Complete(ctx, botgw.Request{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
}

func BenchmarkComplete(b *testing.B) {
	p := fake.New()
	req := botgw.Request{Messages: []botgw.Message{user("hello"), user("hi")}}
	for b.Loop() {
		p.Complete(context.Background(), req)
	}
}

func TestNestedBlocks(t *testing.T) {
	p := fake.New()
	first, second := p.Block(), p.Block()
	first()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.Complete(ctx, botgw.Request{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v: still blocked by the second hold, want the cancellation", err)
	}
	second()
	first() // a repeated release does not unbalance the holds
	if _, err := p.Complete(t.Context(), botgw.Request{}); err != nil {
		t.Fatalf("after both releases: %v", err)
	}
}
