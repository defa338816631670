package depot

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Version is this library's version; APIVersion the depot HTTP API it speaks.
const (
	Version    = "0.1.0"
	APIVersion = "depot 0.1 (/api/v1)"
)

// NoRetries, as Config.Retries, makes one attempt only (0 means the default, 2).
const NoRetries = -1

// Config binds a Client to one depot server and one product. Server, ProductID and a pinned key set
// (JWKS or JWKSFile) are required; every other field has a default when left zero.
type Config struct {
	// Server is depot's base URL, e.g. "https://licenses.example.com" (a trailing slash is ignored).
	Server string
	// ProductID is the product the app is (a string of digits).
	ProductID string
	// JWKS is the pinned key set: the JSON text of the server's /.well-known/jwks.json, shipped
	// with the app (go:embed it). Only these keys are trusted.
	JWKS []byte
	// JWKSFile is a path to read the pinned key set from, when JWKS is empty.
	JWKSFile string
	// FetchJWKS also fetches the key set from the server, at first use and again on an unknown
	// keyid. Weaker: a fake server publishes its own keys. With a pinned set
	// as well, only pinned keys are trusted and fetching adds nothing; it is for development.
	FetchJWKS bool

	// Timeout is per attempt, connect to last byte (downloads: between bytes). Default 10 s.
	Timeout time.Duration
	// Retries is the number of extra attempts after a connection failure, a timeout, 502, 503 or
	// 504, or a 429 whose Retry-After is within MaxRetryWait. 0: the default, 2; NoRetries: none.
	Retries int
	// MaxRetryWait is the longest wait a retry may take (backoff 0.25 s × 2ⁿ ± 20 %, or the
	// server's Retry-After). Default 30 s.
	MaxRetryWait time.Duration
	// MaxClockSkew is how far a signature's created may be from the clock. Default 300 s.
	MaxClockSkew time.Duration
	// OfflineGrace is how long Status trusts the last verified answer when depot cannot be reached.
	// Default 7 days.
	OfflineGrace time.Duration
	// StateDir is where Status keeps the last verified answer and license file, so that the grace
	// survives a restart (created 0700 if missing). Empty: memory only.
	StateDir string
	// UserAgent is sent on every request. Default "depot-client-go/0.1.0".
	UserAgent string
	// Clock is what "now" is (for tests). Default time.Now.
	Clock func() time.Time
	// HTTPClient sends the requests (a proxy, TLS settings). Default: a client of its own with
	// http.DefaultTransport's settings. Its Timeout should be 0: Timeout above applies per attempt.
	HTTPClient *http.Client
}

// Client talks to one depot server for one product. It is safe for concurrent use.
type Client struct {
	server       string
	productID    string
	keys         *keySet
	timeout      time.Duration
	retries      int
	maxRetryWait time.Duration
	maxSkew      time.Duration
	grace        time.Duration
	userAgent    string
	now          func() time.Time
	// http fetches downloads (following redirects, the key kept home); api asks depot (never redirected).
	http  *http.Client
	api   *http.Client
	state *stateStore
	// sleep waits between attempts; tests replace it.
	sleep func(done <-chan struct{}, d time.Duration) bool
}

// New checks the configuration and reads the pinned key set. It makes no request.
func New(config Config) (*Client, error) {
	server := strings.TrimRight(strings.TrimSpace(config.Server), "/")
	parsed, err := url.Parse(server)
	if server == "" || err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return nil, fmt.Errorf("depot: Server must be an http(s) URL, got %q", config.Server)
	}
	if !isDigits(config.ProductID) {
		return nil, fmt.Errorf("depot: ProductID must be a string of digits, got %q", config.ProductID)
	}
	pinned := config.JWKS
	if len(pinned) == 0 && config.JWKSFile != "" {
		if pinned, err = os.ReadFile(config.JWKSFile); err != nil {
			return nil, fmt.Errorf("depot: reading JWKSFile: %w", err)
		}
	}
	if len(pinned) == 0 && !config.FetchJWKS {
		return nil, errors.New("depot: a pinned key set is required (JWKS or JWKSFile), or FetchJWKS")
	}
	keys := &keySet{url: server + "/.well-known/jwks.json"}
	if len(pinned) > 0 {
		if keys.pinned, err = parseJWKS(pinned); err != nil {
			return nil, fmt.Errorf("depot: the pinned key set: %w", err)
		}
	}
	c := &Client{
		server:       server,
		productID:    config.ProductID,
		keys:         keys,
		timeout:      orDefault(config.Timeout, 10*time.Second),
		retries:      config.Retries,
		maxRetryWait: orDefault(config.MaxRetryWait, 30*time.Second),
		maxSkew:      orDefault(config.MaxClockSkew, 300*time.Second),
		grace:        orDefault(config.OfflineGrace, 7*24*time.Hour),
		userAgent:    config.UserAgent,
		now:          config.Clock,
		http:         config.HTTPClient,
		sleep:        sleepOrDone,
	}
	switch {
	case c.retries == 0:
		c.retries = 2
	case c.retries < 0:
		c.retries = 0
	}
	if c.userAgent == "" {
		c.userAgent = "depot-client-go/" + Version
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.http == nil {
		c.http = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	c.api = notRedirected(c.http)
	c.http = keepingKeyHome(c.http)
	if c.state, err = newStateStore(config.StateDir); err != nil {
		return nil, err
	}
	return c, nil
}

// Server is the base URL the client talks to, without a trailing slash.
func (c *Client) Server() string { return c.server }

// ProductID is the product the client is bound to.
func (c *Client) ProductID() string { return c.productID }

// notRedirected is a copy of client that hands back a redirect as it came: depot's API does not
// redirect, so one is not depot's answer (unverifiable: it is unsigned), and following it would send
// the request, license key and all, wherever it points.
func notRedirected(client *http.Client) *http.Client {
	copied := *client
	copied.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &copied
}

// keepingKeyHome is a copy of client that drops the license key from a request redirected to another
// host (a download's file in a bucket): the key is for depot only. net/http already drops
// Authorization there; X-License-Key is a header of depot's own, which it would forward.
func keepingKeyHome(client *http.Client) *http.Client {
	copied := *client
	next := client.CheckRedirect
	copied.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Host != via[0].URL.Host {
			req.Header.Del("X-License-Key")
			req.Header.Del("Authorization")
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &copied
}

func orDefault(value, fallback time.Duration) time.Duration {
	if value <= 0 {
		return fallback
	}
	return value
}

func isDigits(text string) bool {
	if text == "" {
		return false
	}
	for _, r := range text {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// sameKey compares license keys as depot normalises them: trimmed, upper case.
func sameKey(a, b string) bool {
	return strings.ToUpper(strings.TrimSpace(a)) == strings.ToUpper(strings.TrimSpace(b))
}
