// Command botgw-bench measures the gateway on this machine: it runs the
// real Telegram webhook path, engine and store in-process against Redis,
// with the fake provider and a fake Telegram Bot API on loopback, drives N
// chats × M messages (each user waits for the reply before writing again),
// then runs a "ceiling" handler on the same HTTP stack (one GET and one SET
// per request) and reports both and their ratio. Everything stays on
// loopback and the run is bounded by -timeout.
//
//	go run ./cmd/botgw-bench -chats 50 -messages 20 -redis redis://127.0.0.1:6379/0
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"
)

type options struct {
	redis           string
	chats, messages int
	providerLatency time.Duration
	model           string
	timeout         time.Duration
	json            bool
	cpuProfile      string
	// media makes one message in five a photo or a voice note (media.go);
	// transcriptionLatency is the fake transcription server's answer time;
	// mediaConcurrency is media.max_concurrency (0: the default, 32).
	media                bool
	transcriptionLatency time.Duration
	mediaConcurrency     int
	sttURL               string // set while the bench runs
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "botgw-bench:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	o, err := parseFlags(args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	res, err := bench(ctx, o)
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(stdout, res)
	}
	writeTable(stdout, res)
	return nil
}

func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("botgw-bench", flag.ContinueOnError)
	fs.StringVar(&o.redis, "redis", "redis://127.0.0.1:6379/0", `Redis URL on loopback, or "embedded" for the in-process one`)
	fs.IntVar(&o.chats, "chats", 50, "chats driven at once")
	fs.IntVar(&o.messages, "messages", 20, "messages per chat, each sent after the previous reply")
	fs.DurationVar(&o.providerLatency, "provider-latency", 0, "latency of the fake provider per call")
	fs.StringVar(&o.model, "model", "gpt-4o-mini", "model whose tokenizer compaction counts with")
	fs.DurationVar(&o.timeout, "timeout", 2*time.Minute, "bound on the whole run")
	fs.BoolVar(&o.json, "json", false, "print the result as JSON")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the gateway phase to this file")
	fs.BoolVar(&o.media, "media", false, "make one message in five a photo or a voice note")
	fs.DurationVar(&o.transcriptionLatency, "transcription-latency", time.Second, "latency of the fake transcription server (-media)")
	fs.IntVar(&o.mediaConcurrency, "media-concurrency", 0, "downloads and transcriptions at once, as media.max_concurrency (-media; 0: 32)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.chats < 1 || o.messages < 1 {
		return o, fmt.Errorf("-chats and -messages must be at least 1")
	}
	return o, nil
}
