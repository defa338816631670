package depot

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"net/http"
	"os"
	"testing"
	"time"
)

// recorded is a real answer of depot's validate (testdata/recorded-validate.json), as it came.
type recorded struct {
	Status    int               `json:"status"`
	Headers   map[string]string `json:"headers"`
	Body      []byte            `json:"body"`
	Nonce     string            `json:"nonce"`
	Key       string            `json:"key"`
	ProductID string            `json:"productId"`
	Server    string            `json:"server"`
	JWKS      json.RawMessage   `json:"jwks"`
}

// recordedAnswer loads the recording and a client whose clock is the answer's signing time.
func recordedAnswer(tb testing.TB) (*Client, recorded, http.Header) {
	tb.Helper()
	text, err := os.ReadFile("testdata/recorded-validate.json")
	if err != nil {
		tb.Fatal(err)
	}
	var rec recorded
	if err := json.Unmarshal(text, &rec); err != nil {
		tb.Fatal(err)
	}
	header := http.Header{}
	for name, value := range rec.Headers {
		header.Set(name, value)
	}
	params, err := parseSignatureInput(rec.Status, header.Get("Signature-Input"))
	if err != nil {
		tb.Fatal(err)
	}
	signedAt := time.Unix(params.created, 0)
	c, err := New(Config{Server: rec.Server, ProductID: rec.ProductID, JWKS: rec.JWKS, Clock: func() time.Time { return signedAt.Add(time.Second) }})
	if err != nil {
		tb.Fatal(err)
	}
	return c, rec, header
}

// verifyRecorded is the whole check of one validate answer, network aside: checks 1 to 7.
func verifyRecorded(c *Client, rec recorded, header http.Header) (*Validation, error) {
	v, err := c.verifyAnswer(context.Background(), rec.Status, header, rec.Body)
	if err != nil {
		return nil, err
	}
	return c.checkValidation(v, rec.Nonce, rec.Key, "")
}

func TestARecordedAnswerOfARealDepotVerifies(t *testing.T) {
	c, rec, header := recordedAnswer(t)
	validation, err := verifyRecorded(c, rec, header)
	if err != nil {
		t.Fatal(err)
	}
	if !validation.Valid || validation.License.Key != rec.Key {
		t.Fatalf("got %+v", validation)
	}
	for i := range rec.Body {
		tampered := rec
		tampered.Body = append([]byte(nil), rec.Body...)
		tampered.Body[i] ^= 0x01
		if _, err := verifyRecorded(c, tampered, header); err == nil {
			t.Fatalf("a changed byte %d verified", i)
		}
	}
	replayed := rec
	replayed.Nonce = "another"
	if _, err := verifyRecorded(c, replayed, header); err == nil {
		t.Fatal("another nonce verified")
	}
}

// BenchmarkVerifyValidate is the CPU cost of one verified validate: a recorded real answer checked
// in full (digest, Signature-Input, key, Ed25519, created, JSON, nonce, key and product), no network.
func BenchmarkVerifyValidate(b *testing.B) {
	c, rec, header := recordedAnswer(b)
	b.ReportAllocs()
	b.ResetTimer()
	before, measured := processCPU()
	for i := 0; i < b.N; i++ {
		if _, err := verifyRecorded(c, rec, header); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, before, measured)
}

// reportCPU adds cpu-ns/op: on a busy machine ns/op (wall time) counts the waits for a core too.
func reportCPU(b *testing.B, before time.Duration, measured bool) {
	if after, ok := processCPU(); measured && ok {
		b.ReportMetric(float64(after-before)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkEd25519Alone is the signature check by itself on the same answer's signature base: what
// the library adds to it is the difference with BenchmarkVerifyValidate.
func BenchmarkEd25519Alone(b *testing.B) {
	c, rec, header := recordedAnswer(b)
	h, err := signedHeadersOf(rec.Status, header)
	if err != nil {
		b.Fatal(err)
	}
	params, _ := parseSignatureInput(rec.Status, h.SignatureInput)
	key, _ := c.key(context.Background(), params.keyID)
	signature, _ := byteSequence(h.Signature, "depot=")
	base := []byte("\"@status\": 200\n\"content-type\": " + h.ContentType + "\n\"content-digest\": " + h.ContentDigest +
		"\n\"@signature-params\": " + params.text)
	if !ed25519.Verify(key, base, signature) {
		b.Fatal("the recorded signature does not verify")
	}
	b.ResetTimer()
	before, measured := processCPU()
	for i := 0; i < b.N; i++ {
		ed25519.Verify(key, base, signature)
	}
	reportCPU(b, before, measured)
}
