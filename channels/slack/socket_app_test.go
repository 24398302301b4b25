package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
)

type slackFile = slack.File

// TestSocketModeAppRoutesEveryInstalledTeam: one Socket Mode connection
// carries the events of every workspace; each is stored under its team, an
// event of a workspace without an installation is acknowledged and not
// stored, and the install routes are served over HTTP.
func TestSocketModeAppRoutesEveryInstalledTeam(t *testing.T) {
	r := newAppRig(t)
	cfg := appConfig(r.f)
	cfg.Mode, cfg.AppToken, cfg.SigningSecret = ModeSocket, testAppToken, ""
	r.f.AppToken = testAppToken
	ch, err := New(cfg, Env{Pacer: testPacer(t), Redis: r.rdb, KeyPrefix: "botgw", PublicURL: testPublicURL}, discard())
	if err != nil {
		t.Fatal(err)
	}
	app := ch.(*socketAppChannel)
	h := app.WebhookHandler(nil)
	r.install(t, h, h, "code-one", grant("T0ONE"))
	r.install(t, h, h, "code-two", grant("T0TWO"))
	env := func(id, team string) string {
		return fmt.Sprintf(`{"envelope_id":%q,"payload":%s,"type":"events_api","accepts_response_payload":false,"retry_attempt":0}`,
			id, dmEvent(team, "D0"+team, "1700000001.000100", "hi"))
	}
	sock := channeltest.NewSlackSocket(t, env("env-1", "T0ONE"), env("env-x", "T0NONE"), env("env-2", "T0TWO"))
	r.f.UseSocket(sock)
	var mu sync.Mutex
	var stored []string
	deliver := func(_ context.Context, in botgw.Inbound) error {
		mu.Lock()
		defer mu.Unlock()
		stored = append(stored, in.Chat.String())
		return nil
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() { _ = app.Listen(ctx, deliver) }()
	for _, want := range []string{"env-1", "env-x", "env-2"} {
		select {
		case got := <-sock.Acks:
			if got != want {
				t.Fatalf("ack %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no ack for %s", want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(stored) != 2 || stored[0] != "slack:T0ONE/D0T0ONE" || stored[1] != "slack:T0TWO/D0T0TWO" {
		t.Errorf("stored %v, want one chat per installed team", stored)
	}
	if app.EventCounts()[statUnknownTeam] != 1 {
		t.Errorf("counts %v, want one unknown_team", app.EventCounts())
	}
	if w := get(h, "/webhooks/slack/events"); w.Code == http.StatusOK {
		t.Errorf("events route served in socket mode: %d", w.Code)
	}
}

// TestAppTapIsStoredUnderItsTeam: a tap on a button the app posted in an
// installed workspace is the player's message in that team's chat.
func TestAppTapIsStoredUnderItsTeam(t *testing.T) {
	r := newAppRig(t)
	a := r.replica(t, appConfig(r.f))
	h := a.WebhookHandler(nil)
	r.install(t, h, h, "code-one", grant("T061EG9R6")) // the team the fake's taps come from
	chat := botgw.ChatKey{Channel: name, ID: "T061EG9R6/" + dmChannel}
	sendChoices(t, &a.eventsChannel, chat, "Ferry or walk?")
	var store channeltest.Store
	if w := signedTap(a.WebhookHandler(store.Deliver), r.f.Tap(0, 1, userID, "1334.5"), time.Now(), testSecret); w.Code != http.StatusOK {
		t.Fatalf("tap: %d %s", w.Code, w.Body)
	}
	if got := store.Stored(); len(got) != 1 || got[0].Chat != chat || got[0].Text != "Walk <fast> & far" {
		t.Errorf("stored %+v, want the tap in %s", got, chat)
	}
	if p := r.f.CallsTo("chat.postMessage"); len(p) != 1 || p[0].Token != "xoxb-T061EG9R6-secret-token" {
		t.Errorf("posts %+v, want the choices posted with the team's token", p)
	}
}

// TestAppFileIsDownloadedWithItsTeamsToken: a photo shared in an installed
// workspace is fetched with that workspace's token; once it uninstalls,
// the file is not found.
func TestAppFileIsDownloadedWithItsTeamsToken(t *testing.T) {
	r := newAppRig(t)
	a := r.replica(t, appConfig(r.f))
	h := a.WebhookHandler(nil)
	r.install(t, h, h, "code-one", grant("T0ONE"))
	file := r.f.AddFile("F0PHOTO1", "clue.jpg", "image/jpeg", []byte("\xff\xd8\xff photo"), nil)
	m := fileMedia("T0ONE", []slackFile{{URLPrivateDownload: file["url_private_download"].(string), Mimetype: "image/jpeg"}})
	data, err := a.FetchMedia(t.Context(), *m, 0)
	if err != nil || string(data) != "\xff\xd8\xff photo" {
		t.Fatalf("fetch = %q, %v", data, err)
	}
	if d := r.f.FileDownloads(); len(d) != 1 || d[0].Token != "xoxb-T0ONE-secret-token" {
		t.Errorf("downloads %+v, want one with the team's token", d)
	}
	if _, err := a.uninstall(t.Context(), "T0ONE", "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.FetchMedia(t.Context(), *m, 0); !errors.Is(err, botgw.ErrNotFound) {
		t.Errorf("fetch after the uninstall: %v, want not found", err)
	}
}
