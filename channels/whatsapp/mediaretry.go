package whatsapp

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/proto/waMmsRetry"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw"
)

// mediaRetryWait bounds the wait for the phone's answer to a media retry
// receipt: a phone that is offline never answers.
const mediaRetryWait = 20 * time.Second

// retries are the media retry receipts waiting for the phone's answer, by
// message id. Safe for concurrent use.
type retries struct {
	mu      sync.Mutex
	waiting map[types.MessageID]chan *events.MediaRetry
}

// wait registers a waiter for id's answer; done removes it.
func (r *retries) wait(id types.MessageID) (ch chan *events.MediaRetry, done func()) {
	ch = make(chan *events.MediaRetry, 1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.waiting == nil {
		r.waiting = map[types.MessageID]chan *events.MediaRetry{}
	}
	r.waiting[id] = ch
	return ch, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.waiting[id] == ch {
			delete(r.waiting, id)
		}
	}
}

// answer hands the phone's answer to its waiter, if any; it never blocks
// (whatsmeow's event loop calls it).
func (r *retries) answer(e *events.MediaRetry) {
	r.mu.Lock()
	ch := r.waiting[e.MessageID]
	r.mu.Unlock()
	select {
	case ch <- e:
	default: // no waiter (it gave up), or an answer already waits
	}
}

// retryMedia asks the phone to upload an expired file again, the way
// whatsmeow documents it: a media retry receipt (SendMediaRetryReceipt),
// the phone's answer as events.MediaRetry decrypted with the media key
// (DecryptMediaRetryNotification), then a download of the new direct path.
// The message's old URL is dropped, so whatsmeow's Download takes the path
// branch (DownloadMediaWithPath): it asks the server for its media hosts
// (media_conn) and tries each in turn. An answer other than success, or
// none within mediaRetryWait, is botgw.ErrNotFound.
func (a *Adapter) retryMedia(ctx context.Context, cli client, msg *waE2E.Message, info *types.MessageInfo) ([]byte, error) {
	img, au := msg.GetImageMessage(), msg.GetAudioMessage()
	key := img.GetMediaKey()
	if au != nil {
		key = au.GetMediaKey()
	}
	ch, done := a.retries.wait(info.ID)
	defer done()
	if err := cli.SendMediaRetryReceipt(ctx, info, key); err != nil {
		return nil, fmt.Errorf("ask the phone for the media again: %w", err)
	}
	a.log.Info("whatsapp media expired; asked the phone to upload it again")
	wait, cancel := context.WithTimeout(ctx, mediaRetryWait)
	defer cancel()
	var evt *events.MediaRetry
	select {
	case evt = <-ch:
	case <-wait.Done():
		return nil, fmt.Errorf("the phone did not upload the media again within %s: %w", mediaRetryWait, botgw.ErrNotFound)
	}
	n, err := whatsmeow.DecryptMediaRetryNotification(evt, key)
	switch {
	case err != nil:
		return nil, fmt.Errorf("media retry answer: %w: %w", err, botgw.ErrNotFound)
	case n.GetResult() != waMmsRetry.MediaRetryNotification_SUCCESS || n.GetDirectPath() == "":
		return nil, fmt.Errorf("media retry answer %s: %w", n.GetResult(), botgw.ErrNotFound)
	}
	path := n.GetDirectPath()
	if au != nil {
		au.DirectPath, au.URL = &path, nil
		return cli.Download(ctx, au)
	}
	img.DirectPath, img.URL = &path, nil
	return cli.Download(ctx, img)
}
