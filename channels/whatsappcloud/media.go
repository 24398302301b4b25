package whatsappcloud

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/botgw/botgw"
)

// FetchMedia downloads a file a player sent: GET {api_url}/{media id} for
// its URL, then GET url, both with the Bearer token. A file over limit (by
// the size Meta reports, or while reading) is botgw.ErrTooLarge; a media
// id Meta no longer has (404, or any 4xx but a rate limit) is
// botgw.ErrNotFound.
func (a *Adapter) FetchMedia(ctx context.Context, m botgw.Media, limit int64) ([]byte, error) {
	var info mediaInfo
	err := a.call(ctx, http.MethodGet, a.apiURL+"/"+url.PathEscape(m.Ref), nil, &info)
	var ae *apiError
	switch {
	case errors.As(err, &ae) && ae.Status >= 400 && ae.Status < 500 && ae.Status != http.StatusTooManyRequests && ae.Code != codeTokenExpired:
		a.counts.add("media_not_found")
		return nil, fmt.Errorf("whatsapp_cloud media: %w: %w", err, botgw.ErrNotFound)
	case err != nil:
		return nil, fmt.Errorf("whatsapp_cloud media: %w", err)
	case limit > 0 && int64(info.FileSize) > limit:
		return nil, fmt.Errorf("whatsapp_cloud media of %d bytes: %w", info.FileSize, botgw.ErrTooLarge)
	case info.URL == "":
		return nil, fmt.Errorf("whatsapp_cloud media: no url: %w", botgw.ErrNotFound)
	}
	return a.download(ctx, info.URL, limit)
}

func (a *Adapter) download(ctx context.Context, u string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, errors.New("whatsapp_cloud media: bad url")
	}
	req.Header.Set("Authorization", "Bearer "+a.cfg.AccessToken)
	res, err := a.api.Do(req)
	if err != nil {
		return nil, fmt.Errorf("whatsapp_cloud media download: %w", unwrapURL(err))
	}
	defer res.Body.Close()
	switch {
	case res.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("whatsapp_cloud media download: %s: %w", res.Status, botgw.ErrNotFound)
	case res.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("whatsapp_cloud media download: %s", res.Status)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("whatsapp_cloud media download: %w", err)
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, fmt.Errorf("whatsapp_cloud media over %d bytes: %w", limit, botgw.ErrTooLarge)
	}
	return data, nil
}
