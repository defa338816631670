package depot

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// ValidateOptions are Validate's optional settings.
type ValidateOptions struct {
	// Fingerprint is this machine's (see MachineFingerprint), for a license bound to machines.
	Fingerprint string
}

// CheckoutOptions are Checkout's optional settings.
type CheckoutOptions struct {
	// Fingerprint binds the license file to this machine (it must be activated).
	Fingerprint string
	// TTL is the file's lifetime, 1 hour to 1 year (whole seconds); 0: depot's default, 30 days.
	TTL time.Duration
}

type validateBody struct {
	Key         string `json:"key"`
	ProductID   string `json:"productId"`
	Nonce       string `json:"nonce"`
	Fingerprint string `json:"fingerprint,omitempty"`
	TTL         int64  `json:"ttl,omitempty"`
}

// Validate asks depot about a license key (POST /api/v1/licenses/validate) and returns its answer
// once it is verified (sdk/README.md's checks, in order). Not valid is a result: check
// Validation.Valid and Code. Errors: *UnverifiableError, *UnreachableError, and *RefusedError
// (INVALID) for a request depot cannot read (an empty key).
func (c *Client) Validate(ctx context.Context, key string, opts *ValidateOptions) (*Validation, error) {
	var fingerprint string
	if opts != nil {
		fingerprint = opts.Fingerprint
	}
	validation, _, err := c.validate(ctx, "/api/v1/licenses/validate", key, fingerprint, 0)
	return validation, err
}

// Checkout validates like Validate (POST /api/v1/licenses/checkout) and, when the key is valid,
// returns depot's signed license file with it (Validation.LicenseFile), for VerifyLicenseFile to
// check offline. The client keeps the file for Status.
func (c *Client) Checkout(ctx context.Context, key string, opts *CheckoutOptions) (*Validation, error) {
	var fingerprint string
	var ttl time.Duration
	if opts != nil {
		fingerprint, ttl = opts.Fingerprint, opts.TTL
	}
	validation, _, err := c.validate(ctx, "/api/v1/licenses/checkout", key, fingerprint, ttl)
	if err == nil && validation.LicenseFile != "" {
		c.state.keepLicenseFile(c.productID, key, fingerprint, validation.LicenseFile)
	}
	return validation, err
}

func (c *Client) validate(ctx context.Context, path, key, fingerprint string, ttl time.Duration) (*Validation, *verified, error) {
	nonce := newNonce()
	body := validateBody{Key: key, ProductID: c.productID, Nonce: nonce, Fingerprint: fingerprint, TTL: int64(ttl / time.Second)}
	v, err := c.call(ctx, request{method: http.MethodPost, url: c.server + path, body: mustJSON(body)}, nonce)
	if err != nil {
		return nil, nil, err
	}
	validation, err := c.checkValidation(v, nonce, key, fingerprint)
	if err != nil {
		return nil, nil, err
	}
	c.state.keepAnswer(c.productID, key, fingerprint, keptAnswer{
		Status: v.status, Headers: v.headers, Body: v.body, Nonce: nonce,
	})
	return validation, v, nil
}

// checkValidation makes checks 6 and 7 over a validation whose signature is verified: a JSON
// object, the nonce sent, and about the key, product and machine asked about.
func (c *Client) checkValidation(v *verified, nonce, key, fingerprint string) (*Validation, error) {
	var body struct {
		Validation
		Nonce *string `json:"nonce"`
	}
	if err := decodeObject(v.body, &body); err != nil {
		return nil, unverifiable(v.status, "the answer is not a validation: %v", err)
	}
	if err := checkNonce(v.status, body.Nonce, nonce); err != nil {
		return nil, err
	}
	validation := &body.Validation
	if validation.Code == "" {
		return nil, unverifiable(v.status, "the answer has no code")
	}
	if validation.Valid && (validation.Code != CodeValid || validation.License == nil) {
		return nil, unverifiable(v.status, "the answer says valid with the code %q and no license", validation.Code)
	}
	if license := validation.License; license != nil {
		// The request is not signed: someone in the middle could swap in their own key or product
		// and get depot to sign a genuine answer about that. So the answer must name ours.
		if !sameKey(license.Key, key) {
			return nil, unverifiable(v.status, "the answer is about another license key")
		}
		// REVOKED and EXPIRED come before depot compares products (any product's license);
		// PRODUCT_MISMATCH names another product by definition; every other answer names ours.
		mismatch := validation.Code == CodeProductMismatch
		beforeProduct := validation.Code == CodeRevoked || validation.Code == CodeExpired
		if !beforeProduct && (license.ProductID == c.productID) == mismatch {
			if mismatch {
				return nil, unverifiable(v.status, "the answer says PRODUCT_MISMATCH about this product")
			}
			return nil, unverifiable(v.status, "the answer is about another product (%q)", license.ProductID)
		}
		// depot names the machine (or null) whenever a fingerprint came: without it, the request
		// lost its fingerprint on the way.
		if fingerprint != "" && !namesMachine(v.body) {
			return nil, unverifiable(v.status, "the answer names no machine for the fingerprint sent")
		}
	}
	if fingerprint != "" && validation.Machine != nil && validation.Machine.Fingerprint != fingerprint {
		return nil, unverifiable(v.status, "the answer is about another machine")
	}
	validation.SignedAt, validation.KeyID = v.created, v.keyID
	return validation, nil
}

// namesMachine tells an answer whose machine is null (named: not activated) from one without it.
func namesMachine(body []byte) bool {
	var named struct {
		Machine json.RawMessage `json:"machine"`
	}
	return json.Unmarshal(body, &named) == nil && len(named.Machine) > 0
}
