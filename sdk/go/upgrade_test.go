package depot

import (
	"context"
	"errors"
	"net/http"
	"testing"
)

func upgradeAnswer(r *http.Request, product string) map[string]any {
	q := r.URL.Query()
	or := func(name, fallback string) string {
		if value := q.Get(name); value != "" {
			return value
		}
		return fallback
	}
	return map[string]any{
		"upgrade": true, "current": q.Get("version"), "product_id": product,
		"platform": or("platform", "any"), "arch": or("arch", "any"), "channel": or("channel", "stable"),
		"nonce": q.Get("nonce"),
		"version": map[string]any{
			"id": 2, "product_id": product, "version_number": "1.1.0", "title": "1.1.0", "changelog": "- faster",
			"changelog_format": "markdown", "channel": "stable", "status": "published", "critical": false,
			"published_at": "2026-11-27T21:33:45.634Z", "created_at": "2026-11-27T21:33:45.634Z", "updated_at": "2026-11-27T21:33:45.634Z",
			"artifacts": []map[string]any{{
				"id": 3, "version_id": 2, "platform": "linux", "arch": "x86_64", "file_name": "app-1.1.0.tar.gz",
				"file_size": 43, "sha256": "8113c34c1c18b898a448dccd87b3eb716bb9f46b6d046b54f3267836d71ad51e", "sha512": nil,
				"content_type": "application/octet-stream", "signature": nil,
				"download_url": "http://127.0.0.1/api/products/1/versions/2/artifacts/3/download", "created_at": "2026-11-27T21:33:45.634Z",
			}},
		},
	}
}

func TestCheckForUpdateReturnsTheVerifiedUpgrade(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		f.reply(w, 200, upgradeAnswer(r, testProduct), signature{})
	})
	c, _ := f.client(t)
	upgrade, err := c.CheckForUpdate(context.Background(), testKey, "1.0.0", &UpdateOptions{Platform: "linux", Arch: "x86_64", StagingID: "s-1"})
	if err != nil {
		t.Fatal(err)
	}
	if !upgrade.Upgrade || upgrade.Version.VersionNumber != "1.1.0" || len(upgrade.Version.Artifacts) != 1 ||
		upgrade.Version.Artifacts[0].FileName != "app-1.1.0.tar.gz" || upgrade.Version.Artifacts[0].SHA512 != "" {
		t.Fatalf("got %+v", upgrade)
	}
	r, _ := f.lastRequest()
	q := r.URL.Query()
	if r.Method != http.MethodGet || r.URL.Path != "/api/v1/products/1/upgrade" || q.Get("version") != "1.0.0" ||
		q.Get("platform") != "linux" || q.Get("arch") != "x86_64" || q.Has("channel") ||
		r.Header.Get("Authorization") != "License "+testKey || r.Header.Get("X-User-Staging-Id") != "s-1" {
		t.Fatalf("request %s %s %v", r.Method, r.URL, r.Header)
	}
	// Nothing asked: any, any, stable.
	upgrade, err = c.CheckForUpdate(context.Background(), testKey, "1.0.0", nil)
	if err != nil || upgrade.Platform != "any" || upgrade.Arch != "any" || upgrade.Channel != "stable" {
		t.Fatalf("got %+v, %v", upgrade, err)
	}
}

func TestNothingNewerIsAnUpgradeWithoutVersion(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		answer := upgradeAnswer(r, testProduct)
		answer["upgrade"], answer["version"] = false, nil
		f.reply(w, 200, answer, signature{})
	})
	c, _ := f.client(t)
	upgrade, err := c.CheckForUpdate(context.Background(), testKey, "1.1.0", &UpdateOptions{Platform: "linux", Arch: "x86_64"})
	if err != nil || upgrade.Upgrade || upgrade.Version != nil {
		t.Fatalf("got %+v, %v", upgrade, err)
	}
}

func TestAnUpgradeAboutAnotherSubjectIsUnverifiable(t *testing.T) {
	for _, field := range []string{"product_id", "platform", "arch", "channel", "current"} {
		t.Run(field, func(t *testing.T) {
			f := newFake(t)
			f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
				answer := upgradeAnswer(r, testProduct)
				answer["upgrade"], answer["version"] = false, nil
				answer[field] = map[string]string{"product_id": "2", "platform": "windows", "arch": "aarch64", "channel": "beta", "current": "9.9.9"}[field]
				f.reply(w, 200, answer, signature{})
			})
			c, _ := f.client(t)
			_, err := c.CheckForUpdate(context.Background(), testKey, "1.0.0", &UpdateOptions{Platform: "linux", Arch: "x86_64"})
			mustUnverifiable(t, err, "another "+field)
		})
	}
	t.Run("another nonce", func(t *testing.T) {
		f := newFake(t)
		f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
			answer := upgradeAnswer(r, testProduct)
			answer["nonce"] = "old"
			f.reply(w, 200, answer, signature{})
		})
		c, _ := f.client(t)
		_, err := c.CheckForUpdate(context.Background(), testKey, "1.0.0", nil)
		mustUnverifiable(t, err, "another nonce")
	})
}

func TestUpdateRefusals(t *testing.T) {
	f := newFake(t)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		if r.Header.Get("Authorization") == "" {
			f.reply(w, 401, map[string]any{"message": "Unauthenticated."}, signature{})
			return
		}
		f.reply(w, 403, map[string]any{"message": "This license does not hold this product."}, signature{})
	})
	c, _ := f.client(t)
	if _, err := c.CheckForUpdate(context.Background(), "", "1.0.0", nil); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("got %v", err)
	}
	_, err := c.CheckForUpdate(context.Background(), "OTHER", "1.0.0", nil)
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Code != CodeForbidden || refused.Message != "This license does not hold this product." {
		t.Fatalf("got %#v", err)
	}
}
