package depot

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// switchable is a transport that can be cut, as a network outage would.
type switchable struct{ down atomic.Bool }

func (s *switchable) RoundTrip(r *http.Request) (*http.Response, error) {
	if s.down.Load() {
		return nil, errors.New("network is unreachable")
	}
	return http.DefaultTransport.RoundTrip(r)
}

// statusFake answers validate and checkout with VALID about testKey, checkout with a license file
// of its own issuer (the fake's URL) valid for 30 days.
func statusFake(t *testing.T) *fakeDepot {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		answer := validAnswer(testKey, testProduct, body["nonce"])
		if strings.HasSuffix(r.URL.Path, "/checkout") {
			answer["license_file"] = f.licenseFileText(fileHeader(testKid), fileClaims(f.server.URL, time.Now()))
			answer["license_file_expires_at"] = time.Now().Add(30 * 24 * time.Hour).UTC().Format(time.RFC3339)
		}
		f.reply(w, 200, answer, signature{})
	})
	return f
}

func TestStatusOnlineThenFromWhatIsKept(t *testing.T) {
	f := statusFake(t)
	network := &switchable{}
	now := time.Now()
	c, _ := f.client(t, func(c *Config) {
		c.HTTPClient = &http.Client{Transport: network}
		c.Clock = func() time.Time { return now }
		c.Retries = NoRetries
	})
	ctx := context.Background()

	status, err := c.Status(ctx, testKey, nil)
	if err != nil || !status.Valid || status.Source != SourceOnline || status.Code != CodeValid || status.Err != nil ||
		status.CheckedAt.IsZero() || status.Validation == nil {
		t.Fatalf("online: %+v, %v", status, err)
	}

	network.down.Store(true)
	status, err = c.Status(ctx, testKey, nil)
	if err != nil || !status.Valid || status.Source != SourceCache || !errors.Is(status.Err, ErrUnreachable) {
		t.Fatalf("cache: %+v, %v", status, err)
	}
	// Another fingerprint has nothing kept.
	status, _ = c.Status(ctx, testKey, &StatusOptions{Fingerprint: "fp-9"})
	if status.Valid || status.Source != SourceNone || status.Code != CodeUnreachable {
		t.Fatalf("another fingerprint: %+v", status)
	}

	// Past the grace, nothing without a license file.
	now = now.Add(7*24*time.Hour + time.Minute)
	status, _ = c.Status(ctx, testKey, nil)
	if status.Valid || status.Source != SourceNone || status.Code != CodeUnreachable || status.CheckedAt.IsZero() {
		t.Fatalf("past the grace: %+v", status)
	}

	// A license file checked out earlier carries it.
	now = time.Now()
	network.down.Store(false)
	if _, err := c.Checkout(ctx, testKey, nil); err != nil {
		t.Fatal(err)
	}
	network.down.Store(true)
	now = now.Add(8 * 24 * time.Hour)
	status, _ = c.Status(ctx, testKey, nil)
	if !status.Valid || status.Source != SourceLicenseFile || status.Code != CodeValid || status.LicenseFile == nil ||
		!errors.Is(status.Err, ErrUnreachable) {
		t.Fatalf("license file: %+v", status)
	}
	now = now.Add(30 * 24 * time.Hour)
	status, _ = c.Status(ctx, testKey, nil)
	if status.Valid || status.Source != SourceNone {
		t.Fatalf("the license file expired: %+v", status)
	}
}

func TestStatusOfAnUnverifiableAnswerFallsBackToo(t *testing.T) {
	f := statusFake(t)
	c, _ := f.client(t)
	ctx := context.Background()
	if status, _ := c.Status(ctx, testKey, nil); status.Source != SourceOnline {
		t.Fatalf("got %+v", status)
	}
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		f.reply(w, 200, validAnswer(testKey, testProduct, body["nonce"]), signature{unsigned: true})
	})
	status, _ := c.Status(ctx, testKey, nil)
	if !status.Valid || status.Source != SourceCache || !errors.Is(status.Err, ErrUnverifiable) {
		t.Fatalf("got %+v", status)
	}
	status, _ = c.Status(ctx, "OTHER-KEY", nil)
	if status.Valid || status.Source != SourceNone || status.Code != CodeUnverifiable {
		t.Fatalf("got %+v", status)
	}
}

func TestStatusKeepsWhatItKnowsInStateDirAcrossRestarts(t *testing.T) {
	f := statusFake(t)
	dir := filepath.Join(t.TempDir(), "state")
	ctx := context.Background()
	first, _ := f.client(t, func(c *Config) { c.StateDir = dir })
	if status, err := first.Status(ctx, testKey, nil); err != nil || status.Source != SourceOnline {
		t.Fatalf("got %+v, %v", status, err)
	}
	if _, err := first.Checkout(ctx, testKey, nil); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(dir)
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("StateDir %v, %v", info, err)
	}

	f.server.Close()
	second, _ := f.client(t, func(c *Config) { c.StateDir = dir; c.Retries = NoRetries })
	status, err := second.Status(ctx, testKey, nil)
	if err != nil || !status.Valid || status.Source != SourceCache {
		t.Fatalf("after a restart: %+v, %v", status, err)
	}

	// What is kept is verified again when read back: a changed byte is not trusted.
	entries, _ := filepath.Glob(filepath.Join(dir, "answer-*.json"))
	if len(entries) != 1 {
		t.Fatalf("kept answers %v", entries)
	}
	text, _ := os.ReadFile(entries[0])
	info, _ = os.Stat(entries[0])
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("the kept answer's mode is %v", info.Mode())
	}
	tampered := strings.Replace(string(text), `"status":200`, `"status":201`, 1)
	if err := os.WriteFile(entries[0], []byte(tampered), 0o600); err != nil {
		t.Fatal(err)
	}
	third, _ := f.client(t, func(c *Config) { c.StateDir = dir; c.Retries = NoRetries })
	status, _ = third.Status(ctx, testKey, nil)
	if status.Source != SourceLicenseFile || !status.Valid {
		t.Fatalf("a tampered kept answer: %+v", status)
	}
}

func TestStatusReturnsARefusalOfTheRequest(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		f.reply(w, 422, map[string]any{"message": "The key field is required."}, signature{})
	})
	c, _ := f.client(t)
	// depot's own answer, online: not valid, with the refusal's code (nothing from the cache).
	status, err := c.Status(context.Background(), "", nil)
	if err != nil || status.Valid || status.Code != CodeInvalid || status.Source != SourceOnline || !errors.Is(status.Err, ErrInvalid) {
		t.Fatalf("got %+v, %v", status, err)
	}
}
