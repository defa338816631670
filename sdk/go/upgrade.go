package depot

import (
	"context"
	"net/http"
	"net/url"
)

// UpdateOptions narrow what CheckForUpdate asks about; each is optional.
type UpdateOptions struct {
	// Platform is windows, darwin or linux ("any" when empty).
	Platform string
	// Arch is x86_64, aarch64, i686, armv7 or universal ("any" when empty).
	Arch string
	// Channel is stable (when empty), rc, beta, alpha or dev.
	Channel string
	// StagingID keeps the app in the same place of a staged rollout on every check (sent as
	// x-user-staging-id; without it depot uses the license key).
	StagingID string
}

// CheckForUpdate asks depot's signed upgrade check (GET /api/v1/products/{p}/upgrade) whether a
// version newer than currentVersion (semver) is offered to this app, and returns the verified
// answer: Upgrade.Upgrade, and Upgrade.Version with its artifacts for the platform and arch. The
// answer must name the product, platform, arch and channel asked about. Refusals: ErrUnauthenticated
// (no key), ErrForbidden (a key that does not hold the product), ErrNotFound, ErrInvalid.
func (c *Client) CheckForUpdate(ctx context.Context, key, currentVersion string, opts *UpdateOptions) (*Upgrade, error) {
	var o UpdateOptions
	if opts != nil {
		o = *opts
	}
	nonce := newNonce()
	query := url.Values{"version": {currentVersion}, "nonce": {nonce}}
	for name, value := range map[string]string{"platform": o.Platform, "arch": o.Arch, "channel": o.Channel} {
		if value != "" {
			query.Set(name, value)
		}
	}
	header := map[string]string{}
	if key != "" {
		header["Authorization"] = "License " + key
	}
	if o.StagingID != "" {
		header["X-User-Staging-Id"] = o.StagingID
	}
	target := c.server + "/api/v1/products/" + url.PathEscape(c.productID) + "/upgrade?" + query.Encode()
	v, err := c.call(ctx, request{method: http.MethodGet, url: target, header: header}, nonce)
	if err != nil {
		return nil, err
	}
	var answer struct {
		Upgrade
		Nonce *string `json:"nonce"`
	}
	if err := decodeObject(v.body, &answer); err != nil {
		return nil, unverifiable(v.status, "the answer is not an upgrade check's: %v", err)
	}
	if err := checkNonce(v.status, answer.Nonce, nonce); err != nil {
		return nil, err
	}
	upgrade := &answer.Upgrade
	asked := map[string][2]string{
		"product_id": {upgrade.ProductID, c.productID},
		"platform":   {upgrade.Platform, orText(o.Platform, "any")},
		"arch":       {upgrade.Arch, orText(o.Arch, "any")},
		"channel":    {upgrade.Channel, orText(o.Channel, "stable")},
		"current":    {upgrade.Current, currentVersion},
	}
	for _, name := range []string{"product_id", "platform", "arch", "channel", "current"} {
		if said := asked[name]; said[0] != said[1] {
			return nil, unverifiable(v.status, "the upgrade answer is about another %s (%q, asked %q)", name, said[0], said[1])
		}
	}
	if upgrade.Upgrade != (upgrade.Version != nil) {
		return nil, unverifiable(v.status, "the upgrade answer says upgrade=%t with version %v", upgrade.Upgrade, upgrade.Version != nil)
	}
	return upgrade, nil
}

func orText(value, fallback string) string {
	if value == "" {
		return fallback
	}
	return value
}
