package whatsapp

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // pure-Go PostgreSQL driver "pgx"
	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/store"
	"go.mau.fi/whatsmeow/store/sqlstore"
	"go.mau.fi/whatsmeow/types"
	_ "modernc.org/sqlite" // pure-Go SQLite driver "sqlite": the binary stays CGO_ENABLED=0

	"github.com/botgw/botgw/internal/httpclient"
)

// client is the part of *whatsmeow.Client the adapter uses, so tests can
// drive the adapter with hand-built events and record what it sends.
type client interface {
	ConnectContext(ctx context.Context) error
	Disconnect()
	IsConnected() bool
	// IsLoggedIn is false from a stream error or logout until whatsmeow's
	// next login.
	IsLoggedIn() bool
	AddEventHandlerWithSuccessStatus(h whatsmeow.EventHandlerWithSuccessStatus) uint32
	SendMessage(ctx context.Context, to types.JID, m *waE2E.Message, extra ...whatsmeow.SendRequestExtra) (whatsmeow.SendResponse, error)
	MarkRead(ctx context.Context, ids []types.MessageID, ts time.Time, chat, sender types.JID, rt ...types.ReceiptType) error
	SendChatPresence(ctx context.Context, jid types.JID, s types.ChatPresence, m types.ChatPresenceMedia) error
	// SendPresence marks the account online ("available"): without it
	// WhatsApp gets inactive receipts and may not show "typing…".
	SendPresence(ctx context.Context, p types.Presence) error
	// Download fetches and decrypts a media message's file.
	Download(ctx context.Context, msg whatsmeow.DownloadableMessage) ([]byte, error)
	// SendMediaRetryReceipt asks the phone to upload an expired file
	// again; the answer arrives as events.MediaRetry.
	SendMediaRetryReceipt(ctx context.Context, info *types.MessageInfo, mediaKey []byte) error
	// OwnIDs are the linked account's phone-number JID and LID (either may
	// be empty), without device parts.
	OwnIDs() (pn, lid types.JID)
	// PNForLID maps a LID user to its phone-number JID, if the store knows it.
	PNForLID(ctx context.Context, lid types.JID) (types.JID, bool)
	// LIDForPN maps a phone-number JID to its LID, if the store knows it.
	LIDForPN(ctx context.Context, pn types.JID) (types.JID, bool)
	// UserLIDs asks WhatsApp for the LIDs of phone-number JIDs
	// (GetUserInfo); whatsmeow stores the mappings it learns.
	UserLIDs(ctx context.Context, pns []types.JID) (map[types.JID]types.JID, error)
	// DeviceID is the linked device's JID (with its device part), empty
	// before linking. Read it before connecting: whatsmeow clears it when
	// it deletes the device.
	DeviceID() types.JID
	// ForgetDevice deletes device from the store.
	ForgetDevice(ctx context.Context, device types.JID) error
	// AnswerRetriesWith makes f answer retry receipts for messages
	// whatsmeow no longer has in memory (GetMessageForRetry).
	AnswerRetriesWith(f func(requester, to types.JID, id types.MessageID) *waE2E.Message)
}

// waClient is the real client: whatsmeow plus its device store.
type waClient struct{ *whatsmeow.Client }

var _ client = waClient{}

func (c waClient) OwnIDs() (pn, lid types.JID) {
	return c.Store.GetJID().ToNonAD(), c.Store.GetLID().ToNonAD()
}

func (c waClient) PNForLID(ctx context.Context, lid types.JID) (types.JID, bool) {
	pn, err := c.Store.LIDs.GetPNForLID(ctx, lid)
	if err != nil || pn.IsEmpty() {
		return types.JID{}, false
	}
	return pn.ToNonAD(), true
}

func (c waClient) LIDForPN(ctx context.Context, pn types.JID) (types.JID, bool) {
	lid, err := c.Store.LIDs.GetLIDForPN(ctx, pn)
	if err != nil || lid.IsEmpty() {
		return types.JID{}, false
	}
	return lid.ToNonAD(), true
}

func (c waClient) UserLIDs(ctx context.Context, pns []types.JID) (map[types.JID]types.JID, error) {
	info, err := c.GetUserInfo(ctx, pns)
	if err != nil {
		return nil, fmt.Errorf("get user info: %w", err)
	}
	out := make(map[types.JID]types.JID, len(info))
	for pn, u := range info {
		if !u.LID.IsEmpty() {
			out[pn.ToNonAD()] = u.LID.ToNonAD()
		}
	}
	return out, nil
}

func (c waClient) DeviceID() types.JID {
	if c.Store.ID == nil {
		return types.EmptyJID
	}
	return *c.Store.ID
}

func (c waClient) AnswerRetriesWith(f func(requester, to types.JID, id types.MessageID) *waE2E.Message) {
	c.GetMessageForRetry = f
}

// ForgetDevice deletes device through the store's container, by id: the
// client's own *store.Device may be in whatsmeow's hands meanwhile.
func (c waClient) ForgetDevice(ctx context.Context, device types.JID) error {
	if err := c.Store.Container.DeleteDevice(ctx, &store.Device{ID: &device}); err != nil {
		return fmt.Errorf("delete whatsapp device: %w", err)
	}
	return nil
}

// errNotLinked means the store holds no paired device.
var errNotLinked = errors.New("no WhatsApp number is linked: run `botgw whatsapp link -config FILE`")

// openStore opens the device store (creating a SQLite file if needed) and
// runs its migrations. No network but the PostgreSQL server's.
func openStore(ctx context.Context, cfg Config, log *slog.Logger) (*sqlstore.Container, error) {
	if err := validateStore(cfg.Store); err != nil {
		return nil, fmt.Errorf("whatsapp store: %w", err)
	}
	if isPostgres(cfg.Store) {
		return openPostgres(ctx, cfg, log)
	}
	if dir := filepath.Dir(cfg.sqlitePath()); dir != "." {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("whatsapp store directory: %w", err)
		}
	}
	c, err := sqlstore.New(ctx, "sqlite", cfg.sqliteDSN(), waLogger(log, "Database"))
	if err != nil {
		return nil, fmt.Errorf("open whatsapp store %s: %w", cfg.sqlitePath(), err)
	}
	return c, nil
}

// openPostgres opens the store through pgx's database/sql driver (pure
// Go) with whatsmeow's "postgres" dialect.
func openPostgres(ctx context.Context, cfg Config, log *slog.Logger) (*sqlstore.Container, error) {
	db, err := sql.Open("pgx", cfg.Store)
	if err != nil {
		return nil, fmt.Errorf("open whatsapp store %s: %w", cfg.storeName(), err)
	}
	c := sqlstore.NewWithDB(db, "postgres", waLogger(log, "Database"))
	if err := c.Upgrade(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open whatsapp store %s: %w", cfg.storeName(), err)
	}
	return c, nil
}

// newClient builds a whatsmeow client for dev. whatsmeow's own reconnect is
// off: the adapter reconnects with backoff and jitter, and only while it
// holds the lease. Undelivered messages are not acknowledged and stay
// decryptable for their redelivery (decrypted-event buffer).
func newClient(dev *store.Device, cfg Config, log *slog.Logger) (*whatsmeow.Client, error) {
	setDeviceName(cfg.deviceName())
	cli := whatsmeow.NewClient(dev, waLogger(log, "Client"))
	cli.EnableAutoReconnect = false
	cli.EnableDecryptedEventBuffer = true
	cli.SynchronousAck = true
	// A message this device cannot decrypt: whatsmeow sends the sender a
	// retry receipt, and with SynchronousAck (set above) it asks the linked
	// phone for the message at once, on the first retry receipt, whatever
	// this flag says (retry.go, sendRetryReceipt). The flag gates only the
	// delayed request (after RequestFromPhoneDelay) used without
	// SynchronousAck; it is set so that stays true if SynchronousAck goes.
	cli.AutomaticMessageRerequestFromPhone = true
	// Media downloads and uploads keep their credentials with their hosts
	// on a redirect, as every other outbound call does; setProxy below
	// sets this client's transport's proxy.
	cli.SetMediaHTTPClient(httpclient.New(http.DefaultTransport.(*http.Transport).Clone()))
	if err := setProxy(cli, cfg.Proxy); err != nil {
		return nil, err
	}
	return cli, nil
}

type proxySetter interface {
	SetProxyAddress(addr string, opts ...whatsmeow.SetProxyOptions) error
}

// setProxy applies the proxy setting. Empty leaves whatsmeow's default,
// the HTTPS_PROXY environment variable, in place: SetProxyAddress("")
// would turn that off.
func setProxy(cli proxySetter, addr string) error {
	if addr == "" {
		return nil
	}
	if err := cli.SetProxyAddress(addr); err != nil {
		return fmt.Errorf("whatsapp proxy: %w", err)
	}
	return nil
}

// linkedClient opens a client for the store's linked device, or
// errNotLinked when there is none.
func linkedClient(ctx context.Context, c *sqlstore.Container, cfg Config, log *slog.Logger) (client, error) {
	dev, err := c.GetFirstDevice(ctx)
	if err != nil {
		return nil, fmt.Errorf("load whatsapp device: %w", err)
	}
	if dev.ID == nil {
		return nil, errNotLinked
	}
	cli, err := newClient(dev, cfg, log)
	if err != nil {
		return nil, err
	}
	return waClient{cli}, nil
}
