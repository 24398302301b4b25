// Command botgw runs the gateway and its operator tools.
//
//	botgw [serve] [-config FILE]          run the gateway (default: embedded Redis, web chat)
//	botgw config check -config FILE       validate a config, naming each bad key
//	botgw chats list|show|reset|export|import [CHAT] -config FILE [-json]
//	botgw dead-letters list|retry ID|discard ID -config FILE [-json]
//	botgw whatsapp link -config FILE [-phone NUMBER]
//	botgw eval [-config FILE] [flags] SUITE...   check the assistant on scripted conversations
//	botgw eval record CHAT                 print a suite made from a stored conversation
//	botgw health [-url URL]                probe a running gateway (container HEALTHCHECK)
//	botgw version                          print the release (CHANGELOG.md)
//
// The config file may also come from BOTGW_CONFIG.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/cmd/botgw/gateway"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) && !errors.Is(err, errReported) {
			fmt.Fprintln(os.Stderr, "botgw:", err)
		}
		if xe, ok := errors.AsType[*exitError](err); ok {
			os.Exit(xe.code)
		}
		os.Exit(1)
	}
}

// errReported means the problem was already printed in full.
var errReported = errors.New("reported")

const usage = `usage:
  botgw [serve] [-config FILE]
  botgw config check -config FILE
  botgw chats list [-cursor C] [-limit N] -config FILE [-json]
  botgw chats show|reset|export CHAT -config FILE [-json]
  botgw chats import CHAT -config FILE < chat.json
  botgw dead-letters list [-cursor C] [-limit N] -config FILE [-json]
  botgw dead-letters retry|discard ID -config FILE
  botgw whatsapp link -config FILE [-phone NUMBER]
  botgw eval [-config FILE] [-model M] [-parallel N] [-repeat K] [-json FILE] [-junit FILE] [-html FILE] SUITE...
  botgw eval record CHAT [-config FILE] | -from-export FILE | -from-stream FILE | -from-kafka BROKERS TOPIC [CHAT]
  botgw health [-url http://127.0.0.1:8080/healthz]   (container HEALTHCHECK)
  botgw version
The config file may also be given as BOTGW_CONFIG. With none, botgw runs on
the embedded default: in-process Redis and the web chat on 127.0.0.1:8080.`

// run dispatches a command line; it is main without the process exit.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && (args[0][0] != '-' || args[0] == "-version" || args[0] == "--version") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return cmdServe(ctx, args, stdout, stderr)
	case "config":
		return cmdConfig(args, stdout, stderr)
	case "chats":
		return cmdChats(ctx, args, os.Stdin, stdout, stderr)
	case "dead-letters":
		return cmdDeadLetters(ctx, args, stdout, stderr)
	case "whatsapp":
		return cmdWhatsApp(ctx, args, stdout, stderr)
	case "eval":
		return cmdEval(ctx, args, stdout, stderr)
	case "health":
		return cmdHealth(ctx, args, stdout, stderr)
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, "botgw", botgw.Version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	fmt.Fprintln(stderr, usage)
	return fmt.Errorf("unknown command %q", cmd)
}

// flags holds the options every command shares.
type flags struct {
	fs     *flag.FlagSet
	config string
	json   bool
}

func newFlags(name string, stderr io.Writer) *flags {
	f := &flags{fs: flag.NewFlagSet(name, flag.ContinueOnError)}
	f.fs.SetOutput(stderr)
	f.fs.StringVar(&f.config, "config", os.Getenv("BOTGW_CONFIG"), "config file (default $BOTGW_CONFIG)")
	f.fs.BoolVar(&f.json, "json", false, "print JSON for scripts")
	return f
}

// parse accepts flags before and after positional arguments
// ("chats show CHAT -config FILE").
func (f *flags) parse(args []string) ([]string, error) {
	var pos []string
	for {
		if err := f.fs.Parse(args); err != nil {
			return nil, err
		}
		if f.fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, f.fs.Arg(0))
		args = f.fs.Args()[1:]
	}
}

// load reads the config (or the default) and validates it.
func (f *flags) load() (gateway.Config, error) {
	if f.config == "" {
		cfg := gateway.DefaultConfig()
		return cfg, cfg.Validate()
	}
	cfg, err := gateway.LoadConfig(f.config)
	var syntax *gateway.SyntaxError
	if errors.As(err, &syntax) || errors.Is(err, os.ErrNotExist) {
		return cfg, err
	}
	return cfg, errors.Join(err, cfg.Validate())
}

func cmdConfig(args []string, stdout, stderr io.Writer) error {
	f := newFlags("config check", stderr)
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "check" {
		return errors.New("usage: botgw config check -config FILE")
	}
	if f.config == "" {
		return errors.New("config check: -config FILE (or BOTGW_CONFIG) is required")
	}
	if _, err := f.load(); err != nil {
		for _, e := range flatten(err) {
			fmt.Fprintln(stdout, e)
		}
		fmt.Fprintf(stderr, "%s: %d problem(s)\n", f.config, len(flatten(err)))
		return errReported
	}
	fmt.Fprintf(stdout, "%s: ok\n", f.config)
	return nil
}

// flatten lists the leaves of joined errors, one line each.
func flatten(err error) []string {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []string
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []string{err.Error()}
}

// cmdHealth probes a running gateway; images without curl use it as their
// HEALTHCHECK.
func cmdHealth(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("health", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", "http://127.0.0.1:8080/healthz", "URL to probe")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *url, nil)
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("health: %s answered %s", *url, res.Status)
	}
	fmt.Fprintln(stdout, "ok")
	return nil
}
