package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/mdp/qrterminal/v3"
	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/store/sqlstore"
)

// pairDisplayName is how the pairing-code flow names the device; WhatsApp
// accepts only "Browser (OS)" names.
const pairDisplayName = "Chrome (Linux)"

// linker is the part of *whatsmeow.Client that pairing uses.
type linker interface {
	connector
	GetQRChannel(ctx context.Context) (<-chan whatsmeow.QRChannelItem, error)
	PairPhone(ctx context.Context, phone string, showPushNotification bool, clientType whatsmeow.PairClientType, clientDisplayName string) (string, error)
	WaitForConnection(timeout time.Duration) bool
	Disconnect()
}

var _ linker = (*whatsmeow.Client)(nil)

// Link pairs a WhatsApp number with the device store named by cfg.Store
// (`botgw whatsapp link`). It prints a QR code to out, or, with phone (in
// international format), a pairing code to type on the phone, and waits
// until the phone confirms. Without network it fails within 30 s. It
// opens the store under the upgrade lock of lease (as New does), so it
// never migrates the schema while a starting replica does; a nil lease
// is a single replica.
func Link(ctx context.Context, cfg Config, lease Lease, phone string, out io.Writer, log *slog.Logger) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	log = log.With("channel", Name)
	if lease == nil {
		lease = soloLease{}
	}
	var c *sqlstore.Container
	err := withUpgradeLock(ctx, lease, leaseOwner(), time.Second, func() (err error) {
		c, err = openStore(ctx, cfg, log)
		return err
	})
	if err != nil {
		return err
	}
	defer c.Close()
	dev, err := c.GetFirstDevice(ctx)
	if err != nil {
		return fmt.Errorf("load whatsapp device: %w", err)
	}
	if dev.ID != nil {
		fmt.Fprintf(out, "%s is already linked to +%s; nothing to do.\nTo link another number, remove this device in WhatsApp (Settings → Linked devices) and run this command again.\n", cfg.storeName(), dev.ID.User)
		return nil
	}
	cli, err := newClient(dev, cfg, log)
	if err != nil {
		return err
	}
	if err := link(ctx, cli, phone, out, linkConnectTimeout); err != nil {
		return err
	}
	fmt.Fprintf(out, "Linked +%s. The session is stored in %s; start the gateway with `botgw serve`.\n", dev.ID.User, cfg.storeName())
	return nil
}

// link connects (bounded by limit), shows the codes and waits for the
// pairing and the first login.
func link(ctx context.Context, cli linker, phone string, out io.Writer, limit time.Duration) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	qr, err := cli.GetQRChannel(ctx)
	if err != nil {
		return fmt.Errorf("link whatsapp: %w", err)
	}
	stop, err := dial(ctx, cli, limit)
	if err != nil {
		return fmt.Errorf("link whatsapp: %w", err)
	}
	defer stop()
	defer cli.Disconnect()
	if err := waitForPairing(ctx, cli, qr, phone, out); err != nil {
		return fmt.Errorf("link whatsapp: %w", err)
	}
	if !cli.WaitForConnection(limit) {
		fmt.Fprintln(out, "Paired, but the first login has not finished; `botgw serve` will finish it.")
	}
	return nil
}

// waitForPairing shows each QR code (or one pairing code) until the phone
// pairs, the codes run out or ctx ends.
func waitForPairing(ctx context.Context, cli linker, qr <-chan whatsmeow.QRChannelItem, phone string, out io.Writer) error {
	shown := false
	for {
		var item whatsmeow.QRChannelItem
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case item, ok = <-qr:
		}
		switch {
		case !ok:
			return errors.New("connection closed before pairing finished")
		case item.Event == whatsmeow.QRChannelEventCode && phone == "":
			showQR(out, item)
		case item.Event == whatsmeow.QRChannelEventCode && !shown:
			if err := showPairingCode(ctx, cli, phone, out); err != nil {
				return err
			}
			shown = true
		case item.Event == whatsmeow.QRChannelEventCode:
		default:
			return pairingResult(item)
		}
	}
}

func showQR(out io.Writer, item whatsmeow.QRChannelItem) {
	fmt.Fprintf(out, "\nOn the phone: WhatsApp → Settings → Linked devices → Link a device, and scan this code (valid %v):\n\n", item.Timeout.Round(time.Second))
	qrterminal.GenerateHalfBlock(item.Code, qrterminal.L, out)
}

func showPairingCode(ctx context.Context, cli linker, phone string, out io.Writer) error {
	code, err := cli.PairPhone(ctx, phone, true, whatsmeow.PairClientChrome, pairDisplayName)
	if err != nil {
		return fmt.Errorf("pairing code for %s: %w", phone, err)
	}
	fmt.Fprintf(out, "\nOn the phone: WhatsApp → Settings → Linked devices → Link a device → Link with phone number instead, and enter:\n\n    %s\n\n", code)
	return nil
}

// pairingResult turns the QR channel's final item into nil or a clear error.
func pairingResult(item whatsmeow.QRChannelItem) error {
	switch item.Event {
	case whatsmeow.QRChannelSuccess.Event:
		return nil
	case whatsmeow.QRChannelTimeout.Event:
		return errors.New("the code was not used in time; run the command again")
	case whatsmeow.QRChannelClientOutdated.Event:
		return errors.New("WhatsApp rejected this client version; update botgw")
	case whatsmeow.QRChannelScannedWithoutMultidevice.Event:
		return errors.New("the phone has multi-device disabled; enable it and scan again")
	case whatsmeow.QRChannelEventError:
		return fmt.Errorf("pairing failed: %w", item.Error)
	}
	return fmt.Errorf("pairing ended unexpectedly (%s)", item.Event)
}
