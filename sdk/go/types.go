package depot

import "time"

// License is a license as depot's license API shows it.
type License struct {
	ID        string     `json:"id"`
	UserID    string     `json:"userId"`
	CreatorID string     `json:"creatorId"`
	ProductID string     `json:"productId"`
	Expires   *time.Time `json:"expires"`
	MaxIPs    *int       `json:"maxIps"` // nil: no address limit
	Key       string     `json:"key"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
	// The machine settings, on a license that uses them (nil and false otherwise).
	MaxMachines      *int `json:"maxMachines,omitempty"`
	Floating         bool `json:"floating,omitempty"`
	HeartbeatSeconds *int `json:"heartbeatSeconds,omitempty"`
}

// Machine is a machine activated on a license.
type Machine struct {
	ID              string    `json:"id"`
	LicenseID       string    `json:"licenseId"`
	Fingerprint     string    `json:"fingerprint"`
	Name            string    `json:"name"`
	Platform        string    `json:"platform"`
	Hostname        string    `json:"hostname"`
	CreatedAt       time.Time `json:"createdAt"`
	LastHeartbeatAt time.Time `json:"lastHeartbeatAt"`
	// Alive is false for a machine that missed its heartbeats: it holds no seat.
	Alive bool `json:"alive"`
}

// Seats counts what a license uses against its limit (addresses, alive machines); Max is nil when
// there is none.
type Seats struct {
	Count int  `json:"count"`
	Max   *int `json:"max"`
}

// Validation is depot's verified answer about a license key: Valid and Code say what it is (not
// valid is a result, not an error).
type Validation struct {
	Valid bool `json:"valid"`
	// Code is VALID, NOT_FOUND, REVOKED, EXPIRED, PRODUCT_MISMATCH, FINGERPRINT_REQUIRED,
	// NOT_ACTIVATED, HEARTBEAT_DEAD or TOO_MANY_IPS; an unknown code is kept as depot sent it.
	Code   string `json:"code"`
	Detail string `json:"detail"`
	// Timestamp is the server's time of the check.
	Timestamp time.Time `json:"ts"`
	// License is nil for NOT_FOUND.
	License *License `json:"license"`
	IPs     *Seats   `json:"ips"`
	// Machines is there for a license with maxMachines, or when a fingerprint was given.
	Machines *Seats `json:"machines,omitempty"`
	// Machine is the fingerprint's machine when one was given (nil: not activated).
	Machine *Machine `json:"machine,omitempty"`
	// LicenseFile and LicenseFileExpiresAt: Checkout's signed license file, when valid.
	LicenseFile          string     `json:"license_file,omitempty"`
	LicenseFileExpiresAt *time.Time `json:"license_file_expires_at,omitempty"`
	// SignedAt is the signature's created time: when depot said so.
	SignedAt time.Time `json:"-"`
	// KeyID names the key that signed it.
	KeyID string `json:"-"`
}

// Activation is the answer to Activate: the machine and its license.
type Activation struct {
	Machine Machine `json:"machine"`
	License License `json:"license"`
	// Created is true for a machine activated now (201), false for one already active (200).
	Created bool `json:"-"`
}

// Upgrade is the answer to CheckForUpdate.
type Upgrade struct {
	// Upgrade says whether Version is newer than the app's and offered to it.
	Upgrade bool `json:"upgrade"`
	// Current is the app's version, as sent.
	Current   string `json:"current"`
	ProductID string `json:"product_id"`
	Platform  string `json:"platform"`
	Arch      string `json:"arch"`
	Channel   string `json:"channel"`
	// Version is the version to upgrade to, its artifacts narrowed to the platform and arch; nil
	// when there is none.
	Version *Release `json:"version"`
}

// Release is a published version of the product.
type Release struct {
	ID              int64      `json:"id"`
	ProductID       string     `json:"product_id"`
	VersionNumber   string     `json:"version_number"`
	Title           string     `json:"title"`
	Changelog       string     `json:"changelog"`
	ChangelogFormat string     `json:"changelog_format"`
	Channel         string     `json:"channel"`
	Status          string     `json:"status"`
	Critical        bool       `json:"critical"`
	PublishedAt     *time.Time `json:"published_at"`
	Artifacts       []Artifact `json:"artifacts"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
}

// Artifact is one file of a release, for one platform and arch: what Download fetches.
type Artifact struct {
	ID        int64  `json:"id"`
	VersionID int64  `json:"version_id"`
	Platform  string `json:"platform"`
	Arch      string `json:"arch"`
	// FileName is the name Download writes the file under (never a header's).
	FileName string `json:"file_name"`
	FileSize int64  `json:"file_size"`
	// SHA256 is hex, SHA512 base64 (empty when depot has none); Download checks each one given.
	SHA256      string `json:"sha256"`
	SHA512      string `json:"sha512"`
	ContentType string `json:"content_type"`
	// Signature is the updater signature (.sig text) sent with the file, if any.
	Signature   string    `json:"signature"`
	DownloadURL string    `json:"download_url"`
	CreatedAt   time.Time `json:"created_at"`
}
