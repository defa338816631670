package depot

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The one signature depot makes (docs/integrators.md): its label and covered components.
const (
	signatureLabel      = "depot"
	coveredComponents   = `("@status" "content-type" "content-digest")`
	signatureAlgorithm  = "ed25519"
	maxSignatureCreated = 1 << 40
)

// signedHeaders are the headers of an answer that the signature covers or carries, as received.
type signedHeaders struct {
	ContentType    string `json:"contentType"`
	ContentDigest  string `json:"contentDigest"`
	SignatureInput string `json:"signatureInput"`
	Signature      string `json:"signature"`
}

// signedHeadersOf takes each header once; an answer without them is unsigned, and one that repeats
// them could be read one way here and another way elsewhere.
func signedHeadersOf(status int, header http.Header) (signedHeaders, error) {
	one := func(name string) (string, error) {
		values := header.Values(name)
		switch len(values) {
		case 0:
			return "", unverifiable(status, "the answer has no %s header (unsigned)", name)
		case 1:
			return values[0], nil
		default:
			return "", unverifiable(status, "the answer has %d %s headers", len(values), name)
		}
	}
	var h signedHeaders
	var err error
	if h.Signature, err = one("Signature"); err != nil {
		return h, err
	}
	if h.SignatureInput, err = one("Signature-Input"); err != nil {
		return h, err
	}
	if h.ContentDigest, err = one("Content-Digest"); err != nil {
		return h, err
	}
	h.ContentType, err = one("Content-Type")
	return h, err
}

// signatureParams is what Signature-Input says of the depot signature.
type signatureParams struct {
	// text is the value after "depot=", exactly as sent: the signature base's last line.
	text    string
	created int64
	keyID   string
}

// parseSignatureInput accepts exactly depot's form: the label depot, the three components in
// order, and created, keyid and alg="ed25519" once each (in any order). Anything else would need
// another signature base, and checking a guessed base proves nothing.
func parseSignatureInput(status int, value string) (signatureParams, error) {
	var p signatureParams
	if !strings.HasPrefix(value, signatureLabel+"=") {
		return p, unverifiable(status, "Signature-Input is not one %q signature: %q", signatureLabel, value)
	}
	p.text = value[len(signatureLabel)+1:]
	if !strings.HasPrefix(p.text, coveredComponents) {
		return p, unverifiable(status, "Signature-Input covers other components than %s: %q", coveredComponents, value)
	}
	rest := p.text[len(coveredComponents):]
	seen := map[string]bool{}
	for rest != "" {
		if rest[0] != ';' {
			return p, unverifiable(status, "Signature-Input has unexpected text: %q", value)
		}
		rest = rest[1:]
		eq := strings.IndexByte(rest, '=')
		if eq <= 0 {
			return p, unverifiable(status, "Signature-Input has a parameter without a value: %q", value)
		}
		name := rest[:eq]
		rest = rest[eq+1:]
		if seen[name] {
			return p, unverifiable(status, "Signature-Input repeats ;%s", name)
		}
		seen[name] = true
		var raw string
		quoted := strings.HasPrefix(rest, `"`)
		if quoted {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return p, unverifiable(status, "Signature-Input has an unterminated string: %q", value)
			}
			raw, rest = rest[1:end+1], rest[end+2:]
			if strings.ContainsRune(raw, '\\') {
				return p, unverifiable(status, "Signature-Input has an escaped string: %q", value)
			}
		} else {
			end := strings.IndexByte(rest, ';')
			if end < 0 {
				end = len(rest)
			}
			raw, rest = rest[:end], rest[end:]
		}
		switch {
		case name == "created" && !quoted:
			created, err := strconv.ParseInt(raw, 10, 64)
			if err != nil || !isDigits(raw) || created > maxSignatureCreated {
				return p, unverifiable(status, "Signature-Input's created is not a time: %q", raw)
			}
			p.created = created
		case name == "keyid" && quoted:
			p.keyID = raw
		case name == "alg" && quoted:
			if raw != signatureAlgorithm {
				return p, unverifiable(status, "the signature's alg is %q, expected %q", raw, signatureAlgorithm)
			}
		default:
			return p, unverifiable(status, "Signature-Input has an unexpected parameter: ;%s=%s", name, raw)
		}
	}
	for _, name := range []string{"created", "keyid", "alg"} {
		if !seen[name] {
			return p, unverifiable(status, "Signature-Input has no ;%s", name)
		}
	}
	if p.keyID == "" {
		return p, unverifiable(status, "Signature-Input's keyid is empty")
	}
	return p, nil
}

// byteSequence reads `prefix:base64:` (a structured-field byte sequence under one name).
func byteSequence(value, prefix string) ([]byte, bool) {
	if !strings.HasPrefix(value, prefix+":") || !strings.HasSuffix(value, ":") || len(value) < len(prefix)+2 {
		return nil, false
	}
	decoded, err := base64.StdEncoding.Strict().DecodeString(value[len(prefix)+1 : len(value)-1])
	return decoded, err == nil
}

// verifySignature makes checks 1 to 5 of sdk/README.md over an answer: the digest of the exact
// body bytes, the form of Signature-Input, a trusted key, the Ed25519 signature over the signature
// base, and created within maxAge in the past (and MaxClockSkew in the future). It returns created.
func (c *Client) verifySignature(ctx context.Context, status int, h signedHeaders, body []byte, maxAge time.Duration) (time.Time, string, error) {
	digest, ok := byteSequence(h.ContentDigest, "sha-256=")
	if !ok || len(digest) != sha256.Size {
		return time.Time{}, "", unverifiable(status, "Content-Digest is not one sha-256 digest: %q", h.ContentDigest)
	}
	actual := sha256.Sum256(body)
	if subtle.ConstantTimeCompare(digest, actual[:]) != 1 {
		return time.Time{}, "", unverifiable(status, "the body does not match its Content-Digest")
	}
	params, err := parseSignatureInput(status, h.SignatureInput)
	if err != nil {
		return time.Time{}, "", err
	}
	key, err := c.key(ctx, params.keyID)
	if err != nil {
		if u, ok := err.(*UnverifiableError); ok && u.Status == 0 {
			u.Status = status
		}
		return time.Time{}, "", err
	}
	signature, ok := byteSequence(h.Signature, signatureLabel+"=")
	if !ok || len(signature) != ed25519.SignatureSize {
		return time.Time{}, "", unverifiable(status, "Signature is not one %q Ed25519 signature: %q", signatureLabel, h.Signature)
	}
	base := make([]byte, 0, 256)
	base = append(base, `"@status": `...)
	base = strconv.AppendInt(base, int64(status), 10)
	base = append(base, "\n\"content-type\": "...)
	base = append(base, h.ContentType...)
	base = append(base, "\n\"content-digest\": "...)
	base = append(base, h.ContentDigest...)
	base = append(base, "\n\"@signature-params\": "...)
	base = append(base, params.text...)
	if !ed25519.Verify(key, base, signature) {
		return time.Time{}, "", unverifiable(status, "the signature does not verify with the key %q", params.keyID)
	}
	created := time.Unix(params.created, 0)
	now := c.now()
	if age := now.Sub(created); age > maxAge || -age > c.maxSkew {
		return time.Time{}, "", unverifiable(status, "the signature was created %s (at %s), more than %s from now",
			durationText(age), created.UTC().Format(time.RFC3339), maxAge)
	}
	return created, params.keyID, nil
}

func durationText(age time.Duration) string {
	if age < 0 {
		return (-age).Round(time.Second).String() + " in the future"
	}
	return age.Round(time.Second).String() + " ago"
}
