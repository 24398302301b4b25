package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/stream/kafka"
	"github.com/botgw/botgw/cmd/botgw/eval"
)

const recordUsage = "usage: botgw eval record CHAT [-config FILE] | -from-export FILE | -from-stream FILE | -from-kafka BROKERS TOPIC [CHAT]"

// cmdEvalRecord prints a suite made from a stored conversation, an
// export or the conversation stream's records (docs/evaluating.md).
func cmdEvalRecord(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := &flags{fs: flag.NewFlagSet("eval record", flag.ContinueOnError)}
	f.fs.SetOutput(stderr)
	f.fs.StringVar(&f.config, "config", os.Getenv("BOTGW_CONFIG"), "config file (default $BOTGW_CONFIG)")
	fromExport := f.fs.String("from-export", "", "read a `botgw chats export` file")
	fromStream := f.fs.String("from-stream", "", "read stream records (JSON lines, or webhook bodies)")
	fromKafka := f.fs.String("from-kafka", "", "read stream records from the Kafka `brokers` (comma-separated), topic and optional chat given after the flags")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	var rec *eval.Recording
	switch {
	case *fromExport != "" && len(pos) == 0:
		rec = eval.NewRecording("recorded conversation")
		err = recordFile(*fromExport, rec.Export)
	case *fromStream != "" && len(pos) == 0:
		rec = eval.NewRecording("recorded conversations")
		err = recordStream(*fromStream, rec)
	case *fromKafka != "" && *fromExport == "" && *fromStream == "" && (len(pos) == 1 || len(pos) == 2):
		rec = eval.NewRecording("recorded conversations")
		err = recordKafka(ctx, *fromKafka, pos, rec)
	case len(pos) == 1 && *fromExport == "" && *fromStream == "" && *fromKafka == "":
		rec, err = recordChat(ctx, f, pos[0], stderr)
	default:
		return errors.New(recordUsage)
	}
	if err != nil {
		return err
	}
	y, err := rec.YAML()
	if err != nil {
		return err
	}
	_, err = stdout.Write(y)
	return err
}

func recordFile(name string, read func([]byte) error) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return read(b)
}

func recordStream(name string, rec *eval.Recording) error {
	fh, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	defer fh.Close()
	return rec.Stream(fh)
}

// recordKafka records the conversation stream's records in a Kafka topic
// (pos: the topic, then optionally the one chat to record), read from the
// start to the end the topic had when it began.
func recordKafka(ctx context.Context, brokers string, pos []string, rec *eval.Recording) error {
	chat := ""
	if len(pos) == 2 {
		chat = pos[1]
	}
	ctx, cancel := context.WithTimeout(ctx, kafkaReadTimeout)
	defer cancel()
	values, err := kafka.ReadTopic(ctx, strings.Split(brokers, ","), pos[0], chat)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return rec.Stream(bytes.NewReader(bytes.Join(values, []byte("\n"))))
}

// kafkaReadTimeout bounds reading a topic to its end.
const kafkaReadTimeout = time.Minute

// recordChat records a chat stored in the configured Redis.
func recordChat(ctx context.Context, f *flags, chat string, stderr io.Writer) (*eval.Recording, error) {
	k, err := botgw.ParseChatKey(chat)
	if err != nil {
		return nil, err
	}
	cfg, err := f.load()
	if err != nil {
		return nil, err
	}
	op, st, err := openCLIOperator(ctx, cfg, "/v1/admin/chats/{chat}/export", stderr)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	b, err := op.Export(ctx, k)
	if err != nil {
		return nil, err
	}
	rec := eval.NewRecording("recorded conversation", k.ID)
	return rec, rec.Export(b)
}
