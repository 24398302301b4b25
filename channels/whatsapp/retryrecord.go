package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"google.golang.org/protobuf/proto"
)

// A player's phone that cannot decrypt a message asks for it again (a
// retry receipt). whatsmeow answers from its in-memory cache of 256 sends;
// after a restart, or on the replica that took the session over, it asks
// GetMessageForRetry, which the adapter answers from the delivery records
// every replica writes to Redis for retryRecordTTL after each send.
const (
	retryRecordTTL     = 24 * time.Hour
	retryLookupTimeout = 2 * time.Second
)

// putSent records m, sent to chat under id, for retry receipts.
func (s *shared) putSent(ctx context.Context, chat types.JID, id types.MessageID, m *waE2E.Message) error {
	b, err := proto.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode whatsapp message %s: %w", id, err)
	}
	if err := s.rdb.Set(ctx, s.key("retry", chat.String(), string(id)), b, retryRecordTTL).Err(); err != nil {
		return fmt.Errorf("record whatsapp message %s: %w", id, err)
	}
	return nil
}

// sentMessage is the message recorded for chat and id, or nil.
func (s *shared) sentMessage(ctx context.Context, chat types.JID, id types.MessageID) (*waE2E.Message, error) {
	b, err := s.rdb.Get(ctx, s.key("retry", chat.String(), string(id))).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read whatsapp message %s: %w", id, err)
	}
	m := &waE2E.Message{}
	if err := proto.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("decode whatsapp message %s: %w", id, err)
	}
	return m, nil
}

// recordSent keeps a sent message for retry receipts; a failure only
// leaves whatsmeow's own cache to answer them.
func (a *Adapter) recordSent(ctx context.Context, to types.JID, id types.MessageID, m *waE2E.Message) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.tm.storeTimeout)
	defer cancel()
	if err := a.shared.putSent(ctx, to, id, m); err != nil {
		a.log.Warn("whatsapp sent message not recorded for retry receipts", "err", err)
	}
}

// messageForRetry answers whatsmeow's GetMessageForRetry from the
// delivery records (nil: unknown, whatsmeow then gives up on the retry).
func (a *Adapter) messageForRetry(_, to types.JID, id types.MessageID) *waE2E.Message {
	ctx, cancel := context.WithTimeout(context.Background(), retryLookupTimeout)
	defer cancel()
	m, err := a.shared.sentMessage(ctx, to.ToNonAD(), id)
	if err != nil {
		a.log.Warn("whatsapp retry receipt: delivery record unreadable", "err", err)
	}
	return m
}
