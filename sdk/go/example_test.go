package depot_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	depot "github.com/depothq/depot/sdk/go"
)

// jwks is the key set the app ships with: in a real app, //go:embed depot-jwks.json.
var jwks = []byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"0LAgELlHuJjV2wOTcJo_vYUv9UylOpSQ5FOownc5YWw","kid":"7aA32X_zc5nKz0yVrfqLmq3NGWaGm5FQ8yo23tMPZTE"}]}`)

// The README's quick start: validate with a pinned key set, the three outcomes apart.
func Example() {
	ctx, licenseKey := context.Background(), "362EP-CF5B8-3QWD2-25P88-HQP16"
	client, err := depot.New(depot.Config{Server: "https://licenses.example.com", ProductID: "1", JWKS: jwks})
	if err != nil {
		log.Fatal(err)
	}
	validation, err := client.Validate(ctx, licenseKey, nil)
	switch {
	case errors.Is(err, depot.ErrUnverifiable): // not provably depot's answer: never trust it
		log.Fatalf("refusing to run: %v", err)
	case errors.Is(err, depot.ErrUnreachable): // offline: see Status, which falls back on what it kept
		log.Printf("depot unreachable: %v", err)
	case err != nil:
		log.Fatal(err)
	case !validation.Valid:
		fmt.Println("license not valid:", validation.Code)
	default:
		fmt.Println("licensed until", validation.License.Expires)
	}
}

// Status keeps an app running through an outage: online, else the last verified answer within
// OfflineGrace, else the license file Checkout kept.
func ExampleClient_Status() {
	client, _ := depot.New(depot.Config{Server: "https://licenses.example.com", ProductID: "1", JWKS: jwks, StateDir: "/var/lib/my-app/depot"})
	status, err := client.Status(context.Background(), "362EP-CF5B8-3QWD2-25P88-HQP16", nil)
	if err != nil {
		log.Fatal(err) // depot refused the request itself (an empty key)
	}
	if !status.Valid {
		log.Fatalf("not licensed (%s, from %s)", status.Code, status.Source)
	}
	fmt.Println("licensed, as depot said at", status.CheckedAt, "source", status.Source)
}

// A machine-bound license: activate, keep the seat with heartbeats, deactivate on uninstall.
func ExampleClient_StartHeartbeat() {
	ctx := context.Background()
	client, _ := depot.New(depot.Config{Server: "https://licenses.example.com", ProductID: "1", JWKS: jwks})
	fingerprint, err := depot.MachineFingerprint(ctx, "1", nil)
	if err != nil {
		log.Fatal(err)
	}
	activation, err := client.Activate(ctx, "J7ED1-09WW4-HVK66-GSBT2-BXTPV", fingerprint, &depot.MachineDetails{Name: "Ada's laptop"})
	if errors.Is(err, depot.ErrTooManyMachines) {
		log.Fatal("this license is in use on as many machines as it allows")
	} else if err != nil {
		log.Fatal(err)
	}
	beats := client.StartHeartbeat(ctx, "J7ED1-09WW4-HVK66-GSBT2-BXTPV", activation.Machine.ID, &depot.HeartbeatOptions{
		Interval: 5 * time.Minute,
		OnError:  func(err error) { log.Printf("heartbeat: %v", err) },
	})
	defer beats.Stop()
}

// Updates: the signed upgrade check, then the verified download.
func ExampleClient_Download() {
	ctx, key := context.Background(), "362EP-CF5B8-3QWD2-25P88-HQP16"
	client, _ := depot.New(depot.Config{Server: "https://licenses.example.com", ProductID: "1", JWKS: jwks})
	upgrade, err := client.CheckForUpdate(ctx, key, "1.0.0", &depot.UpdateOptions{Platform: "linux", Arch: "x86_64"})
	if err != nil || !upgrade.Upgrade {
		return
	}
	path, err := client.Download(ctx, key, upgrade.Version.Artifacts[0], "/tmp/updates", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("verified", upgrade.Version.VersionNumber, "at", path)
}
