package depot

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// MachineDetails are what the customer sees of a machine in the dashboard; each is optional.
type MachineDetails struct {
	// Name is one the customer recognises, e.g. "Ada's laptop".
	Name string
	// Platform is e.g. "windows-x64", "macos-arm64", "linux-x64".
	Platform string
	Hostname string
}

type activateBody struct {
	Key         string `json:"key"`
	Fingerprint string `json:"fingerprint"`
	Name        string `json:"name,omitempty"`
	Platform    string `json:"platform,omitempty"`
	Hostname    string `json:"hostname,omitempty"`
	Nonce       string `json:"nonce"`
}

// Activate activates this machine on the license (POST /api/v1/licenses/activate): Created is true
// for a new machine (201), false for a fingerprint already active (200, which also counts as a
// heartbeat). Refusals are *RefusedError: ErrTooManyMachines, ErrTooManyActivations (RetryAfter),
// ErrRevoked, ErrExpired, ErrNotFound, ErrInvalid.
func (c *Client) Activate(ctx context.Context, key, fingerprint string, details *MachineDetails) (*Activation, error) {
	nonce := newNonce()
	body := activateBody{Key: key, Fingerprint: fingerprint, Nonce: nonce}
	if details != nil {
		body.Name, body.Platform, body.Hostname = details.Name, details.Platform, details.Hostname
	}
	v, err := c.call(ctx, request{method: http.MethodPost, url: c.server + "/api/v1/licenses/activate", body: mustJSON(body)}, nonce)
	if err != nil {
		return nil, err
	}
	var answer struct {
		Activation
		Nonce *string `json:"nonce"`
	}
	if err := decodeObject(v.body, &answer); err != nil {
		return nil, unverifiable(v.status, "the answer is not an activation: %v", err)
	}
	if err := checkNonce(v.status, answer.Nonce, nonce); err != nil {
		return nil, err
	}
	activation := &answer.Activation
	switch {
	case !sameKey(activation.License.Key, key):
		return nil, unverifiable(v.status, "the activation is about another license key")
	case activation.Machine.ID == "" || activation.Machine.Fingerprint != fingerprint:
		return nil, unverifiable(v.status, "the activation is about another machine")
	case activation.License.ProductID != c.productID:
		// Activation names no product: depot's genuine answer about this key says its license is
		// another product's (the seat is taken there all the same).
		return nil, &RefusedError{Code: CodeProductMismatch, Status: v.status,
			Message: fmt.Sprintf("This license is for product %s, not %s.", activation.License.ProductID, c.productID)}
	}
	activation.Created = v.status == http.StatusCreated
	return activation, nil
}

// Heartbeat keeps a machine alive (POST /api/v1/machines/{id}/heartbeat): its seat holds for
// another heartbeatSeconds. A machine that already died is refused with ErrHeartbeatDead (activate
// it again); another license's machine with ErrNotFound.
func (c *Client) Heartbeat(ctx context.Context, key, machineID string) (*Machine, error) {
	nonce := newNonce()
	target := c.server + "/api/v1/machines/" + url.PathEscape(machineID) + "/heartbeat?nonce=" + url.QueryEscape(nonce)
	v, err := c.call(ctx, request{method: http.MethodPost, url: target, header: map[string]string{"Authorization": "License " + key}}, nonce)
	if err != nil {
		return nil, err
	}
	var answer struct {
		Machine *Machine `json:"machine"`
		Nonce   *string  `json:"nonce"`
	}
	if err := decodeObject(v.body, &answer); err != nil {
		return nil, unverifiable(v.status, "the answer is not a heartbeat's: %v", err)
	}
	if err := checkNonce(v.status, answer.Nonce, nonce); err != nil {
		return nil, err
	}
	if answer.Machine == nil || answer.Machine.ID != machineID {
		return nil, unverifiable(v.status, "the heartbeat's answer is about another machine")
	}
	return answer.Machine, nil
}

// Deactivate frees the machine's seat (DELETE /api/v1/machines/{id}). depot's 204 has no body to
// sign; its refusals (ErrNotFound, ErrUnauthenticated) are verified like every other.
func (c *Client) Deactivate(ctx context.Context, key, machineID string) error {
	target := c.server + "/api/v1/machines/" + url.PathEscape(machineID)
	got, err := c.send(ctx, request{method: http.MethodDelete, url: target, header: map[string]string{"Authorization": "License " + key}})
	if err != nil {
		return err
	}
	if got.status == http.StatusNoContent {
		return nil
	}
	v, err := c.verifyAnswer(ctx, got.status, got.header, got.body)
	if err != nil {
		return err
	}
	if v.status >= 200 && v.status <= 299 {
		return unverifiable(v.status, "deactivation answered %d, expected 204", v.status)
	}
	return c.refusal(v, got.header, "")
}

// HeartbeatOptions are StartHeartbeat's settings.
type HeartbeatOptions struct {
	// Interval between heartbeats. Default 60 s; keep it well under the license's heartbeatSeconds
	// (Activation.License.HeartbeatSeconds), half of it is a good choice.
	Interval time.Duration
	// OnError is called (from the heartbeat's goroutine) with every failed heartbeat's error.
	OnError func(error)
}

// Heartbeats is a running StartHeartbeat: Stop ends it.
type Heartbeats struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	err    error
}

// Stop ends the heartbeats and waits for the one in flight, if any. Safe to call more than once.
func (h *Heartbeats) Stop() {
	h.cancel()
	<-h.done
}

// Done is closed once the heartbeats have ended: by Stop, by the context, or by a refusal (every
// refusal of a heartbeat is final: HEARTBEAT_DEAD, NOT_FOUND, REVOKED, EXPIRED, UNAUTHENTICATED).
func (h *Heartbeats) Done() <-chan struct{} { return h.done }

// Err is the refusal that ended the heartbeats, or nil (still running, stopped, or cancelled).
func (h *Heartbeats) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// StartHeartbeat sends a heartbeat at once and then every Interval, in a goroutine of its own,
// until Stop, until ctx is done, or until depot refuses in a way no later heartbeat can change (the
// machine died, was deactivated, or its license was revoked or expired: activate again). Failures
// that may pass (unreachable, unverifiable) go to OnError and the heartbeats go on.
func (c *Client) StartHeartbeat(ctx context.Context, key, machineID string, opts *HeartbeatOptions) *Heartbeats {
	interval := time.Minute
	var onError func(error)
	if opts != nil {
		interval = orDefault(opts.Interval, interval)
		onError = opts.OnError
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &Heartbeats{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		defer cancel()
		for {
			_, err := c.Heartbeat(ctx, key, machineID)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				if onError != nil {
					onError(err)
				}
				var refused *RefusedError
				if errors.As(err, &refused) {
					h.mu.Lock()
					h.err = err
					h.mu.Unlock()
					return
				}
			}
			if !c.sleep(ctx.Done(), interval) {
				return
			}
		}
	}()
	return h
}

type offlineRequest struct {
	V           int    `json:"v"`
	Key         string `json:"key"`
	Fingerprint string `json:"fingerprint"`
	Name        string `json:"name,omitempty"`
	Platform    string `json:"platform,omitempty"`
	Hostname    string `json:"hostname,omitempty"`
}

// OfflineActivationRequest is the activation request an air-gapped machine writes (docs/vendors.md,
// "Offline activation"): {"v":1,"key":…,"fingerprint":…,"name":…,"platform":…,"hostname":…}
// without the absent fields, UTF-8, in standard base64 without line breaks. The customer pastes it
// in the dashboard; the license file it gives back is checked with VerifyLicenseFile and this
// fingerprint. It needs no network, hence no context.
func OfflineActivationRequest(key, fingerprint string, details *MachineDetails) string {
	request := offlineRequest{V: 1, Key: key, Fingerprint: fingerprint}
	if details != nil {
		request.Name, request.Platform, request.Hostname = details.Name, details.Platform, details.Hostname
	}
	return base64.StdEncoding.EncodeToString(mustJSON(request))
}
