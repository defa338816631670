package depot

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	mathrand "math/rand"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxAnswerBytes bounds a JSON answer: nothing depot says to an app comes near it.
const maxAnswerBytes = 8 << 20

type request struct {
	method string
	url    string
	// body is JSON, or nil.
	body   []byte
	header map[string]string
}

// answer is what came back, the body as its exact bytes (the digest is checked over them).
type answer struct {
	status int
	header http.Header
	body   []byte
}

// send makes the request, with the retries the configuration allows: after a connection failure,
// a timeout, 502, 503 or 504, or a 429 whose Retry-After is within MaxRetryWait. A 5xx left after
// them is an *UnreachableError; any other answer (a last 429 too) is returned as it came.
func (c *Client) send(ctx context.Context, req request) (*answer, error) {
	var last error
	lastStatus := 0
	for attempt := 0; ; attempt++ {
		got, err := c.attempt(ctx, req)
		if ctx.Err() != nil {
			return nil, &UnreachableError{Reason: "the call was cancelled: " + ctx.Err().Error(), Err: ctx.Err()}
		}
		var wait time.Duration
		switch {
		case err != nil:
			last, lastStatus = err, 0
			wait = c.backoff(attempt)
		case got.status == http.StatusBadGateway || got.status == http.StatusServiceUnavailable ||
			got.status == http.StatusGatewayTimeout:
			last, lastStatus = fmt.Errorf("HTTP %d", got.status), got.status
			wait = c.backoff(attempt)
			if after, ok := c.retryAfter(got.header); ok {
				wait = after
			}
		case got.status == http.StatusTooManyRequests:
			after, ok := c.retryAfter(got.header)
			if !ok || after > c.maxRetryWait || attempt >= c.retries {
				return got, nil
			}
			wait = after
		case got.status >= 500:
			return nil, &UnreachableError{Reason: fmt.Sprintf("%s answered HTTP %d", c.server, got.status), Status: got.status}
		default:
			return got, nil
		}
		if attempt >= c.retries || wait > c.maxRetryWait {
			reason := last.Error()
			if attempt > 0 {
				reason += fmt.Sprintf(" (after %d attempts)", attempt+1)
			}
			return nil, &UnreachableError{Reason: reason, Status: lastStatus, Err: last}
		}
		if !c.sleep(ctx.Done(), wait) {
			return nil, &UnreachableError{Reason: "the call was cancelled: " + ctx.Err().Error(), Err: ctx.Err()}
		}
	}
}

// attempt is one request, connect to last byte within Timeout.
func (c *Client) attempt(ctx context.Context, req request) (*answer, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var body io.Reader
	if req.body != nil {
		body = bytes.NewReader(req.body)
	}
	r, err := http.NewRequestWithContext(ctx, req.method, req.url, body)
	if err != nil {
		return nil, err
	}
	r.Header.Set("User-Agent", c.userAgent)
	r.Header.Set("Accept", "application/json")
	if req.body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	for name, value := range req.header {
		r.Header.Set(name, value)
	}
	response, err := c.api.Do(r)
	if err != nil {
		return nil, c.describe(ctx, err)
	}
	defer response.Body.Close()
	got, err := readAll(response.Body, maxAnswerBytes)
	if err != nil {
		return nil, c.describe(ctx, err)
	}
	return &answer{status: response.StatusCode, header: response.Header, body: got}, nil
}

// describe names a timeout as one (the client's error says only "context deadline exceeded").
func (c *Client) describe(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %s: %w", c.timeout, err)
	}
	return err
}

// backoff is 0.25 s × 2ⁿ with ±20 % jitter.
func (c *Client) backoff(attempt int) time.Duration {
	base := float64(250*time.Millisecond) * float64(int64(1)<<uint(attempt))
	return time.Duration(base * (0.8 + 0.4*mathrand.Float64()))
}

// retryAfter reads Retry-After, in seconds or as an HTTP date.
func (c *Client) retryAfter(header http.Header) (time.Duration, bool) {
	value := strings.TrimSpace(header.Get("Retry-After"))
	if value == "" {
		return 0, false
	}
	if seconds, err := strconv.ParseInt(value, 10, 64); err == nil && seconds >= 0 {
		if seconds > int64(365*24*time.Hour/time.Second) {
			seconds = int64(365 * 24 * time.Hour / time.Second)
		}
		return time.Duration(seconds) * time.Second, true
	}
	if at, err := http.ParseTime(value); err == nil {
		if wait := at.Sub(c.now()); wait > 0 {
			return wait, true
		}
		return 0, true
	}
	return 0, false
}

func sleepOrDone(done <-chan struct{}, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-done:
		return false
	}
}

// newNonce is 16 random bytes, base64url: nobody can predict it, so no answer can be made ahead.
func newNonce() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("depot: no randomness for a nonce: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}
