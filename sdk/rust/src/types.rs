//! What the calls return, read from depot's JSON (after its signature was checked). Timestamps
//! stay the ISO 8601 text depot sent; every result keeps the whole JSON as `raw` for what a field
//! does not show.

use std::time::SystemTime;

use serde_json::{Map, Value};

use crate::error::Error;

pub(crate) type Object = Map<String, Value>;

/// The codes depot answers, as constants to match on (`code.as_str()`); an unknown code is kept
/// as it is.
pub mod codes {
    /// The license is valid (for this product and machine).
    pub const VALID: &str = "VALID";
    /// No license has this key (validate), or no such machine or license (a refusal).
    pub const NOT_FOUND: &str = "NOT_FOUND";
    /// The license was revoked.
    pub const REVOKED: &str = "REVOKED";
    /// The license expired.
    pub const EXPIRED: &str = "EXPIRED";
    /// The license is for another product.
    pub const PRODUCT_MISMATCH: &str = "PRODUCT_MISMATCH";
    /// The license counts machines: validate with a fingerprint.
    pub const FINGERPRINT_REQUIRED: &str = "FINGERPRINT_REQUIRED";
    /// This fingerprint is not a machine of the license: activate first.
    pub const NOT_ACTIVATED: &str = "NOT_ACTIVATED";
    /// The machine missed its heartbeats: activate again.
    pub const HEARTBEAT_DEAD: &str = "HEARTBEAT_DEAD";
    /// The license is used from more addresses than it allows.
    pub const TOO_MANY_IPS: &str = "TOO_MANY_IPS";
    /// Activation refused: the license is on its maximum of machines.
    pub const TOO_MANY_MACHINES: &str = "TOO_MANY_MACHINES";
    /// Activation refused: too many new activations today (see `retry_after`).
    pub const TOO_MANY_ACTIVATIONS: &str = "TOO_MANY_ACTIVATIONS";
    /// Deactivation refused: the machine's license file is still valid (see `file_expires_at`).
    pub const MACHINE_FILE_VALID: &str = "MACHINE_FILE_VALID";
    /// A refusal of the request itself: no or a wrong `License` credential (401).
    pub const UNAUTHENTICATED: &str = "UNAUTHENTICATED";
    /// A refusal: the key does not hold the product (403 on the upgrade check).
    pub const FORBIDDEN: &str = "FORBIDDEN";
    /// A refusal: the request's fields (400, 422 with `errors`).
    pub const INVALID: &str = "INVALID";
    /// A refusal: rate-limited (429 without a code).
    pub const TOO_MANY_REQUESTS: &str = "TOO_MANY_REQUESTS";
    /// `status()` only: depot could not be reached and nothing kept is usable.
    pub const UNREACHABLE: &str = "UNREACHABLE";
    /// `status()` only: depot's answer did not verify and nothing kept is usable.
    pub const UNVERIFIABLE: &str = "UNVERIFIABLE";
}

/// A verified validation (`validate`, `checkout`, `status`).
#[derive(Debug, Clone, PartialEq)]
pub struct Validation {
    /// Whether the license is valid for this product (and machine).
    pub valid: bool,
    /// `VALID`, `NOT_FOUND`, `REVOKED`, `EXPIRED`, `PRODUCT_MISMATCH`, `FINGERPRINT_REQUIRED`,
    /// `NOT_ACTIVATED`, `HEARTBEAT_DEAD`, `TOO_MANY_IPS`, or an unknown code as depot sent it.
    pub code: String,
    /// depot's words for the code.
    pub detail: Option<String>,
    /// The license (`None` for `NOT_FOUND`).
    pub license: Option<License>,
    /// Addresses in use and the maximum.
    pub ips: Option<Count>,
    /// Alive machines and the maximum (a license with `maxMachines`, or a fingerprint given).
    pub machines: Option<Count>,
    /// The machine of the fingerprint given, when it is one of the license's.
    pub machine: Option<Machine>,
    /// `checkout` only: the signed license file, for [`Client::verify_license_file`](crate::Client::verify_license_file).
    pub license_file: Option<String>,
    /// `checkout` only: when the license file expires (ISO 8601).
    pub license_file_expires_at: Option<String>,
    /// When depot signed the answer.
    pub signed_at: SystemTime,
    /// The answer's JSON.
    pub raw: Value,
}

/// A license as the license API shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct License {
    /// Its id (a UUID).
    pub id: String,
    /// The key.
    pub key: String,
    /// Its product (a string of digits).
    pub product_id: String,
    /// Its owner's user id.
    pub user_id: String,
    /// When it expires (ISO 8601), `None` for never.
    pub expires: Option<String>,
    /// How many addresses may use it.
    pub max_ips: Option<i64>,
    /// How many machines may be alive at once, when it counts machines.
    pub max_machines: Option<i64>,
    /// Whether a seat is a lease kept by heartbeats.
    pub floating: bool,
    /// How often its machines must send a heartbeat, when it wants them.
    pub heartbeat_seconds: Option<i64>,
}

/// A machine of a license.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    /// Its id (a UUID): what `heartbeat` and `deactivate` take.
    pub id: String,
    /// Its license's id.
    pub license_id: String,
    /// The fingerprint it was activated with.
    pub fingerprint: String,
    /// The name, platform and host name given at activation.
    pub name: Option<String>,
    /// See `name`.
    pub platform: Option<String>,
    /// See `name`.
    pub hostname: Option<String>,
    /// When it was activated (ISO 8601).
    pub created_at: String,
    /// Its last heartbeat (ISO 8601).
    pub last_heartbeat_at: String,
    /// False: it missed its heartbeats and holds no seat.
    pub alive: bool,
}

/// A count and its maximum (`None`: unlimited).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    /// In use now.
    pub count: i64,
    /// The most allowed.
    pub max: Option<i64>,
}

/// A verified activation.
#[derive(Debug, Clone, PartialEq)]
pub struct Activation {
    /// The machine, alive.
    pub machine: Machine,
    /// Its license.
    pub license: License,
    /// True when the machine was activated now (201), false when it already was (200).
    pub created: bool,
    /// When depot signed the answer.
    pub signed_at: SystemTime,
    /// The answer's JSON.
    pub raw: Value,
}

/// A verified upgrade check.
#[derive(Debug, Clone, PartialEq)]
pub struct Upgrade {
    /// Whether `version` is newer than the one running and offered to it.
    pub upgrade: bool,
    /// The version the app runs, as sent.
    pub current: String,
    /// The version to upgrade to, with the artifacts for the platform and arch asked about.
    pub version: Option<Version>,
    /// When depot signed the answer.
    pub signed_at: SystemTime,
    /// The answer's JSON.
    pub raw: Value,
}

/// A published version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    /// Its id.
    pub id: i64,
    /// Its name (`1.1.0`).
    pub version_number: String,
    /// Its title.
    pub title: Option<String>,
    /// The changelog as published.
    pub changelog: Option<String>,
    /// `stable`, `rc`, `beta`, `alpha` or `dev`.
    pub channel: Option<String>,
    /// Whether the vendor marked it critical.
    pub critical: bool,
    /// When it was published (ISO 8601).
    pub published_at: Option<String>,
    /// Its files for the platform and arch asked about.
    pub artifacts: Vec<Artifact>,
}

/// One file of a version: what [`Client::download`](crate::Client::download) takes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Artifact {
    /// Its id.
    pub id: i64,
    /// `windows`, `darwin`, `linux` or `any`.
    pub platform: String,
    /// `x86_64`, `aarch64`, … or `any`.
    pub arch: String,
    /// The name it is saved under (checked: no path, no leading dot).
    pub file_name: String,
    /// Its size in bytes.
    pub file_size: u64,
    /// SHA-256, hex.
    pub sha256: Option<String>,
    /// SHA-512, base64.
    pub sha512: Option<String>,
    /// Its updater signature (Tauri's `.sig` text), when the vendor uploaded one.
    pub signature: Option<String>,
    /// Where it is downloaded from (with the license key).
    pub download_url: String,
}

/// The claims of a verified license file.
#[derive(Debug, Clone, PartialEq)]
pub struct LicenseFile {
    /// The depot that issued it (its `APP_URL`).
    pub issuer: String,
    /// The license's id (`sub`).
    pub license_id: String,
    /// The license key.
    pub key: String,
    /// The product.
    pub product_id: String,
    /// The license owner's user id.
    pub user_id: Option<String>,
    /// When it was issued.
    pub issued_at: SystemTime,
    /// When it expires (`exp`).
    pub expires_at: SystemTime,
    /// When the license itself expires (ISO 8601), `None` for never.
    pub license_expires: Option<String>,
    /// The machine it is bound to, when it is.
    pub fingerprint: Option<String>,
    /// That machine's id.
    pub machine_id: Option<String>,
    /// Every claim.
    pub claims: Value,
}

/// Where `status()` got its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// depot answered now.
    Online,
    /// The last verified answer, within `offline_grace`.
    Cache,
    /// The license file last checked out, verified now.
    LicenseFile,
    /// Nothing usable.
    None,
}

impl Source {
    /// `online`, `cache`, `licenseFile` or `none`, as the contract names them.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Online => "online",
            Source::Cache => "cache",
            Source::LicenseFile => "licenseFile",
            Source::None => "none",
        }
    }
}

/// `status()`'s answer: valid or not, and on what it rests.
#[derive(Debug)]
pub struct Status {
    /// Whether the app may run as licensed.
    pub valid: bool,
    /// The validation's code; `VALID` from a license file; `UNREACHABLE` or `UNVERIFIABLE` (or a
    /// refusal's code) when nothing is usable.
    pub code: String,
    /// Where the answer came from.
    pub source: Source,
    /// When depot last said so: the answer's signature time, or the license file's issue time;
    /// with `Source::None`, when depot last answered about this key, if ever (past the grace).
    pub checked_at: Option<SystemTime>,
    /// Why depot was not asked successfully now (every source but `Online`).
    pub error: Option<Error>,
    /// The validation it rests on (online or cache).
    pub validation: Option<Validation>,
    /// The license file it rests on.
    pub license_file: Option<LicenseFile>,
}

// --- from JSON ------------------------------------------------------------------------------

pub(crate) fn string(object: &Object, name: &str) -> Option<String> {
    object.get(name).and_then(Value::as_str).map(str::to_string)
}

/// A string, or a number written as one (ids).
fn id(object: &Object, name: &str) -> Option<String> {
    match object.get(name) {
        Some(Value::String(text)) => Some(text.clone()),
        Some(Value::Number(number)) => Some(number.to_string()),
        _ => None,
    }
}

fn int(object: &Object, name: &str) -> Option<i64> {
    object.get(name).and_then(Value::as_i64)
}

fn boolean(object: &Object, name: &str) -> Option<bool> {
    object.get(name).and_then(Value::as_bool)
}

fn missing(what: &str, name: &str) -> Error {
    Error::Unverifiable(format!("{what} has no {name}"))
}

fn object<'a>(value: &'a Value, what: &str) -> Result<&'a Object, Error> {
    value
        .as_object()
        .ok_or_else(|| Error::Unverifiable(format!("{what} is not a JSON object")))
}

/// The member `name` as an object, `None` when it is absent or null.
pub(crate) fn member<'a>(parent: &'a Object, name: &str) -> Result<Option<&'a Object>, Error> {
    match parent.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => object(value, name).map(Some),
    }
}

impl License {
    pub(crate) fn from_json(o: &Object) -> Result<License, Error> {
        Ok(License {
            id: string(o, "id").ok_or_else(|| missing("the license", "id"))?,
            key: string(o, "key").ok_or_else(|| missing("the license", "key"))?,
            product_id: id(o, "productId").ok_or_else(|| missing("the license", "productId"))?,
            user_id: id(o, "userId").unwrap_or_default(),
            expires: string(o, "expires"),
            max_ips: int(o, "maxIps"),
            max_machines: int(o, "maxMachines"),
            floating: boolean(o, "floating").unwrap_or(false),
            heartbeat_seconds: int(o, "heartbeatSeconds"),
        })
    }
}

impl Machine {
    pub(crate) fn from_json(o: &Object) -> Result<Machine, Error> {
        Ok(Machine {
            id: string(o, "id").ok_or_else(|| missing("the machine", "id"))?,
            license_id: string(o, "licenseId").unwrap_or_default(),
            fingerprint: string(o, "fingerprint")
                .ok_or_else(|| missing("the machine", "fingerprint"))?,
            name: string(o, "name"),
            platform: string(o, "platform"),
            hostname: string(o, "hostname"),
            created_at: string(o, "createdAt").unwrap_or_default(),
            last_heartbeat_at: string(o, "lastHeartbeatAt").unwrap_or_default(),
            alive: boolean(o, "alive").unwrap_or(false),
        })
    }
}

fn count(o: &Object, name: &str) -> Result<Option<Count>, Error> {
    Ok(member(o, name)?.map(|c| Count {
        count: int(c, "count").unwrap_or(0),
        max: int(c, "max"),
    }))
}

impl Validation {
    pub(crate) fn from_json(raw: Value, signed_at: SystemTime) -> Result<Validation, Error> {
        let body = object(&raw, "the answer")?;
        let mut validation = Validation {
            valid: boolean(body, "valid").ok_or_else(|| missing("the answer", "valid"))?,
            code: string(body, "code").ok_or_else(|| missing("the answer", "code"))?,
            detail: string(body, "detail"),
            license: member(body, "license")?
                .map(License::from_json)
                .transpose()?,
            ips: count(body, "ips")?,
            machines: count(body, "machines")?,
            machine: member(body, "machine")?
                .map(Machine::from_json)
                .transpose()?,
            license_file: string(body, "license_file"),
            license_file_expires_at: string(body, "license_file_expires_at"),
            signed_at,
            raw: Value::Null,
        };
        validation.raw = raw;
        Ok(validation)
    }
}

impl Version {
    pub(crate) fn from_json(o: &Object) -> Result<Version, Error> {
        let artifacts = match o.get("artifacts") {
            Some(Value::Array(list)) => list
                .iter()
                .map(|a| object(a, "an artifact").and_then(Artifact::from_json))
                .collect::<Result<Vec<_>, _>>()?,
            _ => Vec::new(),
        };
        Ok(Version {
            id: int(o, "id").unwrap_or(0),
            version_number: string(o, "version_number")
                .ok_or_else(|| missing("the version", "version_number"))?,
            title: string(o, "title"),
            changelog: string(o, "changelog"),
            channel: string(o, "channel"),
            critical: boolean(o, "critical").unwrap_or(false),
            published_at: string(o, "published_at"),
            artifacts,
        })
    }
}

impl Artifact {
    pub(crate) fn from_json(o: &Object) -> Result<Artifact, Error> {
        Ok(Artifact {
            id: int(o, "id").unwrap_or(0),
            platform: string(o, "platform").unwrap_or_default(),
            arch: string(o, "arch").unwrap_or_default(),
            file_name: string(o, "file_name").ok_or_else(|| missing("an artifact", "file_name"))?,
            file_size: o.get("file_size").and_then(Value::as_u64).unwrap_or(0),
            sha256: string(o, "sha256"),
            sha512: string(o, "sha512"),
            signature: string(o, "signature"),
            download_url: string(o, "download_url")
                .ok_or_else(|| missing("an artifact", "download_url"))?,
        })
    }
}

impl LicenseFile {
    pub(crate) fn from_claims(claims: &Object, raw: Value) -> Result<LicenseFile, Error> {
        let seconds = |name: &str| {
            int(claims, name)
                .map(crate::util::from_unix_seconds)
                .ok_or_else(|| Error::Unverifiable(format!("the license file has no {name} claim")))
        };
        let text = |name: &str| {
            id(claims, name)
                .ok_or_else(|| Error::Unverifiable(format!("the license file has no {name} claim")))
        };
        Ok(LicenseFile {
            issuer: text("iss")?,
            license_id: text("sub")?,
            key: text("key")?,
            product_id: text("product_id")?,
            user_id: id(claims, "user_id"),
            issued_at: seconds("iat")?,
            expires_at: seconds("exp")?,
            license_expires: string(claims, "expires"),
            fingerprint: string(claims, "fingerprint"),
            machine_id: string(claims, "machine_id"),
            claims: raw,
        })
    }
}
