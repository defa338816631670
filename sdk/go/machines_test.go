package depot

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func activationAnswer(key, product, machineID, fingerprint string, nonce any) map[string]any {
	license := licenseJSON(key, product)
	license["maxMachines"], license["floating"], license["heartbeatSeconds"] = 3, false, nil
	return map[string]any{"machine": machineJSON(machineID, fingerprint), "license": license, "nonce": nonce}
}

func TestActivateReturnsTheVerifiedMachine(t *testing.T) {
	f := newFake(t)
	status := 201
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		f.reply(w, status, activationAnswer(testKey, testProduct, "m-1", body["fingerprint"].(string), body["nonce"]), signature{})
	})
	c, _ := f.client(t)
	activation, err := c.Activate(context.Background(), testKey, "fp-1", &MachineDetails{Name: "Ada's laptop", Platform: "linux-x64", Hostname: "ada"})
	if err != nil {
		t.Fatal(err)
	}
	if !activation.Created || activation.Machine.ID != "m-1" || activation.Machine.Fingerprint != "fp-1" ||
		*activation.License.MaxMachines != 3 || !activation.Machine.Alive {
		t.Fatalf("got %+v", activation)
	}
	r, body := f.lastRequest()
	if r.URL.Path != "/api/v1/licenses/activate" || body["name"] != "Ada's laptop" || body["platform"] != "linux-x64" ||
		body["hostname"] != "ada" || body["key"] != testKey || body["productId"] != nil {
		t.Fatalf("request %s %v", r.URL.Path, body)
	}
	status = 200
	activation, err = c.Activate(context.Background(), testKey, "fp-1", nil)
	if err != nil || activation.Created {
		t.Fatalf("a 200 is an activation already there: %+v, %v", activation, err)
	}
	if _, body := f.lastRequest(); body["name"] != nil {
		t.Fatalf("absent details were sent: %v", body)
	}
}

func TestAnActivationAboutSomethingElseIsUnverifiable(t *testing.T) {
	cases := map[string]func(body map[string]any) map[string]any{
		"another machine": func(body map[string]any) map[string]any {
			return activationAnswer(testKey, testProduct, "m-1", "fp-2", body["nonce"])
		},
		"another license key": func(body map[string]any) map[string]any {
			return activationAnswer("ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", testProduct, "m-1", "fp-1", body["nonce"])
		},
		"another nonce": func(body map[string]any) map[string]any {
			return activationAnswer(testKey, testProduct, "m-1", "fp-1", "old")
		},
	}
	for name, answer := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFake(t)
			f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				f.reply(w, 201, answer(body), signature{})
			})
			c, _ := f.client(t)
			_, err := c.Activate(context.Background(), testKey, "fp-1", nil)
			mustUnverifiable(t, err, name)
		})
	}
}

func TestAnActivationOnALicenseOfAnotherProductIsRefused(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		f.reply(w, 201, activationAnswer(testKey, "2", "m-1", "fp-1", body["nonce"]), signature{})
	})
	c, _ := f.client(t)
	_, err := c.Activate(context.Background(), testKey, "fp-1", nil)
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Code != CodeProductMismatch || refused.Status != 201 {
		t.Fatalf("got %#v", err)
	}
}

func TestMachineRefusalsAreTypedByTheirCode(t *testing.T) {
	cases := []struct {
		status     int
		body       map[string]any
		sentinel   error
		retryAfter string
	}{
		{409, map[string]any{"code": "TOO_MANY_MACHINES", "message": "This license is already active on its maximum of 3 machines."}, ErrTooManyMachines, ""},
		{429, map[string]any{"code": "TOO_MANY_ACTIVATIONS", "message": "Too many activations."}, ErrTooManyActivations, "3600"},
		{403, map[string]any{"code": "REVOKED", "message": "This license was revoked."}, ErrRevoked, ""},
		{403, map[string]any{"code": "EXPIRED", "message": "This license has expired."}, ErrExpired, ""},
		{404, map[string]any{"code": "NOT_FOUND", "message": "No license has this key."}, ErrNotFound, ""},
		{422, map[string]any{"message": "The fingerprint field is required.", "errors": map[string]any{"fingerprint": []string{"required"}}}, ErrInvalid, ""},
	}
	for _, tc := range cases {
		t.Run(tc.sentinel.Error(), func(t *testing.T) {
			f := newFake(t)
			f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				if tc.retryAfter != "" {
					w.Header().Set("Retry-After", tc.retryAfter)
				}
				f.reply(w, tc.status, tc.body, signature{})
			})
			c, _ := f.client(t)
			_, err := c.Activate(context.Background(), testKey, "fp-1", nil)
			var refused *RefusedError
			if !errors.As(err, &refused) || !errors.Is(err, tc.sentinel) || refused.Status != tc.status {
				t.Fatalf("got %#v", err)
			}
			for _, other := range []error{ErrTooManyMachines, ErrTooManyActivations, ErrRevoked, ErrExpired, ErrNotFound, ErrInvalid} {
				if other != tc.sentinel && errors.Is(err, other) {
					t.Fatalf("%v also matches %v", err, other)
				}
			}
			if tc.retryAfter != "" && refused.RetryAfter != time.Hour {
				t.Fatalf("RetryAfter %s", refused.RetryAfter)
			}
			if f.callCount() != 1 {
				t.Fatalf("%d calls", f.callCount())
			}
		})
	}
	t.Run("unsigned", func(t *testing.T) {
		f := newFake(t)
		f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
			f.reply(w, 409, map[string]any{"code": "TOO_MANY_MACHINES", "message": "full"}, signature{unsigned: true})
		})
		c, _ := f.client(t)
		_, err := c.Activate(context.Background(), testKey, "fp-1", nil)
		mustUnverifiable(t, err, "unsigned")
	})
	t.Run("with another nonce", func(t *testing.T) {
		f := newFake(t)
		f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
			f.reply(w, 409, map[string]any{"code": "TOO_MANY_MACHINES", "message": "full", "nonce": "old"}, signature{})
		})
		c, _ := f.client(t)
		_, err := c.Activate(context.Background(), testKey, "fp-1", nil)
		mustUnverifiable(t, err, "another nonce")
	})
}

func TestHeartbeatSendsAndChecksItsNonce(t *testing.T) {
	f := newFake(t)
	echo := true
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		if r.Header.Get("Authorization") != "License "+testKey {
			f.reply(w, 401, map[string]any{"message": "Unauthenticated."}, signature{})
			return
		}
		answer := map[string]any{"machine": machineJSON("m-1", "fp-1")}
		if echo {
			answer["nonce"] = r.URL.Query().Get("nonce")
		}
		f.reply(w, 200, answer, signature{})
	})
	c, _ := f.client(t)
	machine, err := c.Heartbeat(context.Background(), testKey, "m-1")
	if err != nil || machine.ID != "m-1" || !machine.Alive {
		t.Fatalf("got %+v, %v", machine, err)
	}
	r, _ := f.lastRequest()
	if r.Method != http.MethodPost || r.URL.Path != "/api/v1/machines/m-1/heartbeat" || len(r.URL.Query().Get("nonce")) != 22 {
		t.Fatalf("request %s %s", r.Method, r.URL)
	}
	_, err = c.Heartbeat(context.Background(), testKey, "m-2")
	mustUnverifiable(t, err, "another machine")
	echo = false
	_, err = c.Heartbeat(context.Background(), testKey, "m-1")
	mustUnverifiable(t, err, "no nonce")
	_, err = c.Heartbeat(context.Background(), "", "m-1")
	if !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("got %v", err)
	}
}

func TestHeartbeatRefusals(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		if strings.Contains(r.URL.Path, "gone") {
			f.reply(w, 410, map[string]any{"code": "HEARTBEAT_DEAD", "message": "This machine missed its heartbeats; activate it again."}, signature{})
			return
		}
		f.reply(w, 404, map[string]any{"message": "Machine not found."}, signature{})
	})
	c, _ := f.client(t)
	_, err := c.Heartbeat(context.Background(), testKey, "gone")
	if !errors.Is(err, ErrHeartbeatDead) || !strings.Contains(err.Error(), "activate it again") {
		t.Fatalf("got %v", err)
	}
	_, err = c.Heartbeat(context.Background(), testKey, "other")
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Code != CodeNotFound || refused.Message != "Machine not found." || !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %#v", err)
	}
}

func TestStartHeartbeatBeatsUntilStopped(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		f.reply(w, 200, map[string]any{"machine": machineJSON("m-1", "fp-1"), "nonce": r.URL.Query().Get("nonce")}, signature{})
	})
	c, _ := f.client(t)
	c.sleep = sleepOrDone
	var mu sync.Mutex
	var failures []error
	beats := c.StartHeartbeat(context.Background(), testKey, "m-1", &HeartbeatOptions{
		Interval: 20 * time.Millisecond,
		OnError:  func(err error) { mu.Lock(); failures = append(failures, err); mu.Unlock() },
	})
	deadline := time.Now().Add(5 * time.Second)
	for f.callCount() < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	beats.Stop()
	beats.Stop()
	stopped := f.callCount()
	if stopped < 3 {
		t.Fatalf("only %d heartbeats", stopped)
	}
	time.Sleep(60 * time.Millisecond)
	if f.callCount() != stopped || beats.Err() != nil || len(failures) != 0 {
		t.Fatalf("heartbeats went on after Stop (%d → %d), err %v, failures %v", stopped, f.callCount(), beats.Err(), failures)
	}
	select {
	case <-beats.Done():
	default:
		t.Fatal("Done is not closed after Stop")
	}
}

func TestStartHeartbeatEndsOnARefusalAndGoesOnThroughAnOutage(t *testing.T) {
	f := newFake(t)
	var mu sync.Mutex
	dead := false
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case dead:
			f.reply(w, 410, map[string]any{"code": "HEARTBEAT_DEAD", "message": "dead"}, signature{})
		default:
			w.WriteHeader(503)
		}
	})
	c, _ := f.client(t, func(c *Config) { c.Retries = NoRetries })
	c.sleep = sleepOrDone
	failures := make(chan error, 100)
	beats := c.StartHeartbeat(context.Background(), testKey, "m-1", &HeartbeatOptions{
		Interval: 10 * time.Millisecond,
		OnError:  func(err error) { failures <- err },
	})
	for i := 0; i < 2; i++ {
		if err := <-failures; !errors.Is(err, ErrUnreachable) {
			t.Fatalf("failure %d: %v", i, err)
		}
	}
	mu.Lock()
	dead = true
	mu.Unlock()
	select {
	case <-beats.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a HEARTBEAT_DEAD did not end the heartbeats")
	}
	if !errors.Is(beats.Err(), ErrHeartbeatDead) {
		t.Fatalf("Err %v", beats.Err())
	}
	beats.Stop()
}

func TestStartHeartbeatEndsWithItsContext(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		f.reply(w, 200, map[string]any{"machine": machineJSON("m-1", "fp-1"), "nonce": r.URL.Query().Get("nonce")}, signature{})
	})
	c, _ := f.client(t)
	c.sleep = sleepOrDone
	ctx, cancel := context.WithCancel(context.Background())
	beats := c.StartHeartbeat(ctx, testKey, "m-1", &HeartbeatOptions{Interval: time.Hour})
	deadline := time.Now().Add(5 * time.Second)
	for f.callCount() < 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case <-beats.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("cancelling the context did not end the heartbeats")
	}
	if f.callCount() != 1 || beats.Err() != nil {
		t.Fatalf("%d calls, err %v", f.callCount(), beats.Err())
	}
}

func TestDeactivate(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		switch {
		case r.Header.Get("Authorization") != "License "+testKey:
			f.reply(w, 401, map[string]any{"message": "Unauthenticated."}, signature{})
		case strings.HasSuffix(r.URL.Path, "/m-1"):
			w.WriteHeader(204)
		case strings.HasSuffix(r.URL.Path, "/unsigned"):
			f.reply(w, 404, map[string]any{"message": "Machine not found."}, signature{unsigned: true})
		default:
			f.reply(w, 404, map[string]any{"message": "Machine not found."}, signature{})
		}
	})
	c, _ := f.client(t)
	if err := c.Deactivate(context.Background(), testKey, "m-1"); err != nil {
		t.Fatal(err)
	}
	if r, _ := f.lastRequest(); r.Method != http.MethodDelete || r.URL.Path != "/api/v1/machines/m-1" {
		t.Fatalf("request %s %s", r.Method, r.URL.Path)
	}
	if err := c.Deactivate(context.Background(), testKey, "m-2"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v", err)
	}
	if err := c.Deactivate(context.Background(), "WRONG", "m-1"); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("got %v", err)
	}
	mustUnverifiable(t, c.Deactivate(context.Background(), testKey, "unsigned"), "unsigned")
}

func TestDeactivatingAMachineWhoseFileIsValidIsRefusedWithItsExpiry(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		if r.URL.RawQuery != "" {
			t.Errorf("deactivate sent a query (depot refuses one): %q", r.URL.RawQuery)
		}
		f.reply(w, 409, map[string]any{"code": "MACHINE_FILE_VALID", "message": "This machine holds its seat.",
			"fileExpiresAt": "2026-12-04T23:12:21.000Z"}, signature{})
	})
	c, _ := f.client(t)
	err := c.Deactivate(context.Background(), testKey, "m-1")
	var refused *RefusedError
	if !errors.As(err, &refused) || !errors.Is(err, ErrMachineFileValid) || refused.Status != 409 ||
		!refused.FileExpiresAt.Equal(time.Date(2026, 12, 4, 23, 12, 21, 0, time.UTC)) {
		t.Fatalf("got %#v", err)
	}
	if !strings.Contains(err.Error(), "2026-12-04T23:12:21Z") {
		t.Fatalf("the message does not say until when: %q", err.Error())
	}
}

func TestOfflineActivationRequest(t *testing.T) {
	text := OfflineActivationRequest(testKey, "fp<1>&", &MachineDetails{Name: "Vault", Hostname: "vault"})
	raw, err := base64.StdEncoding.DecodeString(text)
	if err != nil || strings.ContainsAny(text, "\n\r") {
		t.Fatalf("not standard base64 on one line: %q", text)
	}
	want := `{"v":1,"key":"AAAAA-BBBBB-CCCCC-DDDDD-EEEEE","fingerprint":"fp<1>&","name":"Vault","hostname":"vault"}`
	if string(raw) != want {
		t.Fatalf("got  %s\nwant %s", raw, want)
	}
	raw, _ = base64.StdEncoding.DecodeString(OfflineActivationRequest(testKey, "fp-1", nil))
	if string(raw) != `{"v":1,"key":"AAAAA-BBBBB-CCCCC-DDDDD-EEEEE","fingerprint":"fp-1"}` {
		t.Fatalf("got %s", raw)
	}
}
