package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/operator"
	"github.com/botgw/botgw/state"
)

const deadLettersUsage = "usage: botgw dead-letters list [-cursor C] [-limit N] | retry ID | discard ID -config FILE [-json]"

// cmdDeadLetters lists, retries and discards dead letters on the store the
// gateway uses. A retry queues the entry in its chat; a serving replica
// delivers it.
func cmdDeadLetters(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newFlags("dead-letters", stderr)
	cursor := f.fs.String("cursor", "", "list: continue from this cursor")
	limit := f.fs.Int("limit", 50, "list: entries per page")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || (pos[0] == "list") != (len(pos) == 1) || len(pos) > 2 {
		return errors.New(deadLettersUsage)
	}
	cfg, err := f.load()
	if err != nil {
		return err
	}
	op, st, err := openCLIOperator(ctx, cfg, "/v1/admin/dead-letters", stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	switch pos[0] {
	case "list":
		return listDeadLetters(ctx, op, stdout, *cursor, *limit, f.json)
	case "retry":
		return report(stdout, "retried (queued for delivery)", pos[1], op.RetryDeadLetter(ctx, pos[1], "cli"))
	case "discard":
		return report(stdout, "discarded", pos[1], op.DiscardDeadLetter(ctx, pos[1], "cli"))
	}
	return errors.New(deadLettersUsage)
}

func report(w io.Writer, what, id string, err error) error {
	if errors.Is(err, botgw.ErrNotFound) {
		return fmt.Errorf("no dead letter %s", id)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(w, id, what)
	return nil
}

func listDeadLetters(ctx context.Context, op *operator.API, w io.Writer, cursor string, limit int, asJSON bool) error {
	if cursor != "" && !state.ValidDeadLetterID(cursor) {
		return fmt.Errorf("-cursor %q: not a cursor this command printed", cursor)
	}
	items, next, err := op.ListDeadLetters(ctx, cursor, limit)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(w).Encode(map[string]any{"items": operator.Items(items), "next": next})
	}
	for _, d := range items {
		text := strings.ReplaceAll(d.Text, "\n", " ")
		if len([]rune(text)) > 60 {
			text = string([]rune(text)[:60]) + "…"
		}
		fmt.Fprintf(w, "%s  %s  %-5s  %s  attempts %d  %s\n    %q\n",
			d.ID, d.At.Local().Format(time.DateTime), d.Kind, d.Chat, d.Attempts, d.Reason, text)
	}
	if next != "" {
		fmt.Fprintf(w, "(more: -cursor %s)\n", next)
	}
	return nil
}
