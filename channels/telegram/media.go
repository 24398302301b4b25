package telegram

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-telegram/bot"

	"github.com/botgw/botgw"
)

var _ botgw.MediaFetcher = (*adapter)(nil)

// FetchMedia downloads a file players sent: getFile, then
// GET {api_url}/file/bot<token>/<file_path>. A file over limit (by the
// size Telegram reports, or while reading) is botgw.ErrTooLarge; one
// Telegram no longer has is botgw.ErrNotFound. Errors never carry the
// file URL: it holds the bot token.
func (a *adapter) FetchMedia(ctx context.Context, m botgw.Media, limit int64) ([]byte, error) {
	f, err := a.bot.GetFile(ctx, &bot.GetFileParams{FileID: m.Ref})
	switch {
	case err != nil && strings.Contains(err.Error(), "file is too big"):
		return nil, fmt.Errorf("telegram getFile: %w", botgw.ErrTooLarge)
	case errors.Is(err, bot.ErrorBadRequest), errors.Is(err, bot.ErrorNotFound):
		return nil, fmt.Errorf("telegram getFile: %v: %w", err, botgw.ErrNotFound)
	case err != nil:
		return nil, fmt.Errorf("telegram getFile: %w", err)
	case limit > 0 && f.FileSize > limit:
		return nil, fmt.Errorf("telegram file of %d bytes: %w", f.FileSize, botgw.ErrTooLarge)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.bot.FileDownloadLink(f), nil)
	if err != nil {
		return nil, errors.New("telegram file: bad file path")
	}
	res, err := a.files.Do(req)
	if err != nil {
		return nil, fmt.Errorf("telegram file download: %w", unwrapURL(err))
	}
	defer res.Body.Close()
	switch {
	case res.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("telegram file download: %s: %w", res.Status, botgw.ErrNotFound)
	case res.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("telegram file download: %s", res.Status)
	}
	return readLimited(res.Body, limit)
}

// readLimited reads r whole, failing with botgw.ErrTooLarge past limit
// bytes without reading further.
func readLimited(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("telegram file download: %w", unwrapURL(err))
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("telegram file over %d bytes: %w", limit, botgw.ErrTooLarge)
	}
	return data, nil
}

// unwrapURL drops the URL (and the bot token in it) from a transport error.
func unwrapURL(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}
