package slack

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
)

// keySize is token_key's length: AES-256.
const keySize = 32

// parseKey reads a base64 token_key (standard or URL alphabet, padded or
// not).
func parseKey(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("want 32 random bytes, base64 (openssl rand -base64 32)")
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil {
			if len(k) != keySize {
				return nil, fmt.Errorf("decodes to %d bytes, want %d (openssl rand -base64 32)", len(k), keySize)
			}
			return k, nil
		}
	}
	return nil, errors.New("not base64: want 32 random bytes, base64 (openssl rand -base64 32)")
}

// sealer encrypts tokens at rest with AES-256-GCM: a random nonce per value
// and the installation's id (team or enterprise) as associated data, so a
// value copied under another team's installation does not open. It opens
// with the current key, else the old one (a key change, docs/slack-app.md).
type sealer struct{ cur, old cipher.AEAD }

func newSealer(key, oldKey string) (*sealer, error) {
	cur, err := newAEAD(key)
	if err != nil {
		return nil, fmt.Errorf("token_key: %w", err)
	}
	s := &sealer{cur: cur}
	if oldKey != "" {
		if s.old, err = newAEAD(oldKey); err != nil {
			return nil, fmt.Errorf("token_key_old: %w", err)
		}
	}
	return s, nil
}

func newAEAD(key string) (cipher.AEAD, error) {
	k, err := parseKey(key)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(k)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// seal encrypts a token of installation id; empty stays empty.
func (s *sealer) seal(id, token string) string {
	if token == "" {
		return ""
	}
	nonce := make([]byte, s.cur.NonceSize())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails
	return base64.RawStdEncoding.EncodeToString(s.cur.Seal(nonce, nonce, []byte(token), []byte(id)))
}

// open decrypts a sealed token of installation id; stale reports that it
// opened with the old key only (it is to be sealed again with the new one).
func (s *sealer) open(id, sealed string) (token string, stale bool, err error) {
	if sealed == "" {
		return "", false, nil
	}
	raw, err := base64.RawStdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < s.cur.NonceSize() {
		return "", false, errors.New("sealed token: not base64 of a nonce and a ciphertext")
	}
	for i, a := range []cipher.AEAD{s.cur, s.old} {
		if a == nil {
			continue
		}
		n := a.NonceSize()
		if plain, err := a.Open(nil, raw[:n], raw[n:], []byte(id)); err == nil {
			return string(plain), i == 1, nil
		}
	}
	return "", false, errors.New("sealed token: opens with neither token_key nor token_key_old (wrong key, or moved from another team)")
}
