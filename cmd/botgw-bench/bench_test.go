package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestBenchRunsBothPhasesOnTheEmbeddedRedis(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-redis", "embedded", "-chats", "3", "-messages", "4", "-json"}, &out); err != nil {
		t.Fatal(err)
	}
	var r result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("-json output: %v\n%s", err, out.String())
	}
	if r.Gateway.Requests != 12 || r.Ceiling.Requests != 12 {
		t.Errorf("requests = %d gateway, %d ceiling; want 12 each", r.Gateway.Requests, r.Ceiling.Requests)
	}
	if r.Gateway.EndToEndP50 <= 0 || r.Gateway.ReplyP99 < r.Gateway.EndToEndP50 || r.Gateway.CPUPerTurn <= 0 ||
		r.Gateway.RoundTripsPerTurn < 1 || r.StateBytes.Mean <= 0 || r.Ratio <= 0 {
		t.Errorf("gateway phase not measured: %+v, state %+v, ratio %v", r.Gateway, r.StateBytes, r.Ratio)
	}
}

func TestBenchTableAndRefusals(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-redis", "embedded", "-chats", "1", "-messages", "1"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"gateway (turns)", "ceiling (GET+SET)", "gateway/ceiling:", "peak RSS", "reply p99", "ms/turn"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	if err := run([]string{"-redis", "redis://10.0.0.1:6379/0"}, &out); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("a remote Redis was not refused: %v", err)
	}
	if err := run([]string{"-chats", "0"}, &out); err == nil {
		t.Error("-chats 0 was accepted")
	}
}
