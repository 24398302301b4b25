package metrics

import (
	"time"

	"github.com/botgw/botgw"
)

// MediaObserver registers botgw_media_total{kind,outcome} and
// botgw_media_seconds{kind} and returns what counts one media item read
// for a turn (convo/media Deps.Observe). Call it once.
func (m *Metrics) MediaObserver() func(kind botgw.MediaKind, outcome string, d time.Duration) {
	total := m.counterVec("botgw_media_total", "Photos and voice notes read for turns, by kind (photo, voice) and outcome: ok, off (switched off or no way to fetch), too_large, too_long, not_found, unsupported (not an image format the models take), failed (after retries).", "kind", "outcome")
	secs := m.histogramVec("botgw_media_seconds", "Time to download (and transcribe) one photo or voice note.", latencyBuckets, "kind")
	return func(kind botgw.MediaKind, outcome string, d time.Duration) {
		total.WithLabelValues(string(kind), outcome).Inc()
		secs.WithLabelValues(string(kind)).Observe(d.Seconds())
	}
}
