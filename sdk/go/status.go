package depot

import (
	"context"
	"errors"
	"time"
)

// Where a Status came from.
const (
	// SourceOnline: depot answered now, verified.
	SourceOnline = "online"
	// SourceCache: the last verified answer, younger than OfflineGrace.
	SourceCache = "cache"
	// SourceLicenseFile: the license file last checked out, verified now.
	SourceLicenseFile = "licenseFile"
	// SourceNone: nothing to vouch for the key (Code UNREACHABLE or UNVERIFIABLE).
	SourceNone = "none"
)

// StatusOptions are Status's optional settings.
type StatusOptions struct {
	Fingerprint string
}

// Status is whether the app may run now, and on whose word.
type Status struct {
	Valid bool
	// Code is the validation's code, VALID for a license file, UNREACHABLE or UNVERIFIABLE for none.
	Code string
	// Source is SourceOnline, SourceCache, SourceLicenseFile or SourceNone.
	Source string
	// CheckedAt is when depot last said so: the signature's created (the file's iat for a license
	// file); for SourceNone the last answer's, if one is kept, else zero.
	CheckedAt time.Time
	// Validation is the answer (online or cached), LicenseFile the file's claims (licenseFile).
	Validation  *Validation
	LicenseFile *LicenseFile
	// Err is why depot's answer was not used, when the status did not come online.
	Err error
}

// Status validates the key and, when depot cannot be reached or its answer cannot be verified,
// answers from what is kept, newest first: the last verified validation of this key and fingerprint
// younger than OfflineGrace (SourceCache, its own Valid and Code), else the license file Checkout
// kept if it verifies now (SourceLicenseFile), else Valid false (SourceNone). Every verified answer
// of Validate and Checkout is kept (in StateDir when set, verified again when read back). A verified
// refusal of the validation (INVALID: an empty key) is depot's answer: online, not valid, with the
// refusal's code (and the refusal in Err). The error is always nil; it is there for what a later
// version may not be able to answer.
func (c *Client) Status(ctx context.Context, key string, opts *StatusOptions) (*Status, error) {
	var fingerprint string
	if opts != nil {
		fingerprint = opts.Fingerprint
	}
	validation, err := c.Validate(ctx, key, &ValidateOptions{Fingerprint: fingerprint})
	if err == nil {
		return &Status{Valid: validation.Valid, Code: validation.Code, Source: SourceOnline, CheckedAt: validation.SignedAt, Validation: validation}, nil
	}
	var refused *RefusedError
	if errors.As(err, &refused) {
		return &Status{Code: refused.Code, Source: SourceOnline, CheckedAt: c.now(), Err: err}, nil
	}
	status := &Status{Code: CodeUnreachable, Source: SourceNone, Err: err}
	if errors.Is(err, ErrUnverifiable) {
		status.Code = CodeUnverifiable
	}
	if kept, ok := c.state.answer(c.productID, key, fingerprint); ok {
		if created, kid, kerr := c.verifySignature(ctx, kept.Status, kept.Headers, kept.Body, c.grace); kerr == nil {
			v := &verified{status: kept.Status, headers: kept.Headers, body: kept.Body, created: created, keyID: kid}
			cached, cerr := c.checkValidation(v, kept.Nonce, key, fingerprint)
			if cerr == nil {
				return &Status{Valid: cached.Valid, Code: cached.Code, Source: SourceCache, CheckedAt: cached.SignedAt, Validation: cached, Err: err}, nil
			}
		} else if created, ok := signedAt(kept.Headers); ok {
			status.CheckedAt = created
		}
	}
	if text, ok := c.state.licenseFile(c.productID, key, fingerprint); ok {
		file, ferr := c.VerifyLicenseFile(ctx, text, &LicenseFileOptions{Key: key, Fingerprint: fingerprint})
		if ferr == nil {
			return &Status{Valid: true, Code: CodeValid, Source: SourceLicenseFile, CheckedAt: file.IssuedAt, LicenseFile: file, Err: err}, nil
		}
	}
	return status, nil
}

// signedAt is the created time a kept answer's Signature-Input names (for CheckedAt only).
func signedAt(h signedHeaders) (time.Time, bool) {
	params, err := parseSignatureInput(0, h.SignatureInput)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(params.created, 0), true
}
