package depot

// A small depot inside the test, for what a real depot cannot be made to do (unsigned answers, a
// bad digest, an unknown kid, …). It signs its answers as depot does, with a key made here and
// pinned by the test's client, so that only the one thing under test is wrong.

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	testKey     = "AAAAA-BBBBB-CCCCC-DDDDD-EEEEE"
	testProduct = "1"
	testKid     = "test-kid"
)

type testSigner struct {
	kid  string
	priv ed25519.PrivateKey
	pub  ed25519.PublicKey
}

func newSigner(t testing.TB, kid string) testSigner {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return testSigner{kid: kid, priv: priv, pub: pub}
}

func (s testSigner) jwks() []byte {
	return []byte(fmt.Sprintf(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":%q,"kid":%q,"alg":"EdDSA","use":"sig"}]}`,
		base64.RawURLEncoding.EncodeToString(s.pub), s.kid))
}

// signature is how an answer is signed; the zero value signs as depot does, now.
type signature struct {
	created time.Time
	// kid names the key in Signature-Input (default: the signer's).
	kid string
	// params replaces what follows "depot=" in Signature-Input (and the signature base).
	params string
	// input replaces the whole Signature-Input header (the base still uses params).
	input string
	// digest replaces Content-Digest (the signature covers it).
	digest string
	// unsigned leaves out Signature, Signature-Input and Content-Digest.
	unsigned bool
}

// sign writes depot's three headers for an answer.
func (s testSigner) sign(header http.Header, status int, contentType string, body []byte, how signature) {
	if how.unsigned {
		return
	}
	created := how.created
	if created.IsZero() {
		created = time.Now()
	}
	kid := how.kid
	if kid == "" {
		kid = s.kid
	}
	digest := how.digest
	if digest == "" {
		sum := sha256.Sum256(body)
		digest = "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
	}
	params := how.params
	if params == "" {
		params = fmt.Sprintf(`("@status" "content-type" "content-digest");created=%d;keyid=%q;alg="ed25519"`, created.Unix(), kid)
	}
	base := fmt.Sprintf("\"@status\": %d\n\"content-type\": %s\n\"content-digest\": %s\n\"@signature-params\": %s",
		status, contentType, digest, params)
	input := how.input
	if input == "" {
		input = "depot=" + params
	}
	header.Set("Content-Digest", digest)
	header.Set("Signature-Input", input)
	header.Set("Signature", "depot=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(s.priv, []byte(base)))+":")
}

// fakeDepot is an httptest server whose handler the test sets.
type fakeDepot struct {
	testSigner
	t      *testing.T
	server *httptest.Server
	mu     sync.Mutex
	handle func(w http.ResponseWriter, r *http.Request, body map[string]any)
	calls  int
	last   *http.Request
	bodies []map[string]any
}

func newFake(t *testing.T) *fakeDepot {
	f := &fakeDepot{testSigner: newSigner(t, testKid), t: t}
	f.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		f.mu.Lock()
		f.calls++
		f.last = r
		f.bodies = append(f.bodies, body)
		handle := f.handle
		f.mu.Unlock()
		if handle == nil {
			http.NotFound(w, r)
			return
		}
		handle(w, r, body)
	}))
	t.Cleanup(f.server.Close)
	return f
}

func (f *fakeDepot) setHandler(handle func(w http.ResponseWriter, r *http.Request, body map[string]any)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handle = handle
}

func (f *fakeDepot) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func (f *fakeDepot) lastRequest() (*http.Request, map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last, f.bodies[len(f.bodies)-1]
}

// reply signs and writes a JSON answer.
func (f *fakeDepot) reply(w http.ResponseWriter, status int, value any, how signature) {
	body, err := json.Marshal(value)
	if err != nil {
		f.t.Fatal(err)
	}
	f.replyBytes(w, status, "application/json", body, how)
}

func (f *fakeDepot) replyBytes(w http.ResponseWriter, status int, contentType string, body []byte, how signature) {
	w.Header().Set("Content-Type", contentType)
	f.sign(w.Header(), status, contentType, body, how)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// client is a client of the fake that pins its key and never really sleeps between retries.
func (f *fakeDepot) client(t *testing.T, adjust ...func(*Config)) (*Client, *[]time.Duration) {
	t.Helper()
	config := Config{Server: f.server.URL, ProductID: testProduct, JWKS: f.jwks(), Timeout: 2 * time.Second}
	for _, a := range adjust {
		a(&config)
	}
	c, err := New(config)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	waits := &[]time.Duration{}
	c.sleep = func(done <-chan struct{}, d time.Duration) bool {
		mu.Lock()
		*waits = append(*waits, d)
		mu.Unlock()
		select {
		case <-done:
			return false
		default:
			return true
		}
	}
	return c, waits
}

func licenseJSON(key, product string) map[string]any {
	return map[string]any{
		"id": "0190a1b2-0000-7000-8000-000000000001", "userId": "1", "creatorId": "1", "productId": product,
		"expires": nil, "maxIps": 100, "key": key,
		"createdAt": "2026-11-27T21:33:44.319Z", "updatedAt": "2026-11-27T21:33:44.319Z",
	}
}

// validAnswer is a VALID validation of key for product, echoing nonce.
func validAnswer(key, product string, nonce any) map[string]any {
	return map[string]any{
		"valid": true, "code": "VALID", "detail": "This license is valid.", "ts": "2026-11-27T21:33:54.656Z",
		"nonce": nonce, "license": licenseJSON(key, product), "ips": map[string]any{"count": 1, "max": 100},
	}
}

func machineJSON(id, fingerprint string) map[string]any {
	return map[string]any{
		"id": id, "licenseId": "0190a1b2-0000-7000-8000-000000000001", "fingerprint": fingerprint,
		"name": nil, "platform": nil, "hostname": nil,
		"createdAt": "2026-11-27T21:33:55.002Z", "lastHeartbeatAt": "2026-11-27T21:33:55.052Z", "alive": true,
	}
}

// licenseFileText is an armoured JWS signed by s, with header and claims as given.
func (s testSigner) licenseFileText(header, claims map[string]any) string {
	part := func(value map[string]any) string {
		raw, _ := json.Marshal(value)
		return base64.RawURLEncoding.EncodeToString(raw)
	}
	input := part(header) + "." + part(claims)
	jws := input + "." + base64.RawURLEncoding.EncodeToString(ed25519.Sign(s.priv, []byte(input)))
	var lines []string
	for len(jws) > 64 {
		lines, jws = append(lines, jws[:64]), jws[64:]
	}
	lines = append(lines, jws)
	return "-----BEGIN DEPOT LICENSE FILE-----\n" + strings.Join(lines, "\n") + "\n-----END DEPOT LICENSE FILE-----\n"
}

func fileHeader(kid string) map[string]any {
	return map[string]any{"alg": "EdDSA", "typ": "depot-license+jwt", "kid": kid}
}

func fileClaims(issuer string, now time.Time) map[string]any {
	return map[string]any{
		"iss": issuer, "sub": "0190a1b2-0000-7000-8000-000000000001", "iat": now.Unix(),
		"exp": now.Add(30 * 24 * time.Hour).Unix(), "key": testKey, "product_id": testProduct,
		"user_id": "1", "creator_id": "1", "max_ips": 100, "expires": nil,
	}
}
