package depot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// verified is an answer whose signature, digest and age have been checked (checks 1–5).
type verified struct {
	status  int
	headers signedHeaders
	body    []byte
	created time.Time
	keyID   string
}

// refusalBody is what depot's refusals say: a code (machine refusals), a message, per-field errors
// (422) and, where the request sent one, the nonce.
type refusalBody struct {
	Code    string              `json:"code"`
	Message string              `json:"message"`
	Errors  map[string][]string `json:"errors"`
	Nonce   *string             `json:"nonce"`
	// FileExpiresAt: MACHINE_FILE_VALID's, when the license file that holds the seat expires.
	FileExpiresAt *time.Time `json:"fileExpiresAt"`
}

// call sends a request whose answer depot signs, and returns the answer once checks 1–5 pass and
// it is a 2xx; the caller decodes it and makes checks 6 and 7. A signed refusal is a *RefusedError
// (its nonce checked when it carries one), a 429 left after the retries too.
func (c *Client) call(ctx context.Context, req request, nonce string) (*verified, error) {
	got, err := c.send(ctx, req)
	if err != nil {
		return nil, err
	}
	v, err := c.verifyAnswer(ctx, got.status, got.header, got.body)
	if err != nil {
		return nil, err
	}
	if v.status < 200 || v.status > 299 {
		return nil, c.refusal(v, got.header, nonce)
	}
	return v, nil
}

// verifyAnswer makes checks 1–5 over an answer just received.
func (c *Client) verifyAnswer(ctx context.Context, status int, header http.Header, body []byte) (*verified, error) {
	h, err := signedHeadersOf(status, header)
	if err != nil {
		return nil, err
	}
	created, kid, err := c.verifySignature(ctx, status, h, body, c.maxSkew)
	if err != nil {
		return nil, err
	}
	return &verified{status: status, headers: h, body: body, created: created, keyID: kid}, nil
}

// refusal turns a verified non-2xx answer into a *RefusedError, or an *UnverifiableError when its
// body is not a JSON object or echoes another nonce.
func (c *Client) refusal(v *verified, header http.Header, nonce string) error {
	var body refusalBody
	if err := decodeObject(v.body, &body); err != nil {
		return unverifiable(v.status, "the refusal (HTTP %d) is not a JSON object: %v", v.status, err)
	}
	if body.Nonce != nil && *body.Nonce != nonce {
		return unverifiable(v.status, "the refusal (HTTP %d) echoes another nonce (a replayed answer?)", v.status)
	}
	refused := &RefusedError{Code: body.Code, Message: body.Message, Status: v.status, Errors: body.Errors}
	if body.FileExpiresAt != nil {
		refused.FileExpiresAt = body.FileExpiresAt.UTC()
	}
	if refused.Code == "" {
		refused.Code = codeOfStatus(v.status)
	}
	if after, ok := c.retryAfter(header); ok {
		refused.RetryAfter = after
	}
	return refused
}

// decodeObject decodes a JSON object (and nothing else) into target.
func decodeObject(body []byte, target any) error {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return fmt.Errorf("not a JSON object")
	}
	return json.Unmarshal(body, target)
}

// checkNonce is check 6 for a 2xx answer: it must echo the nonce the request sent.
func checkNonce(status int, echoed *string, sent string) error {
	if echoed == nil {
		return unverifiable(status, "the answer carries no nonce (a replayed or made-up answer?)")
	}
	if *echoed != sent {
		return unverifiable(status, "the answer echoes another nonce (a replayed answer?)")
	}
	return nil
}

func mustJSON(value any) []byte {
	var buffer bytes.Buffer
	encoder := json.NewEncoder(&buffer)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(value); err != nil {
		panic("depot: encoding a request: " + err.Error())
	}
	return bytes.TrimSuffix(buffer.Bytes(), []byte("\n"))
}
