package depot

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

func licenseFileClient(t *testing.T, signer testSigner, now time.Time) *Client {
	t.Helper()
	c, err := New(Config{Server: "https://licenses.example.com/", ProductID: testProduct, JWKS: signer.jwks(), Clock: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestVerifyLicenseFile(t *testing.T) {
	signer := newSigner(t, testKid)
	now := time.Unix(1795815274, 0)
	c := licenseFileClient(t, signer, now)
	claims := fileClaims("https://licenses.example.com", now)
	claims["fingerprint"], claims["machine_id"] = "fp-1", "m-1"
	text := signer.licenseFileText(fileHeader(testKid), claims)

	file, err := c.VerifyLicenseFile(context.Background(), text, &LicenseFileOptions{Key: strings.ToLower(testKey), Fingerprint: "fp-1"})
	if err != nil {
		t.Fatal(err)
	}
	if file.Key != testKey || file.ProductID != testProduct || file.Fingerprint != "fp-1" || file.MachineID != "m-1" ||
		!file.ExpiresAt.Equal(now.Add(30*24*time.Hour)) || !file.IssuedAt.Equal(now) || file.MaxIPs == nil || *file.MaxIPs != 100 ||
		file.LicenseExpires != nil || file.Issuer != "https://licenses.example.com" || file.KeyID != testKid {
		t.Fatalf("got %+v", file)
	}
	// Without options: signature, issuer, times and product only.
	if _, err := c.VerifyLicenseFile(context.Background(), "garbage before\n"+text+"after", nil); err != nil {
		t.Fatal(err)
	}
}

func TestALicenseFileThatFailsACheckIsRefused(t *testing.T) {
	signer := newSigner(t, testKid)
	other := newSigner(t, "other-kid")
	now := time.Unix(1795815274, 0)
	c := licenseFileClient(t, signer, now)
	good := func() map[string]any { return fileClaims("https://licenses.example.com", now) }
	with := func(change func(map[string]any)) map[string]any {
		claims := good()
		change(claims)
		return claims
	}
	tamper := func(text string) string {
		token, _ := armoured(text)
		parts := strings.Split(token, ".")
		claims := with(func(c map[string]any) { c["key"] = "ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ" })
		forged := signer.licenseFileText(fileHeader(testKid), claims)
		forgedToken, _ := armoured(forged)
		return "-----BEGIN DEPOT LICENSE FILE-----\n" + parts[0] + "." + strings.Split(forgedToken, ".")[1] + "." + parts[2] + "\n-----END DEPOT LICENSE FILE-----\n"
	}
	cases := []struct {
		name    string
		text    string
		options *LicenseFileOptions
		reason  string
	}{
		{"a tampered payload", tamper(signer.licenseFileText(fileHeader(testKid), good())), nil, "does not verify"},
		{"another key's signature", other.licenseFileText(fileHeader(testKid), good()), nil, "does not verify"},
		{"an unknown kid", other.licenseFileText(fileHeader("other-kid"), good()), nil, "not pinned"},
		{"another alg", signer.licenseFileText(map[string]any{"alg": "HS256", "typ": "depot-license+jwt", "kid": testKid}, good()), nil, `alg is "HS256"`},
		{"another typ", signer.licenseFileText(map[string]any{"alg": "EdDSA", "typ": "JWT", "kid": testKid}, good()), nil, `typ is "JWT"`},
		{"another issuer", signer.licenseFileText(fileHeader(testKid), with(func(c map[string]any) { c["iss"] = "http://127.0.0.1:8080" })), nil,
			`the file was issued by "http://127.0.0.1:8080", expected "https://licenses.example.com"`},
		{"expired", signer.licenseFileText(fileHeader(testKid), with(func(c map[string]any) { c["exp"] = now.Unix() })), nil, "expired at"},
		{"not yet valid", signer.licenseFileText(fileHeader(testKid), with(func(c map[string]any) { c["nbf"] = now.Add(10 * time.Minute).Unix() })), nil, "not valid before"},
		{"issued in the future", signer.licenseFileText(fileHeader(testKid), with(func(c map[string]any) { c["iat"] = now.Add(10 * time.Minute).Unix() })), nil, "issued in the future"},
		{"no exp", signer.licenseFileText(fileHeader(testKid), with(func(c map[string]any) { delete(c, "exp") })), nil, "no exp"},
		{"another product", signer.licenseFileText(fileHeader(testKid), with(func(c map[string]any) { c["product_id"] = "2" })), nil, "another product"},
		{"another key", signer.licenseFileText(fileHeader(testKid), good()), &LicenseFileOptions{Key: "ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ"}, "another license key"},
		{"no fingerprint", signer.licenseFileText(fileHeader(testKid), good()), &LicenseFileOptions{Fingerprint: "fp-1"}, "not bound to a machine"},
		{"another fingerprint", signer.licenseFileText(fileHeader(testKid), with(func(c map[string]any) { c["fingerprint"] = "fp-2" })), &LicenseFileOptions{Fingerprint: "fp-1"}, "bound to another machine"},
		{"no armour", "eyJhbGciOiJFZERTQSJ9.e30.AAAA", nil, "no -----BEGIN"},
		{"not a JWS", "-----BEGIN DEPOT LICENSE FILE-----\nabc\n-----END DEPOT LICENSE FILE-----", nil, "not a compact JWS"},
		{"a header that is not base64url", "-----BEGIN DEPOT LICENSE FILE-----\n!!.e30.AAAA\n-----END DEPOT LICENSE FILE-----", nil, "header"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file, err := c.VerifyLicenseFile(context.Background(), tc.text, tc.options)
			if file != nil {
				t.Fatalf("claims came back: %+v", file)
			}
			mustUnverifiable(t, err, tc.reason)
		})
	}
}

func TestALicenseFilePastItsExpIsExpiredUnlessWithinGrace(t *testing.T) {
	signer := newSigner(t, testKid)
	issued := time.Unix(1795815274, 0)
	c := licenseFileClient(t, signer, issued)
	text := signer.licenseFileText(fileHeader(testKid), fileClaims("https://licenses.example.com", issued))
	later := issued.Add(31 * 24 * time.Hour)
	_, err := c.VerifyLicenseFile(context.Background(), text, &LicenseFileOptions{Now: later})
	if !errors.Is(err, ErrExpired) || !errors.Is(err, ErrUnverifiable) {
		t.Fatalf("got %v", err)
	}
	if _, err := c.VerifyLicenseFile(context.Background(), text, &LicenseFileOptions{Now: later, Grace: 2 * 24 * time.Hour}); err != nil {
		t.Fatalf("within its grace: %v", err)
	}
	if _, err := c.VerifyLicenseFile(context.Background(), text, &LicenseFileOptions{Now: later, Grace: 24 * time.Hour}); !errors.Is(err, ErrExpired) {
		t.Fatalf("beyond its grace: %v", err)
	}
}

func TestVerifyLicenseFileAcceptsPaddedOrWrappedBase64Never(t *testing.T) {
	signer := newSigner(t, testKid)
	now := time.Unix(1795815274, 0)
	c := licenseFileClient(t, signer, now)
	text := signer.licenseFileText(fileHeader(testKid), fileClaims("https://licenses.example.com", now))
	token, _ := armoured(text)
	parts := strings.Split(token, ".")
	signature, _ := base64.RawURLEncoding.DecodeString(parts[2])
	padded := "-----BEGIN DEPOT LICENSE FILE-----\n" + parts[0] + "." + parts[1] + "." + base64.URLEncoding.EncodeToString(signature) + "\n-----END DEPOT LICENSE FILE-----"
	_, err := c.VerifyLicenseFile(context.Background(), padded, nil)
	mustUnverifiable(t, err, "signature")
}
