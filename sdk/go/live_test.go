package depot

// Against a real depot: sdk/conformance/start-depot.ts, whose fixture test.sh passes as
// DEPOT_FIXTURE. Without it these tests skip (plain `go test` needs no server). test.sh then pauses
// the server (SIGSTOP: it takes connections and never answers) and runs
// TestLiveStatusWhileTheServerIsPaused with DEPOT_SERVER_PAUSED=1 and the same DEPOT_STATE_DIR, so
// what the first run kept is read back by a new process; then it resumes the server.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

type liveFixture struct {
	Server         string `json:"server"`
	JWKS           string `json:"jwks"`
	ProductID      string `json:"productId"`
	Key            string `json:"key"`
	MachineKey     string `json:"machineKey"`
	OtherKey       string `json:"otherKey"`
	OtherProductID string `json:"otherProductId"`
	OwnerID        string `json:"ownerId"`
	APIKey         string `json:"apiKey"`
	Token          string `json:"token"`
}

func live(t *testing.T) liveFixture {
	t.Helper()
	path := os.Getenv("DEPOT_FIXTURE")
	if path == "" {
		t.Skip("no DEPOT_FIXTURE: no real depot to test against (sdk/go/test.sh starts one)")
	}
	if os.Getenv("DEPOT_SERVER_PAUSED") != "" {
		t.Skip("the server is paused for this run")
	}
	return readFixture(t, path)
}

func readFixture(t *testing.T, path string) liveFixture {
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fixture liveFixture
	if err := json.Unmarshal(text, &fixture); err != nil {
		t.Fatal(err)
	}
	return fixture
}

func liveClient(t *testing.T, fixture liveFixture, adjust ...func(*Config)) *Client {
	t.Helper()
	config := Config{Server: fixture.Server, ProductID: fixture.ProductID, JWKSFile: fixture.JWKS}
	for _, a := range adjust {
		a(&config)
	}
	c, err := New(config)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// liveLicense is a license of the fixture's product made for this test through the license API
// (x-api-key), with maxMachines seats: every library's tests share one depot, and none may fill
// another's seats (a machine whose license file is valid keeps its seat for days).
func liveLicense(t *testing.T, fixture liveFixture, maxMachines int) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"ownerId": fixture.OwnerID, "creatorId": fixture.OwnerID,
		"productId": fixture.ProductID, "maxIps": 100, "maxMachines": maxMachines})
	r, _ := http.NewRequest(http.MethodPost, fixture.Server+"/api/v1/licenses", bytes.NewReader(body))
	r.Header.Set("x-api-key", fixture.APIKey)
	r.Header.Set("Content-Type", "application/json")
	response, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer response.Body.Close()
	var created struct {
		Key string `json:"key"`
	}
	if err := json.NewDecoder(response.Body).Decode(&created); err != nil || response.StatusCode != 201 || created.Key == "" {
		t.Fatalf("a new license: %d, %v", response.StatusCode, err)
	}
	return created.Key
}

// uniqueFingerprint keeps two runs against one depot from meeting each other's machines.
func uniqueFingerprint(name string) string {
	return fmt.Sprintf("go-%s-%d", name, time.Now().UnixNano())
}

func TestLiveValidate(t *testing.T) {
	fixture := live(t)
	c := liveClient(t, fixture)
	ctx := context.Background()
	cases := []struct {
		key  string
		fp   string
		code string
	}{
		{fixture.Key, "", CodeValid},
		{"NOPE0-NOPE0-NOPE0-NOPE0-NOPE0", "", CodeNotFound},
		{fixture.OtherKey, "", CodeProductMismatch},
		{fixture.MachineKey, "", CodeFingerprintRequired},
		{fixture.MachineKey, uniqueFingerprint("never"), CodeNotActivated},
	}
	for _, tc := range cases {
		validation, err := c.Validate(ctx, tc.key, &ValidateOptions{Fingerprint: tc.fp})
		if err != nil {
			t.Fatalf("%s: %v", tc.code, err)
		}
		if validation.Code != tc.code || validation.Valid != (tc.code == CodeValid) {
			t.Fatalf("want %s, got %+v", tc.code, validation)
		}
	}
	// Another product's client hears PRODUCT_MISMATCH about our key, verified.
	other := liveClient(t, fixture, func(c *Config) { c.ProductID = fixture.OtherProductID })
	if validation, err := other.Validate(ctx, fixture.Key, nil); err != nil || validation.Code != CodeProductMismatch {
		t.Fatalf("got %+v, %v", validation, err)
	}
	// A client pinning another key set refuses depot's own answers.
	stranger := liveClient(t, fixture, func(c *Config) { c.JWKSFile = ""; c.JWKS = newSigner(t, "stranger").jwks() })
	_, err := stranger.Validate(ctx, fixture.Key, nil)
	mustUnverifiable(t, err, "not pinned")
	// A refusal of the request itself (an empty key) is depot's signed 422.
	if _, err := c.Validate(ctx, "", nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("an empty key: %v", err)
	}
}

func TestLiveMachines(t *testing.T) {
	fixture := live(t)
	c := liveClient(t, fixture)
	ctx := context.Background()
	fingerprint := uniqueFingerprint("machines")
	fixture.MachineKey = liveLicense(t, fixture, 3)
	first, err := c.Activate(ctx, fixture.MachineKey, fingerprint, &MachineDetails{Name: "go test", Platform: "linux-x64", Hostname: "ci"})
	if err != nil {
		t.Fatal(err)
	}
	if !first.Created || first.Machine.Fingerprint != fingerprint || first.Machine.Name != "go test" || *first.License.MaxMachines != 3 {
		t.Fatalf("first activation %+v", first)
	}
	again, err := c.Activate(ctx, fixture.MachineKey, fingerprint, nil)
	if err != nil || again.Created || again.Machine.ID != first.Machine.ID {
		t.Fatalf("second activation %+v, %v", again, err)
	}
	validation, err := c.Validate(ctx, fixture.MachineKey, &ValidateOptions{Fingerprint: fingerprint})
	if err != nil || !validation.Valid || validation.Machine == nil || validation.Machine.ID != first.Machine.ID {
		t.Fatalf("validate with the fingerprint: %+v, %v", validation, err)
	}

	// Up to maxMachines, then TOO_MANY_MACHINES.
	var mine []string
	defer func() {
		for _, id := range mine {
			_ = c.Deactivate(ctx, fixture.MachineKey, id)
		}
	}()
	for seats := validation.Machines.Count; seats < *validation.Machines.Max; seats++ {
		more, err := c.Activate(ctx, fixture.MachineKey, uniqueFingerprint("seat"), nil)
		if err != nil {
			t.Fatalf("seat %d: %v", seats+1, err)
		}
		mine = append(mine, more.Machine.ID)
	}
	_, err = c.Activate(ctx, fixture.MachineKey, uniqueFingerprint("one-too-many"), nil)
	var refused *RefusedError
	if !errors.As(err, &refused) || !errors.Is(err, ErrTooManyMachines) || refused.Status != 409 {
		t.Fatalf("one machine too many: %#v", err)
	}

	if err := c.Deactivate(ctx, fixture.Key, first.Machine.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another license's machine: %v", err)
	}
	if err := c.Deactivate(ctx, fixture.MachineKey, first.Machine.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.Deactivate(ctx, fixture.MachineKey, first.Machine.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deactivating twice: %v", err)
	}
	if _, err := c.Activate(ctx, "NOPE0-NOPE0-NOPE0-NOPE0-NOPE0", fingerprint, nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an unknown key: %v", err)
	}
}

// TestLiveHeartbeat needs depot to echo the heartbeat's ?nonce= (the contract's check 6 on every
// 2xx); a depot without that answers a heartbeat this library cannot pair with its request.
func TestLiveHeartbeat(t *testing.T) {
	fixture := live(t)
	c := liveClient(t, fixture)
	ctx := context.Background()
	fixture.MachineKey = liveLicense(t, fixture, 1)
	activation, err := c.Activate(ctx, fixture.MachineKey, uniqueFingerprint("heartbeat"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Deactivate(ctx, fixture.MachineKey, activation.Machine.ID)
	machine, err := c.Heartbeat(ctx, fixture.MachineKey, activation.Machine.ID)
	if err != nil {
		t.Fatal(err)
	}
	if machine.ID != activation.Machine.ID || !machine.Alive || machine.LastHeartbeatAt.Before(activation.Machine.LastHeartbeatAt) {
		t.Fatalf("got %+v", machine)
	}
	failures := make(chan error, 10)
	beats := c.StartHeartbeat(ctx, fixture.MachineKey, activation.Machine.ID, &HeartbeatOptions{Interval: 50 * time.Millisecond, OnError: func(err error) { failures <- err }})
	time.Sleep(300 * time.Millisecond)
	beats.Stop()
	if len(failures) != 0 {
		t.Fatalf("a heartbeat failed: %v", <-failures)
	}
	if _, err := c.Heartbeat(ctx, fixture.Key, activation.Machine.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another license's key: %v", err)
	}
}

func TestLiveCheckoutAndLicenseFile(t *testing.T) {
	fixture := live(t)
	c := liveClient(t, fixture)
	ctx := context.Background()
	checkout, err := c.Checkout(ctx, fixture.Key, &CheckoutOptions{TTL: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if !checkout.Valid || !strings.HasPrefix(checkout.LicenseFile, "-----BEGIN DEPOT LICENSE FILE-----") || checkout.LicenseFileExpiresAt == nil {
		t.Fatalf("checkout %+v", checkout)
	}
	file, err := c.VerifyLicenseFile(ctx, checkout.LicenseFile, &LicenseFileOptions{Key: fixture.Key})
	if err != nil {
		t.Fatal(err)
	}
	if file.Key != fixture.Key || file.ProductID != fixture.ProductID || file.Issuer != fixture.Server ||
		!file.ExpiresAt.Equal(checkout.LicenseFileExpiresAt.Truncate(time.Second)) || file.ExpiresAt.Sub(time.Now()) > 24*time.Hour {
		t.Fatalf("claims %+v", file)
	}

	// A tampered payload: the key claim changed, the signature kept.
	token, _ := armoured(checkout.LicenseFile)
	parts := strings.Split(token, ".")
	claims, _ := jsonSegment(parts[1])
	claims["key"] = fixture.OtherKey
	tampered := "-----BEGIN DEPOT LICENSE FILE-----\n" + parts[0] + "." + segmentOf(claims) + "." + parts[2] + "\n-----END DEPOT LICENSE FILE-----\n"
	_, err = c.VerifyLicenseFile(ctx, tampered, nil)
	mustUnverifiable(t, err, "does not verify")

	_, err = c.VerifyLicenseFile(ctx, checkout.LicenseFile, &LicenseFileOptions{Fingerprint: "fp-anything"})
	mustUnverifiable(t, err, "not bound to a machine")
	_, err = c.VerifyLicenseFile(ctx, checkout.LicenseFile, &LicenseFileOptions{Key: fixture.MachineKey})
	mustUnverifiable(t, err, "another license key")

	after := file.ExpiresAt.Add(time.Second)
	if _, err := c.VerifyLicenseFile(ctx, checkout.LicenseFile, &LicenseFileOptions{Now: after}); !errors.Is(err, ErrExpired) {
		t.Fatalf("expired: %v", err)
	}
	if _, err := c.VerifyLicenseFile(ctx, checkout.LicenseFile, &LicenseFileOptions{Now: after, Grace: time.Hour}); err != nil {
		t.Fatalf("within the grace: %v", err)
	}

	// Bound to a machine: checked out with its fingerprint, refused for another.
	fingerprint := uniqueFingerprint("checkout")
	fixture.MachineKey = liveLicense(t, fixture, 1)
	activation, err := c.Activate(ctx, fixture.MachineKey, fingerprint, nil)
	if err != nil {
		t.Fatal(err)
	}
	bound, err := c.Checkout(ctx, fixture.MachineKey, &CheckoutOptions{Fingerprint: fingerprint})
	if err != nil || bound.LicenseFile == "" {
		t.Fatalf("checkout with a fingerprint: %+v, %v", bound, err)
	}
	boundFile, err := c.VerifyLicenseFile(ctx, bound.LicenseFile, &LicenseFileOptions{Key: fixture.MachineKey, Fingerprint: fingerprint})
	if err != nil || boundFile.MachineID != activation.Machine.ID {
		t.Fatalf("the bound file: %+v, %v", boundFile, err)
	}
	_, err = c.VerifyLicenseFile(ctx, bound.LicenseFile, &LicenseFileOptions{Fingerprint: "another-machine"})
	mustUnverifiable(t, err, "bound to another machine")
	// The file works offline until it expires: the seat stays taken until then.
	err = c.Deactivate(ctx, fixture.MachineKey, activation.Machine.ID)
	var refused *RefusedError
	if !errors.As(err, &refused) || !errors.Is(err, ErrMachineFileValid) || refused.Status != 409 ||
		!refused.FileExpiresAt.Equal(*bound.LicenseFileExpiresAt) || !refused.FileExpiresAt.Equal(boundFile.ExpiresAt) {
		t.Fatalf("deactivating a machine whose file is valid: %#v (the file expires at %v)", err, bound.LicenseFileExpiresAt)
	}

	// A client that expects depot under another address names both.
	elsewhere := liveClient(t, fixture, func(c *Config) { c.Server = strings.Replace(fixture.Server, "127.0.0.1", "localhost", 1) })
	_, err = elsewhere.VerifyLicenseFile(ctx, checkout.LicenseFile, nil)
	mustUnverifiable(t, err, fmt.Sprintf("the file was issued by %q, expected %q", fixture.Server, elsewhere.Server()))
}

func TestLiveOfflineActivation(t *testing.T) {
	fixture := live(t)
	c := liveClient(t, fixture)
	ctx := context.Background()
	fixture.MachineKey = liveLicense(t, fixture, 1)
	validation, err := c.Validate(ctx, fixture.MachineKey, &ValidateOptions{Fingerprint: "x"})
	if err != nil {
		t.Fatal(err)
	}
	fingerprint := uniqueFingerprint("vault")
	request := OfflineActivationRequest(fixture.MachineKey, fingerprint, &MachineDetails{Name: "Vault", Platform: "linux-x64", Hostname: "vault"})

	// The owner's side (the dashboard's exchange), with the fixture's admin token.
	body, _ := json.Marshal(map[string]string{"request": request})
	r, _ := http.NewRequest(http.MethodPost, fixture.Server+"/api/licenses/"+validation.License.ID+"/machines/offline", bytes.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+fixture.Token)
	r.Header.Set("Content-Type", "application/json")
	response, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer response.Body.Close()
	raw, _ := io.ReadAll(response.Body)
	if response.StatusCode != 201 {
		t.Fatalf("the exchange answered %d: %s", response.StatusCode, raw)
	}
	var exchanged struct {
		Data struct {
			Machine struct {
				ID          string `json:"id"`
				Fingerprint string `json:"fingerprint"`
				Name        string `json:"name"`
			} `json:"machine"`
			LicenseFile string `json:"license_file"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &exchanged); err != nil {
		t.Fatal(err)
	}
	if exchanged.Data.Machine.Fingerprint != fingerprint || exchanged.Data.Machine.Name != "Vault" {
		t.Fatalf("the request was read as %+v", exchanged.Data.Machine)
	}
	file, err := c.VerifyLicenseFile(ctx, exchanged.Data.LicenseFile, &LicenseFileOptions{Key: fixture.MachineKey, Fingerprint: fingerprint})
	if err != nil || file.MachineID != exchanged.Data.Machine.ID {
		t.Fatalf("the offline file: %+v, %v", file, err)
	}
	_, err = c.VerifyLicenseFile(ctx, exchanged.Data.LicenseFile, &LicenseFileOptions{Fingerprint: uniqueFingerprint("elsewhere")})
	mustUnverifiable(t, err, "bound to another machine")
}

func TestLiveCheckForUpdateAndDownload(t *testing.T) {
	fixture := live(t)
	c := liveClient(t, fixture)
	ctx := context.Background()
	upgrade, err := c.CheckForUpdate(ctx, fixture.Key, "1.0.0", &UpdateOptions{Platform: "linux", Arch: "x86_64"})
	if err != nil {
		t.Fatal(err)
	}
	if !upgrade.Upgrade || upgrade.Version.VersionNumber != "1.1.0" || len(upgrade.Version.Artifacts) != 1 {
		t.Fatalf("from 1.0.0: %+v", upgrade)
	}
	artifact := upgrade.Version.Artifacts[0]
	if artifact.FileName != "desk-clock-1.1.0-linux-x86_64.tar.gz" || artifact.SHA512 == "" || artifact.SHA256 == "" {
		t.Fatalf("artifact %+v", artifact)
	}
	latest, err := c.CheckForUpdate(ctx, fixture.Key, "1.1.0", &UpdateOptions{Platform: "linux", Arch: "x86_64"})
	if err != nil || latest.Upgrade || latest.Version != nil {
		t.Fatalf("from 1.1.0: %+v, %v", latest, err)
	}
	if _, err := c.CheckForUpdate(ctx, fixture.OtherKey, "1.0.0", nil); !errors.Is(err, ErrForbidden) {
		t.Fatalf("another product's key: %v", err)
	}
	if _, err := c.CheckForUpdate(ctx, fixture.Key, "not-semver", nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a version that is not semver: %v", err)
	}

	want := []byte(artifact.FileName + " bytes\n")
	dir := t.TempDir()
	path, err := c.Download(ctx, fixture.Key, artifact, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); path != filepath.Join(dir, artifact.FileName) || !bytes.Equal(got, want) {
		t.Fatalf("%s holds %q", path, got)
	}

	resumed := t.TempDir()
	part := filepath.Join(resumed, artifact.FileName+".part")
	if err := os.WriteFile(part, want[:10], 0o644); err != nil {
		t.Fatal(err)
	}
	recorder := &recording{inner: http.DefaultTransport}
	watched := liveClient(t, fixture, func(c *Config) { c.HTTPClient = &http.Client{Transport: recorder} })
	path, err = watched.Download(ctx, fixture.Key, artifact, resumed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Fatalf("resumed: %q", got)
	}
	if len(recorder.seen) != 1 || recorder.seen[0] != "bytes=10- → 206" {
		t.Fatalf("the download was not resumed: %q", recorder.seen)
	}

	wrong := artifact
	wrong.SHA512 = ""
	wrong.SHA256 = strings.Repeat("0", 64)
	spoiled := t.TempDir()
	_, err = c.Download(ctx, fixture.Key, wrong, spoiled, nil)
	mustUnverifiable(t, err, "does not match its sha256")
	if entries, _ := os.ReadDir(spoiled); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}

	hostile := artifact
	hostile.FileName = "../../etc/cron.d/evil"
	_, err = c.Download(ctx, fixture.Key, hostile, t.TempDir(), nil)
	mustUnverifiable(t, err, "not a plain file name")

	if _, err := c.Download(ctx, fixture.OtherKey, artifact, t.TempDir(), nil); !errors.Is(err, ErrRefused) {
		t.Fatalf("another product's key: %v", err)
	}
}

func TestLiveStatus(t *testing.T) {
	fixture := live(t)
	network := &switchable{}
	now := time.Now()
	c := liveClient(t, fixture, func(c *Config) {
		c.HTTPClient = &http.Client{Transport: network}
		c.Clock = func() time.Time { return now }
		c.Retries = NoRetries
	})
	ctx := context.Background()
	status, err := c.Status(ctx, fixture.Key, nil)
	if err != nil || status.Source != SourceOnline || !status.Valid {
		t.Fatalf("online: %+v, %v", status, err)
	}
	if _, err := c.Checkout(ctx, fixture.Key, nil); err != nil {
		t.Fatal(err)
	}
	network.down.Store(true)
	for _, step := range []struct {
		later  time.Duration
		source string
		valid  bool
	}{
		{time.Hour, SourceCache, true},
		{8 * 24 * time.Hour, SourceLicenseFile, true},
		{31 * 24 * time.Hour, SourceNone, false},
	} {
		now = time.Now().Add(step.later)
		status, err := c.Status(ctx, fixture.Key, nil)
		if err != nil || status.Source != step.source || status.Valid != step.valid || !errors.Is(status.Err, ErrUnreachable) {
			t.Fatalf("%s later: %+v, %v", step.later, status, err)
		}
	}
}

// TestLiveStatusKeepsState fills DEPOT_STATE_DIR for TestLiveStatusWhileTheServerIsPaused.
func TestLiveStatusKeepsState(t *testing.T) {
	fixture := live(t)
	dir := os.Getenv("DEPOT_STATE_DIR")
	if dir == "" {
		t.Skip("no DEPOT_STATE_DIR")
	}
	c := liveClient(t, fixture, func(c *Config) { c.StateDir = dir })
	if status, err := c.Status(context.Background(), fixture.Key, nil); err != nil || status.Source != SourceOnline {
		t.Fatalf("got %+v, %v", status, err)
	}
	if _, err := c.Checkout(context.Background(), fixture.Key, nil); err != nil {
		t.Fatal(err)
	}
}

func TestLiveStatusWhileTheServerIsPaused(t *testing.T) {
	path, dir := os.Getenv("DEPOT_FIXTURE"), os.Getenv("DEPOT_STATE_DIR")
	if path == "" || dir == "" || os.Getenv("DEPOT_SERVER_PAUSED") == "" {
		t.Skip("run by test.sh once the server is paused")
	}
	fixture := readFixture(t, path)
	now := time.Now()
	// A paused depot takes the connection and never answers: each call ends with the timeout.
	c := liveClient(t, fixture, func(c *Config) {
		c.StateDir, c.Clock, c.Retries, c.Timeout = dir, func() time.Time { return now }, NoRetries, time.Second
	})
	for _, step := range []struct {
		later  time.Duration
		source string
		valid  bool
		code   string
	}{
		{0, SourceCache, true, CodeValid},
		{8 * 24 * time.Hour, SourceLicenseFile, true, CodeValid},
		{31 * 24 * time.Hour, SourceNone, false, CodeUnreachable},
	} {
		now = time.Now().Add(step.later)
		status, err := c.Status(context.Background(), fixture.Key, nil)
		if err != nil || status.Source != step.source || status.Valid != step.valid || status.Code != step.code || !errors.Is(status.Err, ErrUnreachable) {
			t.Fatalf("%s later: %+v, %v", step.later, status, err)
		}
	}
}

func jsonSegment(segment string) (map[string]any, error) {
	var claims map[string]any
	err := decodeSegment(segment, &claims, true)
	return claims, err
}

func segmentOf(claims map[string]any) string {
	raw, _ := json.Marshal(claims)
	return base64.RawURLEncoding.EncodeToString(raw)
}

// recording is a transport that notes each request's Range and its answer's status.
type recording struct {
	mu    sync.Mutex
	seen  []string
	inner http.RoundTripper
}

func (r *recording) RoundTrip(request *http.Request) (*http.Response, error) {
	response, err := r.inner.RoundTrip(request)
	if err == nil {
		r.mu.Lock()
		r.seen = append(r.seen, fmt.Sprintf("%s → %d", request.Header.Get("Range"), response.StatusCode))
		r.mu.Unlock()
	}
	return response, err
}
