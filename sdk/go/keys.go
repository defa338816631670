package depot

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// keySet holds depot's public keys by kid: the pinned ones, or (FetchJWKS without a pinned set,
// pinned nil) the ones fetched from the server.
type keySet struct {
	pinned map[string]ed25519.PublicKey
	url    string

	mu      sync.Mutex
	fetched map[string]ed25519.PublicKey
}

// parseJWKS reads the Ed25519 signing keys of a JWKS; anything else in it is skipped, since
// nothing else may vouch for an answer.
func parseJWKS(text []byte) (map[string]ed25519.PublicKey, error) {
	var set struct {
		Keys []struct {
			Kty string `json:"kty"`
			Crv string `json:"crv"`
			X   string `json:"x"`
			Kid string `json:"kid"`
			Alg string `json:"alg"`
			Use string `json:"use"`
		} `json:"keys"`
	}
	if err := json.Unmarshal(text, &set); err != nil {
		return nil, fmt.Errorf("not a JWKS: %w", err)
	}
	keys := map[string]ed25519.PublicKey{}
	for _, k := range set.Keys {
		if k.Kty != "OKP" || k.Crv != "Ed25519" || k.Kid == "" ||
			(k.Alg != "" && k.Alg != "EdDSA") || (k.Use != "" && k.Use != "sig") {
			continue
		}
		x, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(k.X, "="))
		if err != nil || len(x) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("the key %q has no valid Ed25519 x", k.Kid)
		}
		keys[k.Kid] = ed25519.PublicKey(x)
	}
	if len(keys) == 0 {
		return nil, errors.New("it has no Ed25519 signing key")
	}
	return keys, nil
}

// key returns the key kid names, or an unverifiable error. Pinned keys are never added to: an
// unknown kid is a key depot never shipped to the app, exactly what a fake server signs with.
func (c *Client) key(ctx context.Context, kid string) (ed25519.PublicKey, error) {
	s := c.keys
	if s.pinned != nil {
		if key, ok := s.pinned[kid]; ok {
			return key, nil
		}
		return nil, unverifiable(0, "the key %q is not pinned", kid)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if key, ok := s.fetched[kid]; ok {
		return key, nil
	}
	// Not fetched yet, or a key rotated in since: ask once more.
	keys, err := c.fetchJWKS(ctx)
	if err != nil {
		return nil, err
	}
	s.fetched = keys
	if key, ok := keys[kid]; ok {
		return key, nil
	}
	return nil, unverifiable(0, "no published key has keyid %q", kid)
}

// fetchJWKS asks the server for its key set (unsigned: it can only be trusted as far as the
// connection to the server is).
func (c *Client) fetchJWKS(ctx context.Context) (map[string]ed25519.PublicKey, error) {
	got, err := c.send(ctx, request{method: http.MethodGet, url: c.keys.url})
	if err != nil {
		return nil, err
	}
	if got.status != http.StatusOK {
		return nil, unverifiable(got.status, "GET %s answered %d", c.keys.url, got.status)
	}
	keys, err := parseJWKS(got.body)
	if err != nil {
		return nil, unverifiable(got.status, "the server's key set: %v", err)
	}
	return keys, nil
}

// readAll reads at most limit bytes of r, failing beyond.
func readAll(r io.Reader, limit int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(body)) > limit {
		return nil, fmt.Errorf("the answer is larger than %d bytes", limit)
	}
	return body, err
}
