package depot

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// nonceOf is the nonce a request sent (the body's, or the query's).
func nonceOf(r *http.Request, body map[string]any) string {
	if nonce, ok := body["nonce"].(string); ok {
		return nonce
	}
	return r.URL.Query().Get("nonce")
}

// answering replies to every request with a VALID answer about key and product, signed as how says.
func answering(f *fakeDepot, key, product string, how signature) {
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		f.reply(w, 200, validAnswer(key, product, nonceOf(r, body)), how)
	})
}

func mustUnverifiable(t *testing.T, err error, reason string) *UnverifiableError {
	t.Helper()
	var u *UnverifiableError
	if !errors.As(err, &u) {
		t.Fatalf("want an *UnverifiableError (%s), got %T %v", reason, err, err)
	}
	if !errors.Is(err, ErrUnverifiable) || errors.Is(err, ErrUnreachable) {
		t.Fatalf("errors.Is does not say unverifiable: %v", err)
	}
	if !strings.Contains(u.Reason, reason) {
		t.Fatalf("want a reason with %q, got %q", reason, u.Reason)
	}
	return u
}

func mustUnreachable(t *testing.T, err error) *UnreachableError {
	t.Helper()
	var u *UnreachableError
	if !errors.As(err, &u) {
		t.Fatalf("want an *UnreachableError, got %T %v", err, err)
	}
	if !errors.Is(err, ErrUnreachable) || errors.Is(err, ErrUnverifiable) {
		t.Fatalf("errors.Is does not say unreachable: %v", err)
	}
	return u
}

func TestValidateReturnsTheVerifiedAnswer(t *testing.T) {
	f := newFake(t)
	answering(f, testKey, testProduct, signature{})
	c, _ := f.client(t)

	validation, err := c.Validate(context.Background(), " "+strings.ToLower(testKey)+" ", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !validation.Valid || validation.Code != CodeValid || validation.License.Key != testKey ||
		validation.License.ProductID != testProduct || validation.IPs.Count != 1 || *validation.IPs.Max != 100 {
		t.Fatalf("unexpected validation %+v", validation)
	}
	if validation.KeyID != testKid || time.Since(validation.SignedAt) > time.Minute {
		t.Fatalf("SignedAt %v, KeyID %q", validation.SignedAt, validation.KeyID)
	}
	r, body := f.lastRequest()
	if r.Method != http.MethodPost || r.URL.Path != "/api/v1/licenses/validate" ||
		r.Header.Get("Content-Type") != "application/json" || r.Header.Get("User-Agent") != "depot-client-go/"+Version {
		t.Fatalf("request %s %s, headers %v", r.Method, r.URL.Path, r.Header)
	}
	if body["productId"] != testProduct || body["key"] != " "+strings.ToLower(testKey)+" " {
		t.Fatalf("request body %v", body)
	}
	if _, present := body["fingerprint"]; present {
		t.Fatalf("a fingerprint was sent without one: %v", body)
	}
}

func TestALicenseWithoutAnAddressLimitHasNilMaxIPs(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		answer := validAnswer(testKey, testProduct, nonceOf(r, body))
		answer["license"].(map[string]any)["maxIps"] = nil
		answer["ips"] = map[string]any{"count": 3, "max": nil}
		f.reply(w, 200, answer, signature{})
	})
	c, _ := f.client(t)
	validation, err := c.Validate(context.Background(), testKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !validation.Valid || validation.License.MaxIPs != nil || validation.IPs.Count != 3 || validation.IPs.Max != nil {
		t.Fatalf("unexpected validation %+v", validation)
	}
}

func TestEveryRequestSendsAFreshNonce(t *testing.T) {
	f := newFake(t)
	answering(f, testKey, testProduct, signature{})
	c, _ := f.client(t)
	seen := map[string]bool{}
	for i := 0; i < 5; i++ {
		if _, err := c.Validate(context.Background(), testKey, nil); err != nil {
			t.Fatal(err)
		}
		_, body := f.lastRequest()
		nonce, _ := body["nonce"].(string)
		raw, err := base64.RawURLEncoding.DecodeString(nonce)
		if err != nil || len(raw) != 16 {
			t.Fatalf("the nonce %q is not 16 bytes of base64url", nonce)
		}
		if seen[nonce] {
			t.Fatalf("the nonce %q was sent twice", nonce)
		}
		seen[nonce] = true
	}
}

func TestAnAnswerThatIsNotProvablyDepotsIsUnverifiable(t *testing.T) {
	other := newSigner(t, "other-kid")
	cases := []struct {
		name   string
		handle func(f *fakeDepot) func(w http.ResponseWriter, r *http.Request, body map[string]any)
		reason string
	}{
		{"unsigned", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				f.reply(w, 200, validAnswer(testKey, testProduct, body["nonce"]), signature{unsigned: true})
			}
		}, "unsigned"},
		{"a body changed after signing (bad digest)", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				signed := []byte(fmt.Sprintf(`{"valid":false,"code":"REVOKED","nonce":%q,"license":null}`, body["nonce"]))
				f.sign(w.Header(), 200, "application/json", signed, signature{})
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(fmt.Sprintf(`{"valid":true ,"code":"VALID","nonce":%q,"license":null}`, body["nonce"])))
			}
		}, "does not match its Content-Digest"},
		{"an unknown kid", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				raw := []byte(fmt.Sprintf(`{"valid":true,"code":"VALID","nonce":%q,"license":null}`, body["nonce"]))
				w.Header().Set("Content-Type", "application/json")
				other.sign(w.Header(), 200, "application/json", raw, signature{})
				_, _ = w.Write(raw)
			}
		}, `the key "other-kid" is not pinned`},
		{"another key under the pinned kid (forged)", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				raw := []byte(fmt.Sprintf(`{"valid":true,"code":"VALID","nonce":%q,"license":null}`, body["nonce"]))
				w.Header().Set("Content-Type", "application/json")
				other.sign(w.Header(), 200, "application/json", raw, signature{kid: testKid})
				_, _ = w.Write(raw)
			}
		}, "does not verify"},
		{"created too long ago", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				f.reply(w, 200, validAnswer(testKey, testProduct, body["nonce"]), signature{created: time.Now().Add(-301 * time.Second)})
			}
		}, "ago"},
		{"created in the future", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				f.reply(w, 200, validAnswer(testKey, testProduct, body["nonce"]), signature{created: time.Now().Add(301 * time.Second)})
			}
		}, "in the future"},
		{"another nonce (replayed)", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				f.reply(w, 200, validAnswer(testKey, testProduct, "recorded-earlier"), signature{})
			}
		}, "another nonce"},
		{"no nonce", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				f.reply(w, 200, validAnswer(testKey, testProduct, nil), signature{})
			}
		}, "no nonce"},
		{"another license's key (swapped)", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				f.reply(w, 200, validAnswer("ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", testProduct, body["nonce"]), signature{})
			}
		}, "another license key"},
		{"another product", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				f.reply(w, 200, validAnswer(testKey, "2", body["nonce"]), signature{})
			}
		}, "another product"},
		{"PRODUCT_MISMATCH about this product", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				answer := validAnswer(testKey, testProduct, body["nonce"])
				answer["valid"], answer["code"] = false, "PRODUCT_MISMATCH"
				f.reply(w, 200, answer, signature{})
			}
		}, "PRODUCT_MISMATCH about this product"},
		{"valid without a license", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				answer := validAnswer(testKey, testProduct, body["nonce"])
				answer["license"] = nil
				f.reply(w, 200, answer, signature{})
			}
		}, "no license"},
		{"a body that is not JSON", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				f.replyBytes(w, 200, "application/json", []byte("<html>valid</html>"), signature{})
			}
		}, "not a validation"},
		{"a JSON array", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				f.replyBytes(w, 200, "application/json", []byte(`[{"valid":true}]`), signature{})
			}
		}, "not a JSON object"},
		{"another status than the signed one", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				raw := []byte(fmt.Sprintf(`{"message":"nope","nonce":%q}`, body["nonce"]))
				w.Header().Set("Content-Type", "application/json")
				f.sign(w.Header(), 403, "application/json", raw, signature{})
				w.WriteHeader(200)
				_, _ = w.Write(raw)
			}
		}, "does not verify"},
		{"another content type than the signed one", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				raw := []byte(fmt.Sprintf(`{"valid":true,"code":"VALID","nonce":%q,"license":null}`, body["nonce"]))
				f.sign(w.Header(), 200, "text/plain", raw, signature{})
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(raw)
			}
		}, "does not verify"},
		{"a digest of another algorithm", func(f *fakeDepot) func(http.ResponseWriter, *http.Request, map[string]any) {
			return func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				f.reply(w, 200, validAnswer(testKey, testProduct, body["nonce"]), signature{digest: "sha-512=:AAAA:"})
			}
		}, "not one sha-256 digest"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.setHandler(tc.handle(f))
			c, _ := f.client(t)
			validation, err := c.Validate(context.Background(), testKey, nil)
			if validation != nil {
				t.Fatalf("a validation came back: %+v", validation)
			}
			mustUnverifiable(t, err, tc.reason)
			if f.callCount() != 1 {
				t.Fatalf("an unverifiable answer was retried (%d calls)", f.callCount())
			}
		})
	}
}

func TestOnlyDepotsFormOfSignatureInputIsAccepted(t *testing.T) {
	created := time.Now().Unix()
	cases := map[string]signature{
		"other components": {params: fmt.Sprintf(`("@status" "content-digest");created=%d;keyid="test-kid";alg="ed25519"`, created)},
		"another label":    {input: fmt.Sprintf(`sig1=("@status" "content-type" "content-digest");created=%d;keyid="test-kid";alg="ed25519"`, created)},
		"two signatures": {input: fmt.Sprintf(`depot=("@status" "content-type" "content-digest");created=%d;keyid="test-kid";alg="ed25519", other=("@status");created=1`,
			created)},
		"another alg":          {params: fmt.Sprintf(`("@status" "content-type" "content-digest");created=%d;keyid="test-kid";alg="rsa-pss-sha512"`, created)},
		"no alg":               {params: fmt.Sprintf(`("@status" "content-type" "content-digest");created=%d;keyid="test-kid"`, created)},
		"no created":           {params: `("@status" "content-type" "content-digest");keyid="test-kid";alg="ed25519"`},
		"an unknown parameter": {params: fmt.Sprintf(`("@status" "content-type" "content-digest");created=%d;keyid="test-kid";alg="ed25519";tag="x"`, created)},
		"a repeated parameter": {params: fmt.Sprintf(`("@status" "content-type" "content-digest");created=%d;created=%d;keyid="test-kid";alg="ed25519"`, created, created)},
		"an unquoted keyid":    {params: fmt.Sprintf(`("@status" "content-type" "content-digest");created=%d;keyid=test-kid;alg="ed25519"`, created)},
	}
	for name, how := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFake(t)
			answering(f, testKey, testProduct, how)
			c, _ := f.client(t)
			_, err := c.Validate(context.Background(), testKey, nil)
			mustUnverifiable(t, err, "")
		})
	}
	t.Run("parameters in another order", func(t *testing.T) {
		f := newFake(t)
		answering(f, testKey, testProduct, signature{params: fmt.Sprintf(`("@status" "content-type" "content-digest");alg="ed25519";keyid="test-kid";created=%d`, created)})
		c, _ := f.client(t)
		if _, err := c.Validate(context.Background(), testKey, nil); err != nil {
			t.Fatal(err)
		}
	})
}

func TestNotValidIsAResult(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		f.reply(w, 200, map[string]any{"valid": false, "code": "NOT_FOUND", "detail": "No license has this key.", "nonce": body["nonce"],
			"license": nil, "ips": map[string]any{"count": 0, "max": 0}}, signature{})
	})
	c, _ := f.client(t)
	validation, err := c.Validate(context.Background(), "nope", nil)
	if err != nil || validation.Valid || validation.Code != CodeNotFound || validation.License != nil {
		t.Fatalf("want NOT_FOUND, got %+v, %v", validation, err)
	}

	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		answer := validAnswer(testKey, "2", body["nonce"])
		answer["valid"], answer["code"] = false, "PRODUCT_MISMATCH"
		f.reply(w, 200, answer, signature{})
	})
	validation, err = c.Validate(context.Background(), testKey, nil)
	if err != nil || validation.Valid || validation.Code != CodeProductMismatch {
		t.Fatalf("want PRODUCT_MISMATCH, got %+v, %v", validation, err)
	}

	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		answer := validAnswer(testKey, testProduct, body["nonce"])
		answer["valid"], answer["code"] = false, "SOMETHING_NEW"
		f.reply(w, 200, answer, signature{})
	})
	validation, err = c.Validate(context.Background(), testKey, nil)
	if err != nil || validation.Code != "SOMETHING_NEW" {
		t.Fatalf("an unknown code is kept: %+v, %v", validation, err)
	}
}

func TestRevokedAndExpiredMayNameAnotherProductButMismatchMustNot(t *testing.T) {
	f := newFake(t)
	c, _ := f.client(t)
	for _, code := range []string{CodeRevoked, CodeExpired} {
		f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
			answer := validAnswer(testKey, "2", body["nonce"])
			answer["valid"], answer["code"] = false, code
			f.reply(w, 200, answer, signature{})
		})
		// depot decides these before it compares products: a genuine answer about this key.
		validation, err := c.Validate(context.Background(), testKey, nil)
		if err != nil || validation.Valid || validation.Code != code {
			t.Fatalf("%s of another product: got %+v, %v", code, validation, err)
		}
	}
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		answer := validAnswer(testKey, testProduct, body["nonce"])
		answer["valid"], answer["code"] = false, "PRODUCT_MISMATCH"
		f.reply(w, 200, answer, signature{})
	})
	_, err := c.Validate(context.Background(), testKey, nil)
	mustUnverifiable(t, err, "PRODUCT_MISMATCH about this product")
}

func TestRefusalsWithoutACodeAreNamedByTheirStatus(t *testing.T) {
	f := newFake(t)
	c, _ := f.client(t)
	for status, code := range map[int]string{400: "INVALID", 401: "UNAUTHENTICATED", 403: "FORBIDDEN", 404: "NOT_FOUND",
		409: "HTTP_409", 410: "HTTP_410", 422: "INVALID", 429: "TOO_MANY_REQUESTS"} {
		status := status
		f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
			f.reply(w, status, map[string]any{"message": "No."}, signature{})
		})
		_, err := c.Validate(context.Background(), testKey, nil)
		var refused *RefusedError
		if !errors.As(err, &refused) || refused.Code != code || refused.Status != status {
			t.Fatalf("%d: got %#v, want the code %s", status, err, code)
		}
	}
}

func TestValidateWithAFingerprintChecksTheMachine(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		answer := validAnswer(testKey, testProduct, body["nonce"])
		answer["machine"] = machineJSON("m-1", "fp-other")
		answer["machines"] = map[string]any{"count": 1, "max": 3}
		f.reply(w, 200, answer, signature{})
	})
	c, _ := f.client(t)
	_, err := c.Validate(context.Background(), testKey, &ValidateOptions{Fingerprint: "fp-1"})
	mustUnverifiable(t, err, "another machine")
	if _, body := f.lastRequest(); body["fingerprint"] != "fp-1" {
		t.Fatalf("the fingerprint was not sent: %v", body)
	}
	validation, err := c.Validate(context.Background(), testKey, &ValidateOptions{Fingerprint: "fp-other"})
	if err != nil || validation.Machine.ID != "m-1" || validation.Machines.Count != 1 || *validation.Machines.Max != 3 {
		t.Fatalf("got %+v, %v", validation, err)
	}

	// depot names the machine (or null) whenever a fingerprint came: without it, the request lost it.
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		answer := validAnswer(testKey, testProduct, body["nonce"])
		answer["machines"] = map[string]any{"count": 1, "max": 3}
		f.reply(w, 200, answer, signature{})
	})
	_, err = c.Validate(context.Background(), testKey, &ValidateOptions{Fingerprint: "fp-1"})
	mustUnverifiable(t, err, "no machine")
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		answer := validAnswer(testKey, testProduct, body["nonce"])
		answer["valid"], answer["code"], answer["machine"] = false, CodeNotActivated, nil
		f.reply(w, 200, answer, signature{})
	})
	if validation, err := c.Validate(context.Background(), testKey, &ValidateOptions{Fingerprint: "fp-1"}); err != nil || validation.Code != CodeNotActivated {
		t.Fatalf("a null machine: got %+v, %v", validation, err)
	}
}

func TestARedirectIsNotFollowed(t *testing.T) {
	// depot's API does not redirect: following one would send the key wherever it points.
	elsewhere := newFake(t)
	elsewhere.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		elsewhere.reply(w, 200, validAnswer(testKey, testProduct, body["nonce"]), signature{})
	})
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		http.Redirect(w, r, elsewhere.server.URL+r.URL.Path, http.StatusTemporaryRedirect)
	})
	c, _ := f.client(t)
	_, err := c.Validate(context.Background(), testKey, nil)
	mustUnverifiable(t, err, "unsigned")
	if elsewhere.callCount() != 0 {
		t.Fatalf("the redirect was followed: the key went to %s", elsewhere.server.URL)
	}
}

func TestA503IsRetriedWithItsRetryAfter(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		if f.callCount() == 1 {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(503)
			return
		}
		f.reply(w, 200, validAnswer(testKey, testProduct, body["nonce"]), signature{})
	})
	c, waits := f.client(t)
	validation, err := c.Validate(context.Background(), testKey, nil)
	if err != nil || !validation.Valid {
		t.Fatalf("got %+v, %v", validation, err)
	}
	if f.callCount() != 2 || len(*waits) != 1 || (*waits)[0] != 2*time.Second {
		t.Fatalf("calls %d, waits %v", f.callCount(), *waits)
	}
}

func TestBackoffDoublesWithJitterAndEndsUnreachable(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) { w.WriteHeader(502) })
	c, waits := f.client(t)
	_, err := c.Validate(context.Background(), testKey, nil)
	if u := mustUnreachable(t, err); u.Status != 502 {
		t.Fatalf("status %d", u.Status)
	}
	if f.callCount() != 3 || len(*waits) != 2 {
		t.Fatalf("want 3 attempts and 2 waits, got %d and %v", f.callCount(), *waits)
	}
	for i, wait := range *waits {
		base := 250 * time.Millisecond << uint(i)
		if wait < base*8/10 || wait > base*12/10 {
			t.Fatalf("wait %d is %s, want %s ± 20 %%", i, wait, base)
		}
	}

	none, _ := f.client(t, func(c *Config) { c.Retries = NoRetries })
	before := f.callCount()
	_, err = none.Validate(context.Background(), testKey, nil)
	mustUnreachable(t, err)
	if f.callCount()-before != 1 {
		t.Fatalf("NoRetries made %d attempts", f.callCount()-before)
	}
}

func TestA500IsUnreachableAtOnce(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) { w.WriteHeader(500) })
	c, _ := f.client(t)
	_, err := c.Validate(context.Background(), testKey, nil)
	mustUnreachable(t, err)
	if f.callCount() != 1 {
		t.Fatalf("a 500 was retried (%d calls)", f.callCount())
	}
}

func TestA429IsRetriedOnlyWithinMaxRetryWait(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		if f.callCount() == 1 {
			w.Header().Set("Retry-After", time.Now().Add(3*time.Second).UTC().Format(http.TimeFormat))
			w.WriteHeader(429)
			return
		}
		f.reply(w, 200, validAnswer(testKey, testProduct, body["nonce"]), signature{})
	})
	c, waits := f.client(t)
	if _, err := c.Validate(context.Background(), testKey, nil); err != nil {
		t.Fatal(err)
	}
	if len(*waits) != 1 || (*waits)[0] < 1*time.Second || (*waits)[0] > 3*time.Second {
		t.Fatalf("the HTTP-date Retry-After was not waited: %v", *waits)
	}

	// What is left is an answer like any other: unsigned, unverifiable; signed, a refusal.
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		w.Header().Set("Retry-After", "31")
		w.WriteHeader(429)
	})
	before := f.callCount()
	_, err := c.Validate(context.Background(), testKey, nil)
	mustUnverifiable(t, err, "unsigned")
	if f.callCount()-before != 1 {
		t.Fatalf("a 429 beyond MaxRetryWait was retried")
	}
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		w.Header().Set("Retry-After", "31")
		f.reply(w, 429, map[string]any{"message": "Too many requests."}, signature{})
	})
	_, err = c.Validate(context.Background(), testKey, nil)
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Code != "TOO_MANY_REQUESTS" || refused.RetryAfter != 31*time.Second {
		t.Fatalf("a signed 429: got %#v", err)
	}
}

func TestATimeoutIsUnreachable(t *testing.T) {
	f := newFake(t)
	release := make(chan struct{})
	defer close(release)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	c, _ := f.client(t, func(c *Config) { c.Timeout = 100 * time.Millisecond })
	started := time.Now()
	_, err := c.Validate(context.Background(), testKey, nil)
	u := mustUnreachable(t, err)
	if !strings.Contains(u.Reason, "no answer within 100ms") || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("reason %q", u.Reason)
	}
	if f.callCount() != 3 || time.Since(started) > 2*time.Second {
		t.Fatalf("%d attempts in %s", f.callCount(), time.Since(started))
	}
}

func TestNobodyListeningIsUnreachable(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	address := listener.Addr().String()
	listener.Close()
	signer := newSigner(t, testKid)
	c, err := New(Config{Server: "http://" + address, ProductID: "1", JWKS: signer.jwks(), Retries: NoRetries})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Validate(context.Background(), testKey, nil)
	mustUnreachable(t, err)
}

func TestACancelledContextIsUnreachableAndSaysSo(t *testing.T) {
	f := newFake(t)
	answering(f, testKey, testProduct, signature{})
	c, _ := f.client(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Validate(ctx, testKey, nil)
	mustUnreachable(t, err)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("errors.Is(err, context.Canceled) is false: %v", err)
	}
}

func TestARefusalOfValidateIsRefused(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		f.reply(w, 422, map[string]any{"message": "The key field is required.", "errors": map[string]any{"key": []string{"The key field is required."}}}, signature{})
	})
	c, _ := f.client(t)
	_, err := c.Validate(context.Background(), "", nil)
	var refused *RefusedError
	if !errors.As(err, &refused) || !errors.Is(err, ErrInvalid) || !errors.Is(err, ErrRefused) || refused.Status != 422 ||
		refused.Errors["key"][0] != "The key field is required." {
		t.Fatalf("got %#v", err)
	}
	if !strings.Contains(err.Error(), "key: The key field is required.") {
		t.Fatalf("message %q", err.Error())
	}
}

func TestConfigIsChecked(t *testing.T) {
	signer := newSigner(t, testKid)
	for name, config := range map[string]Config{
		"no server":          {ProductID: "1", JWKS: signer.jwks()},
		"not a URL":          {Server: "licenses.example.com", ProductID: "1", JWKS: signer.jwks()},
		"a product of text":  {Server: "http://x", ProductID: "desk", JWKS: signer.jwks()},
		"no keys":            {Server: "http://x", ProductID: "1"},
		"not a JWKS":         {Server: "http://x", ProductID: "1", JWKS: []byte("[]")},
		"no Ed25519 key":     {Server: "http://x", ProductID: "1", JWKS: []byte(`{"keys":[{"kty":"RSA","kid":"r","n":"x","e":"AQAB"}]}`)},
		"a JWKSFile missing": {Server: "http://x", ProductID: "1", JWKSFile: "/nonexistent/jwks.json"},
	} {
		if _, err := New(config); err == nil {
			t.Errorf("%s: New accepted %+v", name, config)
		}
	}
	c, err := New(Config{Server: "https://licenses.example.com/", ProductID: "1", FetchJWKS: true})
	if err != nil || c.Server() != "https://licenses.example.com" || c.ProductID() != "1" {
		t.Fatalf("got %v, %v", c, err)
	}
}

func TestFetchJWKSFetchesOnceAndAgainForAnUnknownKid(t *testing.T) {
	f := newFake(t)
	var jwksCalls int
	rotated := newSigner(t, "rotated-kid")
	useRotated := false
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		if r.URL.Path == "/.well-known/jwks.json" {
			jwksCalls++
			if useRotated {
				_, _ = w.Write(rotated.jwks())
			} else {
				_, _ = w.Write(f.jwks())
			}
			return
		}
		signer := f.testSigner
		if useRotated {
			signer = rotated
		}
		raw := []byte(fmt.Sprintf(`{"valid":true,"code":"VALID","nonce":%q,"license":{"key":%q,"productId":"1"}}`, body["nonce"], testKey))
		w.Header().Set("Content-Type", "application/json")
		signer.sign(w.Header(), 200, "application/json", raw, signature{})
		_, _ = w.Write(raw)
	})
	c, _ := f.client(t, func(c *Config) { c.JWKS = nil; c.FetchJWKS = true })
	for i := 0; i < 2; i++ {
		if _, err := c.Validate(context.Background(), testKey, nil); err != nil {
			t.Fatal(err)
		}
	}
	if jwksCalls != 1 {
		t.Fatalf("the key set was fetched %d times", jwksCalls)
	}
	useRotated = true
	if _, err := c.Validate(context.Background(), testKey, nil); err != nil {
		t.Fatal(err)
	}
	if jwksCalls != 2 {
		t.Fatalf("the key set was fetched %d times", jwksCalls)
	}
	// A key the server does not publish either stays unknown.
	stranger := newSigner(t, "stranger")
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		if r.URL.Path == "/.well-known/jwks.json" {
			_, _ = w.Write(rotated.jwks())
			return
		}
		raw := []byte(fmt.Sprintf(`{"valid":true,"code":"VALID","nonce":%q,"license":{"key":%q,"productId":"1"}}`, body["nonce"], testKey))
		w.Header().Set("Content-Type", "application/json")
		stranger.sign(w.Header(), 200, "application/json", raw, signature{})
		_, _ = w.Write(raw)
	})
	_, err := c.Validate(context.Background(), testKey, nil)
	mustUnverifiable(t, err, "no published key")
}
