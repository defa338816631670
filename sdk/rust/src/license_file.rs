//! License files, checked offline: an EdDSA compact JWS between armour lines, signed by a pinned
//! key, issued by this depot for this product (and key, and machine).

use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::error::Error;
use crate::jwks::Key;
use crate::types::{string, LicenseFile, Object};
use crate::util::{base64url_decode, normalise_key, unix_seconds};

const BEGIN: &str = "-----BEGIN DEPOT LICENSE FILE-----";
const END: &str = "-----END DEPOT LICENSE FILE-----";
const TYPE: &str = "depot-license+jwt";

/// What [`Client::verify_license_file`](crate::Client::verify_license_file) checks beyond the
/// signature, issuer, product and time.
#[derive(Debug, Clone, Default)]
pub struct LicenseFileOptions {
    pub(crate) key: Option<String>,
    pub(crate) fingerprint: Option<String>,
    pub(crate) now: Option<SystemTime>,
    pub(crate) grace: Duration,
}

impl LicenseFileOptions {
    /// No key, no fingerprint, the client's clock, no grace.
    pub fn new() -> LicenseFileOptions {
        LicenseFileOptions::default()
    }

    /// The file must be for this license key.
    pub fn key(mut self, key: impl Into<String>) -> LicenseFileOptions {
        self.key = Some(key.into());
        self
    }

    /// The file must be bound to this machine (a file without a fingerprint is refused).
    pub fn fingerprint(mut self, fingerprint: impl Into<String>) -> LicenseFileOptions {
        self.fingerprint = Some(fingerprint.into());
        self
    }

    /// Check at this time instead of the client's clock.
    pub fn now(mut self, now: SystemTime) -> LicenseFileOptions {
        self.now = Some(now);
        self
    }

    /// Accept a file this long after its `exp`.
    pub fn grace(mut self, grace: Duration) -> LicenseFileOptions {
        self.grace = grace;
        self
    }
}

/// What the client's settings contribute to the check.
pub(crate) struct Expected<'a> {
    pub issuer: &'a str,
    pub product_id: &'a str,
    pub skew: i64,
    pub now: SystemTime,
}

fn refused<T>(reason: impl Into<String>) -> Result<T, Error> {
    Err(Error::Unverifiable(reason.into()))
}

pub(crate) fn verify(
    text: &str,
    keys: &[Key],
    expected: &Expected,
    options: &LicenseFileOptions,
) -> Result<LicenseFile, Error> {
    let token: String = match (text.find(BEGIN), text.find(END)) {
        (Some(begin), Some(end)) if begin < end => &text[begin + BEGIN.len()..end],
        (None, None) => text,
        _ => return refused("no DEPOT LICENSE FILE block"),
    }
    .chars()
    .filter(|c| !c.is_whitespace())
    .collect();
    let parts: Vec<&str> = token.split('.').collect();
    if parts.len() != 3 {
        return refused("the license file is not a compact JWS");
    }
    let header = part_object(parts[0], "header")?;
    if string(&header, "alg").as_deref() != Some("EdDSA") {
        return refused("the license file's alg is not EdDSA");
    }
    if string(&header, "typ").as_deref() != Some(TYPE) {
        return refused(format!("the license file's typ is not {TYPE}"));
    }
    let kid = match string(&header, "kid") {
        Some(kid) => kid,
        None => return refused("the license file's header names no kid"),
    };
    let key = match keys.iter().find(|key| key.kid == kid) {
        Some(key) => key,
        None => return refused(format!("the key \"{kid}\" is not pinned")),
    };
    let signature = match base64url_decode(parts[2]) {
        Some(signature) => signature,
        None => return refused("the license file's signature is not base64url"),
    };
    let signing_input = &token[..parts[0].len() + 1 + parts[1].len()];
    if !key.verifies(signing_input.as_bytes(), &signature) {
        return refused("the license file's signature does not verify");
    }

    let claims = part_object(parts[1], "payload")?;
    let file = LicenseFile::from_claims(&claims, Value::Object(claims.clone()))?;
    // A file from another depot (same software, another vendor) must not unlock this one.
    if file.issuer.trim_end_matches('/') != expected.issuer {
        return refused(format!(
            "the file was issued by \"{}\", expected \"{}\" (the issuer is the depot's APP_URL)",
            file.issuer, expected.issuer
        ));
    }
    let now = unix_seconds(options.now.unwrap_or(expected.now));
    if let Some(nbf) = claims.get("nbf") {
        match nbf.as_i64() {
            Some(nbf) if nbf - now <= expected.skew => {}
            _ => return refused("the license file is not valid yet (nbf)"),
        }
    }
    if unix_seconds(file.issued_at) - now > expected.skew {
        return refused("the license file was issued in the future (iat)");
    }
    let grace = options.grace.as_secs() as i64;
    if unix_seconds(file.expires_at).saturating_add(grace) <= now {
        return refused(format!(
            "the license file expired {} s ago",
            now - unix_seconds(file.expires_at)
        ));
    }
    if file.product_id != expected.product_id {
        return refused(format!(
            "the license file is for product {}, not {}",
            file.product_id, expected.product_id
        ));
    }
    if let Some(key) = &options.key {
        if normalise_key(&file.key) != normalise_key(key) {
            return refused("the license file is for another license key");
        }
    }
    // A file bound to another machine (copied from it) must not unlock this one.
    if let Some(fingerprint) = &options.fingerprint {
        match &file.fingerprint {
            Some(bound) if bound == fingerprint => {}
            Some(_) => return refused("the license file is bound to another machine"),
            None => return refused("the license file is not bound to a machine"),
        }
    }
    Ok(file)
}

fn part_object(part: &str, what: &str) -> Result<Object, Error> {
    let bytes = base64url_decode(part).ok_or_else(|| {
        Error::Unverifiable(format!("the license file's {what} is not base64url"))
    })?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(object)) => Ok(object),
        _ => refused(format!("the license file's {what} is not a JSON object")),
    }
}
