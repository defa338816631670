package depot

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
)

const (
	licenseFileBegin = "-----BEGIN DEPOT LICENSE FILE-----"
	licenseFileEnd   = "-----END DEPOT LICENSE FILE-----"
	licenseFileType  = "depot-license+jwt"
)

// LicenseFileOptions are what VerifyLicenseFile checks beyond the signature, issuer and product.
type LicenseFileOptions struct {
	// Key, when given, must be the file's key (compared trimmed and upper-cased).
	Key string
	// Fingerprint, when given, must be the file's fingerprint claim (a file without one is refused).
	Fingerprint string
	// Now is the time to check the file at; zero: the client's clock.
	Now time.Time
	// Grace is how long after its exp the file is still accepted. Default 0.
	Grace time.Duration
}

// LicenseFile is the verified claims of a license file.
type LicenseFile struct {
	// Issuer is the depot that issued it (its APP_URL).
	Issuer string
	// LicenseID is the license's id (the sub claim).
	LicenseID string
	IssuedAt  time.Time
	NotBefore *time.Time
	// ExpiresAt is the file's exp: the earlier of the license's expiry, the checkout's ttl and a
	// floating machine's lease.
	ExpiresAt time.Time
	Key       string
	ProductID string
	UserID    string
	CreatorID string
	MaxIPs    *int // nil: no address limit
	// LicenseExpires is the license's own expiry, nil for never.
	LicenseExpires *time.Time
	// Fingerprint and MachineID are set for a file bound to a machine.
	Fingerprint string
	MachineID   string
	// KeyID names the key that signed it.
	KeyID string
	// Claims are every claim as the file has them (numbers as json.Number).
	Claims map[string]any
}

// VerifyLicenseFile checks a license file offline (the armoured JWS Checkout returns and the
// dashboard's offline activation hands out): alg EdDSA, typ depot-license+jwt, a pinned kid and its
// signature; iss the client's server (the message names both when it differs); nbf and iat not in
// the future beyond MaxClockSkew; exp + Grace after now; product_id the client's product; key and
// fingerprint those given. Any failure is an *UnverifiableError; one past exp also matches
// ErrExpired. It makes a request only with FetchJWKS and no key set yet, hence the context.
func (c *Client) VerifyLicenseFile(ctx context.Context, text string, opts *LicenseFileOptions) (*LicenseFile, error) {
	var o LicenseFileOptions
	if opts != nil {
		o = *opts
	}
	if o.Now.IsZero() {
		o.Now = c.now()
	}
	token, err := armoured(text)
	if err != nil {
		return nil, err
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, unverifiable(0, "the license file is not a compact JWS")
	}
	var header struct {
		Alg string `json:"alg"`
		Typ string `json:"typ"`
		Kid string `json:"kid"`
	}
	if err := decodeSegment(parts[0], &header, false); err != nil {
		return nil, unverifiable(0, "the license file's header: %v", err)
	}
	if header.Alg != "EdDSA" {
		return nil, unverifiable(0, "the license file's alg is %q, expected EdDSA", header.Alg)
	}
	if header.Typ != licenseFileType {
		return nil, unverifiable(0, "the license file's typ is %q, expected %q", header.Typ, licenseFileType)
	}
	key, err := c.key(ctx, header.Kid)
	if err != nil {
		return nil, err
	}
	signature, err := base64.RawURLEncoding.Strict().DecodeString(parts[2])
	if err != nil || len(signature) != ed25519.SignatureSize {
		return nil, unverifiable(0, "the license file's signature is not an Ed25519 signature")
	}
	if !ed25519.Verify(key, []byte(parts[0]+"."+parts[1]), signature) {
		return nil, unverifiable(0, "the license file's signature does not verify with the key %q", header.Kid)
	}
	var claims map[string]any
	if err := decodeSegment(parts[1], &claims, true); err != nil {
		return nil, unverifiable(0, "the license file's claims: %v", err)
	}
	file, err := licenseFileOf(claims)
	if err != nil {
		return nil, err
	}
	file.KeyID = header.Kid
	if err := c.checkLicenseFile(file, o); err != nil {
		return nil, err
	}
	return file, nil
}

// checkLicenseFile checks the claims of a file whose signature is verified.
func (c *Client) checkLicenseFile(file *LicenseFile, o LicenseFileOptions) error {
	if file.Issuer != c.server {
		return unverifiable(0, "the file was issued by %q, expected %q (the issuer is the depot's APP_URL)", file.Issuer, c.server)
	}
	if file.NotBefore != nil && file.NotBefore.Sub(o.Now) > c.maxSkew {
		return unverifiable(0, "the license file is not valid before %s", file.NotBefore.UTC().Format(time.RFC3339))
	}
	if file.IssuedAt.Sub(o.Now) > c.maxSkew {
		return unverifiable(0, "the license file was issued in the future (%s)", file.IssuedAt.UTC().Format(time.RFC3339))
	}
	if !file.ExpiresAt.Add(o.Grace).After(o.Now) {
		return &UnverifiableError{Reason: fmt.Sprintf("the license file expired at %s", file.ExpiresAt.UTC().Format(time.RFC3339)), Err: ErrExpired}
	}
	if file.ProductID != c.productID {
		return unverifiable(0, "the license file is for another product (%q)", file.ProductID)
	}
	if o.Key != "" && !sameKey(file.Key, o.Key) {
		return unverifiable(0, "the license file is for another license key")
	}
	if o.Fingerprint != "" && file.Fingerprint != o.Fingerprint {
		if file.Fingerprint == "" {
			return unverifiable(0, "the license file is not bound to a machine")
		}
		return unverifiable(0, "the license file is bound to another machine")
	}
	return nil
}

// armoured is the JWS between the armour lines, whitespace removed.
func armoured(text string) (string, error) {
	begin := strings.Index(text, licenseFileBegin)
	if begin < 0 {
		return "", unverifiable(0, "no %s block", licenseFileBegin)
	}
	inside := text[begin+len(licenseFileBegin):]
	end := strings.Index(inside, licenseFileEnd)
	if end < 0 {
		return "", unverifiable(0, "the license file has no %s line", licenseFileEnd)
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, inside[:end]), nil
}

func decodeSegment(segment string, target any, numbers bool) error {
	raw, err := base64.RawURLEncoding.Strict().DecodeString(segment)
	if err != nil {
		return fmt.Errorf("not base64url: %v", err)
	}
	if err := decodeObject(raw, new(map[string]json.RawMessage)); err != nil {
		return err
	}
	decoder := json.NewDecoder(bytes.NewReader(raw))
	if numbers {
		decoder.UseNumber()
	}
	return decoder.Decode(target)
}

// licenseFileOf reads the claims depot writes; iat, exp, key and product_id are required.
func licenseFileOf(claims map[string]any) (*LicenseFile, error) {
	file := &LicenseFile{Claims: claims}
	text := func(name string) string {
		switch value := claims[name].(type) {
		case string:
			return value
		case json.Number:
			return value.String()
		}
		return ""
	}
	seconds := func(name string) (time.Time, bool) {
		number, ok := claims[name].(json.Number)
		if !ok {
			return time.Time{}, false
		}
		value, err := number.Float64()
		if err != nil || math.IsNaN(value) || math.Abs(value) > 1<<40 {
			return time.Time{}, false
		}
		return time.Unix(int64(value), 0), true
	}
	var ok bool
	if file.IssuedAt, ok = seconds("iat"); !ok {
		return nil, unverifiable(0, "the license file has no iat")
	}
	if file.ExpiresAt, ok = seconds("exp"); !ok {
		return nil, unverifiable(0, "the license file has no exp")
	}
	if nbf, ok := seconds("nbf"); ok {
		file.NotBefore = &nbf
	} else if _, present := claims["nbf"]; present {
		return nil, unverifiable(0, "the license file's nbf is not a time")
	}
	file.Issuer, file.LicenseID, file.Key = text("iss"), text("sub"), text("key")
	file.ProductID, file.UserID, file.CreatorID = text("product_id"), text("user_id"), text("creator_id")
	file.Fingerprint, file.MachineID = text("fingerprint"), text("machine_id")
	if file.Key == "" || file.ProductID == "" {
		return nil, unverifiable(0, "the license file has no key or product_id")
	}
	if number, ok := claims["max_ips"].(json.Number); ok {
		if value, err := number.Int64(); err == nil {
			maxIPs := int(value)
			file.MaxIPs = &maxIPs
		}
	}
	if expires, ok := claims["expires"].(string); ok {
		if at, err := time.Parse(time.RFC3339Nano, expires); err == nil {
			file.LicenseExpires = &at
		}
	}
	return file, nil
}
