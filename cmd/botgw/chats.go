package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/audit"
	"github.com/botgw/botgw/convo/operator"
	"github.com/botgw/botgw/state"
)

const chatsUsage = "usage: botgw chats list|show CHAT|reset CHAT|export CHAT|import CHAT -config FILE [-json]"

// cmdChats runs the operator commands on the store the gateway uses.
func cmdChats(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f := newFlags("chats", stderr)
	cursor := f.fs.String("cursor", "", "list: continue from this cursor")
	limit := f.fs.Int("limit", 50, "list: chats per page")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return errors.New(chatsUsage)
	}
	cfg, err := f.load()
	if err != nil {
		return err
	}
	op, st, err := openCLIOperator(ctx, cfg, "/v1/admin", stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	c := chatsCmd{op: op, out: stdout, json: f.json}
	if pos[0] == "list" {
		return c.list(ctx, *cursor, *limit)
	}
	if len(pos) != 2 {
		return errors.New(chatsUsage)
	}
	k, err := botgw.ParseChatKey(pos[1])
	if err != nil {
		return err
	}
	if !slices.Contains(cfg.Channels.names(), k.Channel) {
		return fmt.Errorf("chat %s: channel %q is not configured", k, k.Channel)
	}
	switch pos[0] {
	case "show":
		return c.show(ctx, k)
	case "reset":
		return c.reset(ctx, k)
	case "export":
		return c.export(ctx, k)
	case "import":
		return c.importChat(ctx, k, stdin)
	}
	return errors.New(chatsUsage)
}

type chatsCmd struct {
	op   *operator.API
	out  io.Writer
	json bool
}

func (c chatsCmd) list(ctx context.Context, cursor string, limit int) error {
	chats, next, err := c.op.List(ctx, cursor, limit)
	if err != nil {
		return err
	}
	if c.json {
		names := make([]string, len(chats))
		for i, k := range chats {
			names[i] = k.String()
		}
		return json.NewEncoder(c.out).Encode(map[string]any{"chats": names, "next": next})
	}
	for _, k := range chats {
		fmt.Fprintln(c.out, k)
	}
	if next != "" {
		fmt.Fprintf(c.out, "(more: -cursor %s)\n", next)
	}
	return nil
}

func (c chatsCmd) show(ctx context.Context, k botgw.ChatKey) error {
	v, err := c.op.Show(ctx, k)
	if err != nil {
		return err
	}
	if c.json {
		enc := json.NewEncoder(c.out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	printChat(c.out, v.(*operator.ChatView))
	return nil
}

// printChat renders a chat for a person at a terminal.
func printChat(w io.Writer, v *operator.ChatView) {
	fmt.Fprintf(w, "%s  turns %d · %d B stored · expires in %s · tokens %d in / %d out · pending %d · outbox %d\n",
		v.Chat, v.Turns, v.Size, v.TTL, v.Usage.InputTokens, v.Usage.OutputTokens, v.Pending, v.Outbox)
	if v.PausedUntil != "" {
		fmt.Fprintf(w, "  paused by an operator until %s (%s)\n", v.PausedUntil, v.PausedBy)
	}
	if v.Problem != "" {
		fmt.Fprintf(w, "  stored state unreadable: %s\n", v.Problem)
	}
	for _, m := range v.History {
		at := ""
		if !m.At.IsZero() {
			at = m.At.Local().Format(time.DateTime) + " "
		}
		label := string(m.Role)
		if m.EventKey != "" {
			label += "[" + m.EventKey + "]"
		}
		fmt.Fprintf(w, "%s%-10s %s\n", at, label, strings.ReplaceAll(m.Text, "\n", "\n           "))
		for _, tc := range m.ToolCalls {
			outcome := tc.Result
			if tc.Error != "" {
				outcome = "error: " + tc.Error
			}
			fmt.Fprintf(w, "           ↳ %s(%s) → %s\n", tc.Name, tc.Arguments, outcome)
		}
	}
}

func (c chatsCmd) reset(ctx context.Context, k botgw.ChatKey) error {
	if err := c.op.Reset(ctx, k, "cli"); err != nil {
		return err
	}
	fmt.Fprintf(c.out, "reset %s\n", k)
	return nil
}

func (c chatsCmd) export(ctx context.Context, k botgw.ChatKey) error {
	b, err := c.op.Export(ctx, k)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.out, "%s\n", b)
	return err
}

func (c chatsCmd) importChat(ctx context.Context, k botgw.ChatKey, in io.Reader) error {
	b, err := io.ReadAll(io.LimitReader(in, 8<<20))
	if err != nil {
		return fmt.Errorf("read import: %w", err)
	}
	if err := c.op.Import(ctx, k, b, "cli"); err != nil {
		return err
	}
	fmt.Fprintf(c.out, "imported %s\n", k)
	return nil
}

// openCLIOperator opens the store for a command-line operator command and
// the operator view the chats and dead-letters commands act through; the
// caller closes the store. The command needs the gateway's own Redis: the
// embedded one lives inside the gateway's process, so the admin API (route)
// is the way in then. Warnings go to stderr.
func openCLIOperator(ctx context.Context, cfg Config, route string, stderr io.Writer) (*operator.API, *state.Store, error) {
	if cfg.Redis.URL == "" && len(cfg.Redis.Addrs) == 0 {
		return nil, nil, fmt.Errorf("redis.url is empty: the gateway's embedded Redis lives inside its process; use the admin API (%s) or set redis.url", route)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	st, err := state.Open(ctx, cfg.Redis, cfg.storeOptions(), log)
	if err != nil {
		return nil, nil, fmt.Errorf("open store: %w", err)
	}
	op := &operator.API{Store: st, Trail: audit.NewLog(st.AuditStream()), StateTTL: cfg.State.TTL, Log: log}
	return op, st, nil
}
