package slack

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/slack-go/slack"

	"github.com/botgw/botgw"
)

var _ botgw.MediaFetcher = (*adapter)(nil)

// fileMedia is the first photo or audio file among a message's files, or
// nil when it has none the gateway reads (documents, videos, files from
// other services). Audio files, Slack's audio clips among them, are
// transcribed as voice notes. With installs the reference is
// "<team> <url>", so the download uses the team's token.
func fileMedia(teamID string, files []slack.File) *botgw.Media {
	for _, f := range files {
		ref := cmp.Or(f.URLPrivateDownload, f.URLPrivate)
		if ref == "" || f.IsExternal {
			continue
		}
		if teamID != "" {
			ref = teamID + " " + ref
		}
		m := &botgw.Media{Ref: ref, MIME: f.Mimetype, Size: int64(f.Size)}
		switch {
		case strings.HasPrefix(f.Mimetype, "image/"):
			m.Kind = botgw.MediaPhoto
		case strings.HasPrefix(f.Mimetype, "audio/") || f.MediaDisplayType == "audio":
			m.Kind, m.Seconds = botgw.MediaVoice, (f.DurationMs+999)/1000
		default:
			continue
		}
		return m
	}
	return nil
}

// FetchMedia downloads a file a player shared from its url_private_download
// with the bot token (scope files:read), through slack-go's GetFileContext,
// which sends the token only to https Slack hosts and the API host. A file
// over limit (by the size Slack reports, or while reading) is
// botgw.ErrTooLarge; one Slack no longer has (404, 410), or one the token
// cannot read (Slack answers with its sign-in page), is botgw.ErrNotFound.
func (a *adapter) FetchMedia(ctx context.Context, m botgw.Media, limit int64) ([]byte, error) {
	if limit > 0 && m.Size > limit {
		return nil, fmt.Errorf("slack file of %d bytes: %w", m.Size, botgw.ErrTooLarge)
	}
	api, ref, err := a.fileAPI(ctx, m.Ref)
	if err != nil {
		return nil, err
	}
	w := &capped{limit: limit}
	err = api.GetFileContext(ctx, ref, w)
	var status slack.StatusCodeError
	switch {
	case err == nil:
		return w.data, nil
	case errors.Is(err, botgw.ErrTooLarge):
		return nil, fmt.Errorf("slack file over %d bytes: %w", limit, botgw.ErrTooLarge)
	case errors.As(err, &status) && (status.Code == http.StatusNotFound || status.Code == http.StatusGone):
		return nil, fmt.Errorf("slack file download: %s: %w", status.Status, botgw.ErrNotFound)
	case strings.Contains(err.Error(), "sign-in page") || strings.Contains(err.Error(), "refusing to send the token"):
		return nil, fmt.Errorf("slack file download (is the files:read scope granted?): %v: %w", err, botgw.ErrNotFound)
	}
	return nil, fmt.Errorf("slack file download: %w", err)
}

// capped collects a download, failing with botgw.ErrTooLarge past limit
// bytes (0: no limit) so the rest is never read.
type capped struct {
	data  []byte
	limit int64
}

func (c *capped) Write(p []byte) (int, error) {
	if c.limit > 0 && int64(len(c.data)+len(p)) > c.limit {
		return 0, botgw.ErrTooLarge
	}
	c.data = append(c.data, p...)
	return len(p), nil
}

// fileAPI is the client that downloads a file and the file's URL: with
// installs, the token of the team the reference names.
func (a *adapter) fileAPI(ctx context.Context, ref string) (*slack.Client, string, error) {
	if a.installs == nil {
		return a.api, ref, nil
	}
	teamID, u, ok := strings.Cut(ref, " ")
	if !ok {
		return nil, "", fmt.Errorf("slack file reference without its team: %w", botgw.ErrNotFound)
	}
	api, err := a.tokenFor(ctx, teamID)
	if errors.Is(err, errNoInstallation) {
		return nil, "", fmt.Errorf("slack file of an uninstalled workspace: %w", botgw.ErrNotFound)
	}
	if err != nil {
		return nil, "", fmt.Errorf("slack file download: %w", err)
	}
	return api, u, nil
}
