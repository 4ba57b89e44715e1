package feishufake

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	larkevent "github.com/larksuite/oapi-sdk-go/v3/event"
)

// Delivery says how Deliver posts an event, as Feishu's event
// subscription would with the app's settings.
type Delivery struct {
	// Token is the verification token put in the event's header.
	Token string
	// EncryptKey, when set, encrypts the event and signs the request.
	EncryptKey string
}

// Deliver posts ev to a webhook at url as Feishu does, and returns the
// response's status and body.
func (s *Server) Deliver(ctx context.Context, url string, ev Event, d Delivery) (int, []byte, error) {
	s.mu.Lock()
	s.chats[ev.MessageID] = ev.ChatID
	s.mu.Unlock()
	return PostEvent(ctx, url, ev.Payload(d.Token), d.EncryptKey)
}

// PostEvent posts payload (an event or a url_verification request) to url as
// Feishu does: encrypted and signed when encryptKey is set.
func PostEvent(ctx context.Context, url string, payload []byte, encryptKey string) (int, []byte, error) {
	body := payload
	header := http.Header{"Content-Type": {"application/json"}}
	if encryptKey != "" {
		enc, err := encrypt(payload, encryptKey)
		if err != nil {
			return 0, nil, err
		}
		body = []byte(mustJSON(map[string]string{"encrypt": enc}))
		ts, nonce := strconv.FormatInt(time.Now().Unix(), 10), fmt.Sprintf("n%d", time.Now().UnixNano())
		header.Set(larkevent.EventRequestTimestamp, ts)
		header.Set(larkevent.EventRequestNonce, nonce)
		header.Set(larkevent.EventSignature, larkevent.Signature(ts, nonce, encryptKey, string(body)))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

// encrypt is Feishu's event encryption: AES-256-CBC with the SHA-256 of
// the key, a random IV before the cipher text, PKCS#7 padding, base64.
func encrypt(plain []byte, key string) (string, error) {
	k := sha256.Sum256([]byte(key))
	block, err := aes.NewCipher(k[:])
	if err != nil {
		return "", err
	}
	pad := aes.BlockSize - len(plain)%aes.BlockSize
	buf := make([]byte, aes.BlockSize+len(plain)+pad)
	if _, err := rand.Read(buf[:aes.BlockSize]); err != nil {
		return "", err
	}
	copy(buf[aes.BlockSize:], plain)
	for i := len(buf) - pad; i < len(buf); i++ {
		buf[i] = byte(pad)
	}
	cipher.NewCBCEncrypter(block, buf[:aes.BlockSize]).CryptBlocks(buf[aes.BlockSize:], buf[aes.BlockSize:])
	return base64.StdEncoding.EncodeToString(buf), nil
}
