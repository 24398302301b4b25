package whatsapp

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"go.mau.fi/whatsmeow"
	waBinary "go.mau.fi/whatsmeow/binary"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/proto/waMmsRetry"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
	"go.mau.fi/whatsmeow/util/cbcutil"
	"go.mau.fi/whatsmeow/util/gcmutil"
	"go.mau.fi/whatsmeow/util/hkdfutil"
	"google.golang.org/protobuf/proto"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/syncbuf"
)

// SendMediaRetryReceipt of the fake is a phone that no longer has the
// file: it answers at once with the error whatsmeow reads as "not
// available on the phone" (code 2).
func (f *fakeClient) SendMediaRetryReceipt(_ context.Context, info *types.MessageInfo, _ []byte) error {
	f.mu.Lock()
	h := f.handler
	f.mu.Unlock()
	h(&events.MediaRetry{MessageID: info.ID, ChatID: info.Chat, Error: &events.MediaRetryError{Code: 2}})
	return nil
}

// messageHost is the host of a media message's URL; retryHost is the one
// the server hands out in media_conn when the file is fetched by path.
const messageHost, retryHost = "mmg.whatsapp.net", "media-lhr8-1.cdn.whatsapp.net"

// serveMediaConn stands in for the server's answer to whatsmeow's
// media_conn query, which needs a live socket: it fills whatsmeow's cache
// of that answer, so DownloadMediaWithPath reads its hosts from it as it
// would from the server.
func serveMediaConn(t *testing.T, rc *realClient, hosts ...string) {
	t.Helper()
	mc := &whatsmeow.MediaConn{Auth: "test", TTL: 3600, AuthTTL: 3600, FetchedAt: time.Now()}
	for _, h := range hosts {
		mc.Hosts = append(mc.Hosts, whatsmeow.MediaConnHost{Hostname: h})
	}
	f := reflect.ValueOf(rc.Client).Elem().FieldByName("mediaConnCache")
	if !f.IsValid() || f.Type() != reflect.TypeOf(mc) {
		t.Fatal("whatsmeow's Client has no mediaConnCache *MediaConn field to answer media_conn with")
	}
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(mc))
	if got, err := rc.internals().RefreshMediaConn(t.Context(), false); err != nil || got != mc {
		t.Fatalf("whatsmeow does not read the media hosts from the cache: %v", err)
	}
}

// SendMediaRetryReceipt of the real client goes to the test's phone, which
// stands where WhatsApp's servers and the player's phone would be; with
// none, to whatsmeow (which has no connection to send it on).
func (r *realClient) SendMediaRetryReceipt(ctx context.Context, info *types.MessageInfo, key []byte) error {
	if r.phone == nil {
		return r.Client.SendMediaRetryReceipt(ctx, info, key)
	}
	return r.phone.receipt(r, info, key)
}

// mediaPhone is WhatsApp's media CDN (a TLS server every media host
// resolves to) and the player's phone, which uploads a file again when
// asked by a media retry receipt and answers with the notification
// whatsmeow parses into events.MediaRetry.
type mediaPhone struct {
	t        *testing.T
	cdn      *httptest.Server
	mu       sync.Mutex
	files    map[string][]byte // encrypted files by path
	fetched  []string          // "host path" of every GET
	queries  []string          // their queries
	receipts []types.MessageInfo
	// result is what the phone answers (SUCCESS: the file at newPath).
	result  waMmsRetry.MediaRetryNotification_ResultType
	newPath string
	plain   []byte              // what it uploads again
	kind    whatsmeow.MediaType // its keys' kind (default: an image)
}

func newMediaPhone(t *testing.T, rc *realClient) *mediaPhone {
	p := &mediaPhone{t: t, files: map[string][]byte{}, result: waMmsRetry.MediaRetryNotification_SUCCESS}
	p.cdn = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.fetched = append(p.fetched, r.Host+" "+r.URL.Path)
		p.queries = append(p.queries, r.URL.RawQuery)
		if data, ok := p.files[r.URL.Path]; ok {
			_, _ = w.Write(data)
			return
		}
		http.Error(w, "gone", http.StatusGone) // an expired copy
	}))
	t.Cleanup(p.cdn.Close)
	dial := func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, p.cdn.Listener.Addr().String())
	}
	rc.SetMediaHTTPClient(&http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: dial, TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}) // the test's CDN certificate
	rc.phone = p
	return p
}

// upload encrypts plain as WhatsApp does (AES-CBC, HMAC-SHA256 cut to 10
// bytes, keys from the media key by HKDF) and puts it at path; it returns
// the message's download fields.
func (p *mediaPhone) upload(path string, key, plain []byte) *waE2E.ImageMessage {
	p.mu.Lock()
	kind := cmp.Or(p.kind, whatsmeow.MediaImage)
	p.mu.Unlock()
	keys := hkdfutil.SHA256(key, nil, []byte(kind), 112)
	iv, cipherKey, macKey := keys[:16], keys[16:48], keys[48:80]
	enc, err := cbcutil.Encrypt(cipherKey, iv, plain)
	if err != nil {
		p.t.Fatal(err)
	}
	mac := hmac.New(sha256.New, macKey)
	mac.Write(iv)
	mac.Write(enc)
	file := append(enc, mac.Sum(nil)[:10]...)
	p.mu.Lock()
	p.files[strings.Split(path, "?")[0]] = file // served by path; the query is the URL's expiry
	p.mu.Unlock()
	encHash, hash := sha256.Sum256(file), sha256.Sum256(plain)
	return &waE2E.ImageMessage{URL: proto.String("https://" + messageHost + path), DirectPath: proto.String(path), MediaKey: key,
		FileEncSHA256: encHash[:], FileSHA256: hash[:], FileLength: proto.Uint64(uint64(len(plain))), Mimetype: proto.String("image/jpeg")}
}

// receipt answers a media retry receipt the way the server relays the
// phone's answer: a <notification type="mediaretry"> whose payload is the
// MediaRetryNotification, AES-GCM encrypted with the media key's retry key
// and the message id as additional data. It is handed to whatsmeow's own
// handler after the receipt is sent, as it would arrive over the socket.
func (p *mediaPhone) receipt(rc *realClient, info *types.MessageInfo, key []byte) error {
	p.mu.Lock()
	p.receipts = append(p.receipts, *info)
	result, path, plain := p.result, p.newPath, p.plain
	p.mu.Unlock()
	if result == waMmsRetry.MediaRetryNotification_SUCCESS {
		p.upload(path, key, plain)
	}
	payload, _ := proto.Marshal(&waMmsRetry.MediaRetryNotification{StanzaID: proto.String(info.ID), DirectPath: proto.String(path), Result: result.Enum()})
	iv := make([]byte, 12)
	_, _ = rand.Read(iv)
	enc, err := gcmutil.Encrypt(hkdfutil.SHA256(key, nil, []byte("WhatsApp Media Retry Notification"), 32), iv, payload, []byte(info.ID))
	if err != nil {
		return err
	}
	node := waBinary.Node{Tag: "notification", Attrs: waBinary.Attrs{"id": info.ID, "type": "mediaretry",
		"t": strconv.FormatInt(time.Now().Unix(), 10), "from": botPN},
		Content: []waBinary.Node{
			{Tag: "rmr", Attrs: waBinary.Attrs{"jid": info.Chat, "from_me": "false"}},
			{Tag: "encrypt", Content: []waBinary.Node{{Tag: "enc_p", Content: enc}, {Tag: "enc_iv", Content: iv}}},
		}}
	go rc.internals().HandleMediaRetryNotification(context.Background(), &node)
	return nil
}

// A photo whose CDN copy expired (410) is uploaded again by the phone on
// whatsmeow's media retry receipt and downloaded from the new direct path
// on the media host the server handed out (media_conn), not the message's
// old host; a phone that no longer has it ends in ErrNotFound, with one
// receipt.
func TestRealClientRetriesExpiredMedia(t *testing.T) {
	a, rc, phone, store, logs := retryRig(t)
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	plain := []byte("\xff\xd8\xff\xe0 the old bridge at dusk")
	img := phone.upload("/v/t62.7118-24/old.enc?ccb=11-4&oe=6700", key, plain)
	phone.mu.Lock()
	delete(phone.files, "/v/t62.7118-24/old.enc") // the CDN dropped it
	phone.newPath, phone.plain = "/v/t62.7118-24/again.enc?ccb=11-4&oe=6800", plain
	phone.mu.Unlock()
	img.Caption = proto.String("is this it?")
	info := types.MessageInfo{MessageSource: types.MessageSource{Chat: alicePN, Sender: alicePN}, ID: "3EB0PHOTO1", Timestamp: time.Now()}
	if failed := rc.internals().HandleDecryptedMessage(context.Background(), &info, &waE2E.Message{ImageMessage: img}, 0); failed {
		t.Fatalf("photo not stored:\n%s", logs)
	}
	in := store.Stored()[0]
	got, err := a.FetchMedia(t.Context(), *in.Media, 1<<20)
	if err != nil || string(got) != string(plain) {
		t.Fatalf("FetchMedia = %q, %v; want the photo uploaded again\n%s", got, err, logs)
	}
	phone.mu.Lock()
	receipts, fetched, queries := phone.receipts, phone.fetched, phone.queries
	phone.mu.Unlock()
	if len(receipts) != 1 || receipts[0].ID != "3EB0PHOTO1" || receipts[0].Chat != alicePN {
		t.Errorf("receipts %+v, want one for the photo's message in its chat", receipts)
	}
	if len(fetched) != 2 || fetched[0] != messageHost+" /v/t62.7118-24/old.enc" || fetched[1] != retryHost+" /v/t62.7118-24/again.enc" {
		t.Errorf("CDN asked for %q, want the expired URL, then the new path on the media_conn host", fetched)
	}
	if len(queries) == 2 && (!strings.Contains(queries[1], "oe=6800") || !strings.Contains(queries[1], "mms-type=image")) {
		t.Errorf("new path fetched with query %q, want the path's own and whatsmeow's (mms-type)", queries[1])
	}

	phone.mu.Lock()
	phone.result, phone.files = waMmsRetry.MediaRetryNotification_NOT_FOUND, map[string][]byte{}
	phone.mu.Unlock()
	if _, err := a.FetchMedia(t.Context(), *in.Media, 1<<20); !errors.Is(err, botgw.ErrNotFound) {
		t.Errorf("the phone no longer has it: %v, want ErrNotFound", err)
	}
	if phone.mu.Lock(); len(phone.receipts) != 2 {
		t.Errorf("%d receipts, want one more", len(phone.receipts))
	}
	phone.mu.Unlock()
}

// retryRig is an adapter on whatsmeow's real client whose media hosts
// (media_conn) and CDN are the test's phone's, storing what it receives.
func retryRig(t *testing.T) (*Adapter, *realClient, *mediaPhone, *channeltest.Store, *syncbuf.Buffer) {
	a, rc, logs := realConnected(t)
	phone := newMediaPhone(t, rc)
	serveMediaConn(t, rc, retryHost)
	store := &channeltest.Store{}
	a.mu.Lock()
	a.deliver = store.Deliver
	a.mu.Unlock()
	return a, rc, phone, store, logs
}

// A voice note (PTT) whose CDN copy expired is uploaded again by the phone
// and fetched by its new path from the media_conn host, decrypted with
// the audio keys.
func TestRealClientRetriesExpiredVoiceNote(t *testing.T) {
	a, rc, phone, store, logs := retryRig(t)
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	plain := []byte("OggS\x00\x02 I am at the old bridge")
	phone.mu.Lock()
	phone.kind = whatsmeow.MediaAudio
	phone.mu.Unlock()
	f := phone.upload("/v/t62.7117-24/voice.enc?ccb=11-4&oe=6700", key, plain)
	phone.mu.Lock()
	phone.files = map[string][]byte{} // the CDN dropped it
	phone.newPath, phone.plain = "/v/t62.7117-24/voice-again.enc?ccb=11-4&oe=6800", plain
	phone.mu.Unlock()
	au := &waE2E.AudioMessage{URL: f.URL, DirectPath: f.DirectPath, MediaKey: f.MediaKey, FileEncSHA256: f.FileEncSHA256,
		FileSHA256: f.FileSHA256, FileLength: f.FileLength, Mimetype: proto.String("audio/ogg; codecs=opus"), PTT: proto.Bool(true), Seconds: proto.Uint32(4)}
	info := types.MessageInfo{MessageSource: types.MessageSource{Chat: alicePN, Sender: alicePN}, ID: "3EB0VOICE1", Timestamp: time.Now()}
	if failed := rc.internals().HandleDecryptedMessage(context.Background(), &info, &waE2E.Message{AudioMessage: au}, 0); failed {
		t.Fatalf("voice note not stored:\n%s", logs)
	}
	in := store.Stored()[0]
	if in.Media == nil || in.Media.Kind != botgw.MediaVoice {
		t.Fatalf("stored %+v, want a voice note", in)
	}
	got, err := a.FetchMedia(t.Context(), *in.Media, 1<<20)
	if err != nil || string(got) != string(plain) {
		t.Fatalf("FetchMedia = %q, %v; want the voice note uploaded again\n%s", got, err, logs)
	}
	phone.mu.Lock()
	defer phone.mu.Unlock()
	if n := len(phone.fetched); n != 2 || phone.fetched[1] != retryHost+" /v/t62.7117-24/voice-again.enc" || !strings.Contains(phone.queries[1], "mms-type=audio") {
		t.Errorf("CDN asked for %q (%q), want the new path on the media_conn host as audio", phone.fetched, phone.queries)
	}
}
