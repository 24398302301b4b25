package whatsapp

import "context"

// offlineSync notes the start and end of the backlog WhatsApp sends after
// a connection (events.OfflineSyncPreview, events.OfflineSyncCompleted).
func (a *Adapter) offlineSync(ctx context.Context, evt any) {}
