//! The client: every operation of the contract, each answer verified before it is returned.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde_json::{json, Map, Value};

use crate::config::Config;
use crate::download;
use crate::error::{Error, Refusal};
use crate::http::{self, Answer, Request};
use crate::jwks::{self, Key};
use crate::license_file::{self, Expected, LicenseFileOptions};
use crate::machine::{Heartbeat, HeartbeatOptions, MachineDetails};
use crate::signature::{self, Checked, Freshness, SignedAnswer};
use crate::state::{KeptAnswer, Store};
use crate::types::{
    codes, member, string, Activation, Artifact, License, LicenseFile, Machine, Object, Source,
    Status, Upgrade, Validation, Version,
};
use crate::util::{from_unix_seconds, nonce, normalise_key, percent_encode, unix_seconds};

/// A client of one depot for one product. Cheap to clone (the clones share their connections and
/// what `status()` keeps), `Send + Sync`: keep one in your app's state. Every call blocks; from
/// async code (a Tauri command), call it in `tauri::async_runtime::spawn_blocking`.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    config: Config,
    pinned: Option<Vec<Key>>,
    /// Fetched from the server (`fetch_jwks` without a pinned set): `None` until the first use.
    fetched: Mutex<Option<Vec<Key>>>,
    agent: ureq::Agent,
    download_agent: ureq::Agent,
    store: Store,
}

/// What [`Client::checkout`] asks for.
#[derive(Debug, Clone, Default)]
pub struct CheckoutOptions {
    fingerprint: Option<String>,
    ttl: Option<u64>,
}

impl CheckoutOptions {
    /// No fingerprint, depot's default lifetime (30 days).
    pub fn new() -> CheckoutOptions {
        CheckoutOptions::default()
    }

    /// Bind the file to this machine (it must be activated and alive).
    pub fn fingerprint(mut self, fingerprint: impl Into<String>) -> CheckoutOptions {
        self.fingerprint = Some(fingerprint.into());
        self
    }

    /// The file's lifetime in seconds, 3600 to 31536000.
    pub fn ttl(mut self, seconds: u64) -> CheckoutOptions {
        self.ttl = Some(seconds);
        self
    }
}

/// What [`Client::check_for_update`] asks about.
#[derive(Debug, Clone, Default)]
pub struct UpdateOptions {
    platform: Option<String>,
    arch: Option<String>,
    channel: Option<String>,
    staging_id: Option<String>,
}

impl UpdateOptions {
    /// Any platform and arch, the stable channel.
    pub fn new() -> UpdateOptions {
        UpdateOptions::default()
    }

    /// `windows`, `darwin` or `linux`.
    pub fn platform(mut self, platform: impl Into<String>) -> UpdateOptions {
        self.platform = Some(platform.into());
        self
    }

    /// `x86_64`, `aarch64`, `i686`, `armv7` or `universal`.
    pub fn arch(mut self, arch: impl Into<String>) -> UpdateOptions {
        self.arch = Some(arch.into());
        self
    }

    /// `stable` (default), `rc`, `beta`, `alpha` or `dev`.
    pub fn channel(mut self, channel: impl Into<String>) -> UpdateOptions {
        self.channel = Some(channel.into());
        self
    }

    /// Who the client is for a staged rollout (sent as `x-user-staging-id`); default the key.
    pub fn staging_id(mut self, id: impl Into<String>) -> UpdateOptions {
        self.staging_id = Some(id.into());
        self
    }
}

/// A signed answer that passed checks 1–6: its status, JSON and signature time.
struct Verified {
    status: u16,
    checked: Checked,
}

fn unverifiable<T>(reason: impl Into<String>) -> Result<T, Error> {
    Err(Error::Unverifiable(reason.into()))
}

impl Client {
    /// A client for `config`. Fails with [`Error::Invalid`] for a JWKS without an Ed25519 key or a
    /// server URL that is not http(s) (https needs the `tls` feature), and [`Error::Io`] when
    /// `state_dir` cannot be created.
    pub fn new(config: Config) -> Result<Client, Error> {
        let pinned = config.jwks.as_deref().map(jwks::parse).transpose()?;
        if pinned.is_none() && !config.fetch_jwks {
            return Err(Error::Invalid(
                "no JWKS pinned and fetch_jwks is off".into(),
            ));
        }
        let scheme_end = config.server.find("://").unwrap_or(0);
        match (
            &config.server[..scheme_end],
            config.server.len() > scheme_end + 3,
        ) {
            ("http", true) => {}
            ("https", true) if cfg!(feature = "tls") => {}
            ("https", true) => {
                return Err(Error::Invalid(
                    "an https server needs depot-client's `tls` feature".into(),
                ))
            }
            _ => {
                return Err(Error::Invalid(format!(
                    "the server must be an http(s) URL, got \"{}\"",
                    config.server
                )))
            }
        }
        if config.product_id.is_empty() || !config.product_id.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Error::Invalid(format!(
                "the product id must be a string of digits, got \"{}\"",
                config.product_id
            )));
        }
        let store = Store::new(config.state_dir.as_deref())?;
        Ok(Client {
            inner: Arc::new(Inner {
                agent: http::agent(&config),
                download_agent: download::agent(&config),
                pinned,
                fetched: Mutex::new(None),
                store,
                config,
            }),
        })
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    fn now(&self) -> SystemTime {
        (self.inner.config.clock)()
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.inner.config.server, path)
    }

    // --- validate and checkout --------------------------------------------------------------

    /// Validates `key` for the configured product (and the machine `fingerprint`): a verified
    /// [`Validation`], valid or not. The answer is kept for [`status`](Client::status).
    pub fn validate(&self, key: &str, fingerprint: Option<&str>) -> Result<Validation, Error> {
        let nonce = nonce();
        let body = self.key_body(key, fingerprint, &nonce);
        let answer = self.send_json("/api/v1/licenses/validate", &body)?;
        let validation = self.validation_of(
            &answer.signed,
            answer.retry_after,
            key,
            fingerprint,
            &nonce,
            self.live(),
        )?;
        self.inner.store.keep_answer(
            key,
            fingerprint,
            KeptAnswer {
                answer: answer.signed,
                nonce,
            },
        );
        Ok(validation)
    }

    /// Verifies a validation received some other way (recorded, or relayed by your own backend):
    /// every check `validate` makes, for the `key`, `fingerprint` and `nonce` it was asked with.
    pub fn verify_validation(
        &self,
        answer: &SignedAnswer,
        key: &str,
        fingerprint: Option<&str>,
        nonce: &str,
    ) -> Result<Validation, Error> {
        self.validation_of(answer, None, key, fingerprint, nonce, self.live())
    }

    /// Validates like [`validate`](Client::validate) and, when valid, gets a signed license file
    /// (`license_file`, `license_file_expires_at`) for offline use, kept for `status()`.
    pub fn checkout(&self, key: &str, options: &CheckoutOptions) -> Result<Validation, Error> {
        let nonce = nonce();
        let mut body = self.key_body(key, options.fingerprint.as_deref(), &nonce);
        if let Some(ttl) = options.ttl {
            body.insert("ttl".into(), json!(ttl));
        }
        let answer = self.send_json("/api/v1/licenses/checkout", &body)?;
        let validation = self.validation_of(
            &answer.signed,
            answer.retry_after,
            key,
            options.fingerprint.as_deref(),
            &nonce,
            self.live(),
        )?;
        if let Some(file) = &validation.license_file {
            self.inner.store.keep_license_file(key, file);
        }
        Ok(validation)
    }

    fn key_body(&self, key: &str, fingerprint: Option<&str>, nonce: &str) -> Object {
        let mut body = Map::new();
        body.insert("key".into(), json!(key));
        body.insert("productId".into(), json!(self.inner.config.product_id));
        body.insert("nonce".into(), json!(nonce));
        if let Some(fingerprint) = fingerprint {
            body.insert("fingerprint".into(), json!(fingerprint));
        }
        body
    }

    fn live(&self) -> Freshness {
        Freshness::Skew(self.inner.config.max_clock_skew.as_secs() as i64)
    }

    fn validation_of(
        &self,
        answer: &SignedAnswer,
        retry_after: Option<Duration>,
        key: &str,
        fingerprint: Option<&str>,
        nonce: &str,
        freshness: Freshness,
    ) -> Result<Validation, Error> {
        let verified = self.verified(answer, retry_after, nonce, freshness)?;
        let checked = verified.checked;
        let signed_at = from_unix_seconds(checked.created);
        let names_machine = checked.body().contains_key("machine");
        let validation = Validation::from_json(checked.raw, signed_at)?;
        if let Some(license) = &validation.license {
            self.check_license(license, key, &validation.code)?;
            // depot names the machine (or null) whenever a fingerprint came: without it, the
            // request lost its fingerprint on the way.
            if fingerprint.is_some() && !names_machine {
                return unverifiable("the answer names no machine for the fingerprint sent");
            }
        }
        if let (Some(fingerprint), Some(machine)) = (fingerprint, &validation.machine) {
            if machine.fingerprint != fingerprint {
                return unverifiable("the answer is about another machine");
            }
        }
        Ok(validation)
    }

    /// Check 7 for a license: the key asked about, and this product — except where depot answers
    /// before it compares products (REVOKED, EXPIRED) or to say it differs (PRODUCT_MISMATCH).
    fn check_license(&self, license: &License, key: &str, code: &str) -> Result<(), Error> {
        if normalise_key(&license.key) != normalise_key(key) {
            return unverifiable("the answer is about another license key");
        }
        let product = &self.inner.config.product_id;
        let same = &license.product_id == product;
        match code {
            codes::REVOKED | codes::EXPIRED => Ok(()),
            codes::PRODUCT_MISMATCH if !same => Ok(()),
            codes::PRODUCT_MISMATCH => unverifiable("PRODUCT_MISMATCH about this very product"),
            _ if same => Ok(()),
            _ => unverifiable(format!(
                "the answer is about product {}, not {product}",
                license.product_id
            )),
        }
    }

    // --- machines ---------------------------------------------------------------------------

    /// Activates this machine on the license: `created` true for a new machine (201), false for
    /// a fingerprint already active (200, which also counts as a heartbeat). Refusals:
    /// `TOO_MANY_MACHINES`, `TOO_MANY_ACTIVATIONS` (with `retry_after`), `REVOKED`, `EXPIRED`,
    /// `NOT_FOUND`, `INVALID`.
    pub fn activate(
        &self,
        key: &str,
        fingerprint: &str,
        details: &MachineDetails,
    ) -> Result<Activation, Error> {
        let nonce = nonce();
        let mut body = Map::new();
        body.insert("key".into(), json!(key));
        body.insert("fingerprint".into(), json!(fingerprint));
        for (name, value) in details.fields() {
            body.insert(name.into(), json!(value));
        }
        body.insert("nonce".into(), json!(nonce));
        let answer = self.send_json("/api/v1/licenses/activate", &body)?;
        let verified = self.verified(&answer.signed, answer.retry_after, &nonce, self.live())?;
        let body = verified.checked.body();
        let machine = match member(body, "machine")? {
            Some(machine) => Machine::from_json(machine)?,
            None => return unverifiable("the activation has no machine"),
        };
        let license = match member(body, "license")? {
            Some(license) => License::from_json(license)?,
            None => return unverifiable("the activation has no license"),
        };
        // The key only (activation names no product, so REVOKED's rule: any product's)…
        self.check_license(&license, key, codes::REVOKED)?;
        if machine.fingerprint != fingerprint {
            return unverifiable("the activation is about another machine");
        }
        // …then the product: depot's genuine answer about this key says the seat is another
        // product's, a refusal rather than a forgery (the seat is taken there all the same).
        if license.product_id != self.inner.config.product_id {
            return Err(Error::Refused(Refusal {
                code: codes::PRODUCT_MISMATCH.into(),
                message: format!(
                    "This license is for product {}, not {}.",
                    license.product_id, self.inner.config.product_id
                ),
                status: verified.status,
                retry_after: None,
                raw: verified.checked.raw,
            }));
        }
        Ok(Activation {
            machine,
            license,
            created: verified.status == 201,
            signed_at: from_unix_seconds(verified.checked.created),
            raw: verified.checked.raw,
        })
    }

    /// Keeps the machine alive for another `heartbeat_seconds`. Refusals: `HEARTBEAT_DEAD`
    /// (activate again), `NOT_FOUND` (not a machine of this license), `REVOKED`, `EXPIRED`.
    pub fn heartbeat(&self, key: &str, machine_id: &str) -> Result<Machine, Error> {
        let nonce = nonce();
        let url = self.url(&format!(
            "/api/v1/machines/{}/heartbeat?nonce={}",
            percent_encode(machine_id),
            percent_encode(&nonce)
        ));
        let authorization = format!("License {key}");
        let answer = self.send(&Request {
            method: "POST",
            url: &url,
            headers: &[
                ("authorization", &authorization),
                ("accept", "application/json"),
            ],
            json: None,
        })?;
        let verified = self.verified(&answer.signed, answer.retry_after, &nonce, self.live())?;
        let machine = match member(verified.checked.body(), "machine")? {
            Some(machine) => Machine::from_json(machine)?,
            None => return unverifiable("the heartbeat's answer has no machine"),
        };
        if machine.id != machine_id {
            return unverifiable("the heartbeat's answer is about another machine");
        }
        Ok(machine)
    }

    /// Sends a heartbeat every `options.interval` on a thread of its own, until the returned
    /// handle is stopped or dropped, or depot refuses one (the app must activate again then).
    pub fn start_heartbeat(
        &self,
        key: &str,
        machine_id: &str,
        options: HeartbeatOptions,
    ) -> Heartbeat {
        Heartbeat::start(
            self.clone(),
            key.to_string(),
            machine_id.to_string(),
            options,
        )
    }

    /// Frees the machine's seat. depot's 204 has no body to sign; its refusals are signed.
    pub fn deactivate(&self, key: &str, machine_id: &str) -> Result<(), Error> {
        let url = self.url(&format!("/api/v1/machines/{}", percent_encode(machine_id)));
        let authorization = format!("License {key}");
        let answer = self.send(&Request {
            method: "DELETE",
            url: &url,
            headers: &[("authorization", &authorization)],
            json: None,
        })?;
        if (200..300).contains(&answer.signed.status) {
            return Ok(());
        }
        self.verified(&answer.signed, answer.retry_after, "", self.live())
            .map(|_| ())
    }

    // --- license files ----------------------------------------------------------------------

    /// Verifies a license file offline: EdDSA by a pinned key, `typ` `depot-license+jwt`, `iss`
    /// this server, `nbf`/`iat` not in the future, `exp` (+ grace) after now, this product, and
    /// the key and fingerprint when given. Any failure is [`Error::Unverifiable`] with the reason.
    pub fn verify_license_file(
        &self,
        text: &str,
        options: &LicenseFileOptions,
    ) -> Result<LicenseFile, Error> {
        let config = &self.inner.config;
        let keys = self.keys_in_hand();
        license_file::verify(
            text,
            &keys,
            &Expected {
                issuer: &config.server,
                product_id: &config.product_id,
                skew: config.max_clock_skew.as_secs() as i64,
                now: self.now(),
            },
            options,
        )
    }

    // --- updates ----------------------------------------------------------------------------

    /// Asks depot's signed upgrade check whether a version newer than `current_version` is offered
    /// to this license on this platform, arch and channel; `version` carries its artifacts.
    /// Refusals: `UNAUTHENTICATED`, `FORBIDDEN` (the key does not hold the product), `NOT_FOUND`,
    /// `INVALID` (not semver, an unknown platform…).
    pub fn check_for_update(
        &self,
        key: &str,
        current_version: &str,
        options: &UpdateOptions,
    ) -> Result<Upgrade, Error> {
        let nonce = nonce();
        let config = &self.inner.config;
        let mut query = format!("version={}", percent_encode(current_version));
        for (name, value) in [
            ("platform", &options.platform),
            ("arch", &options.arch),
            ("channel", &options.channel),
        ] {
            if let Some(value) = value {
                query.push_str(&format!("&{name}={}", percent_encode(value)));
            }
        }
        query.push_str(&format!("&nonce={}", percent_encode(&nonce)));
        let url = self.url(&format!(
            "/api/v1/products/{}/upgrade?{query}",
            percent_encode(&config.product_id)
        ));
        let authorization = format!("License {key}");
        let mut headers = vec![
            ("authorization", authorization.as_str()),
            ("accept", "application/json"),
        ];
        if let Some(staging_id) = &options.staging_id {
            headers.push(("x-user-staging-id", staging_id));
        }
        let answer = self.send(&Request {
            method: "GET",
            url: &url,
            headers: &headers,
            json: None,
        })?;
        let verified = self.verified(&answer.signed, answer.retry_after, &nonce, self.live())?;
        let body = verified.checked.body();
        // A relay could hand over depot's genuine "no upgrade" for another product or platform.
        // The version asked about too: a relay could ask with a higher one and hand back "none".
        let current = current_version.to_string();
        for (name, asked, default) in [
            ("product_id", Some(&config.product_id), ""),
            ("platform", options.platform.as_ref(), "any"),
            ("arch", options.arch.as_ref(), "any"),
            ("channel", options.channel.as_ref(), "stable"),
            ("current", Some(&current), ""),
        ] {
            let expected = asked.map_or(default, String::as_str);
            let answered = string(body, name);
            if answered.as_deref() != Some(expected) {
                return unverifiable(format!(
                    "the upgrade answer is about {name} {}, not {expected}",
                    answered.as_deref().unwrap_or("(none)")
                ));
            }
        }
        let upgrade = body
            .get("upgrade")
            .and_then(Value::as_bool)
            .ok_or_else(|| Error::Unverifiable("the upgrade answer has no upgrade".into()))?;
        let version = member(body, "version")?
            .map(Version::from_json)
            .transpose()?;
        if upgrade && version.is_none() {
            return unverifiable("the upgrade answer offers no version");
        }
        Ok(Upgrade {
            upgrade,
            current,
            version,
            signed_at: from_unix_seconds(verified.checked.created),
            raw: verified.checked.raw,
        })
    }

    /// Downloads `artifact` into `directory`: streamed to `<file_name>.part` (resumed when one is
    /// there), its `sha512`/`sha256` checked, then renamed to `file_name`. Returns the file's path.
    /// A hash that differs deletes the `.part` ([`Error::Unverifiable`]); a file name that is not a
    /// plain one (a path, `:`, `..`, a leading dot, a control character) is unverifiable before a
    /// byte is written.
    pub fn download(
        &self,
        key: &str,
        artifact: &Artifact,
        directory: impl AsRef<Path>,
    ) -> Result<PathBuf, Error> {
        self.download_with_progress(key, artifact, directory, |_, _| {})
    }

    /// [`download`](Client::download), telling `on_progress(bytes so far, file_size)` as it goes.
    pub fn download_with_progress(
        &self,
        key: &str,
        artifact: &Artifact,
        directory: impl AsRef<Path>,
        mut on_progress: impl FnMut(u64, u64),
    ) -> Result<PathBuf, Error> {
        download::download(
            &self.inner.download_agent,
            &self.inner.config,
            key,
            artifact,
            directory.as_ref(),
            &mut on_progress,
        )
    }

    // --- status -----------------------------------------------------------------------------

    /// An offline-first answer: validates now, and when depot cannot be reached or its answer does
    /// not verify, answers from the last verified validation younger than `offline_grace`
    /// (`Source::Cache`), else the license file last checked out if it verifies now
    /// (`Source::LicenseFile`), else not valid (`Source::None`, code `UNREACHABLE` or
    /// `UNVERIFIABLE`). A verified refusal of the validation is depot's answer: `Source::Online`,
    /// not valid, the refusal's code. Never fails: the error is in `Status::error`.
    pub fn status(&self, key: &str, fingerprint: Option<&str>) -> Status {
        let error = match self.validate(key, fingerprint) {
            Ok(validation) => {
                return Status {
                    valid: validation.valid,
                    code: validation.code.clone(),
                    source: Source::Online,
                    checked_at: Some(validation.signed_at),
                    error: None,
                    validation: Some(validation),
                    license_file: None,
                }
            }
            Err(Error::Refused(refusal)) => {
                return Status {
                    valid: false,
                    code: refusal.code.clone(),
                    source: Source::Online,
                    checked_at: Some(self.now()),
                    error: Some(Error::Refused(refusal)),
                    validation: None,
                    license_file: None,
                }
            }
            Err(error) => error,
        };
        let grace = self.inner.config.offline_grace.as_secs() as i64;
        if let Some(validation) = self.kept_validation(key, fingerprint, grace) {
            return Status {
                valid: validation.valid,
                code: validation.code.clone(),
                source: Source::Cache,
                checked_at: Some(validation.signed_at),
                error: Some(error),
                validation: Some(validation),
                license_file: None,
            };
        }
        let file = self.inner.store.kept_license_file(key).and_then(|text| {
            let mut options = LicenseFileOptions::new().key(key);
            if let Some(fingerprint) = fingerprint {
                options = options.fingerprint(fingerprint);
            }
            self.verify_license_file(&text, &options).ok()
        });
        if let Some(file) = file {
            return Status {
                valid: true,
                code: codes::VALID.into(),
                source: Source::LicenseFile,
                checked_at: Some(file.issued_at),
                error: Some(error),
                validation: None,
                license_file: Some(file),
            };
        }
        let code = match &error {
            Error::Unreachable(_) => codes::UNREACHABLE.to_string(),
            _ => codes::UNVERIFIABLE.to_string(),
        };
        Status {
            valid: false,
            code,
            source: Source::None,
            // When depot last said anything about this key, however long ago.
            checked_at: self
                .kept_validation(key, fingerprint, i64::MAX)
                .map(|validation| validation.signed_at),
            error: Some(error),
            validation: None,
            license_file: None,
        }
    }

    /// The kept validation, verified again as it is read, if younger than `max_age` seconds.
    fn kept_validation(
        &self,
        key: &str,
        fingerprint: Option<&str>,
        max_age: i64,
    ) -> Option<Validation> {
        let kept = self.inner.store.kept_answer(key, fingerprint)?;
        let freshness = Freshness::Kept {
            max_age,
            skew: self.inner.config.max_clock_skew.as_secs() as i64,
        };
        self.validation_of(&kept.answer, None, key, fingerprint, &kept.nonce, freshness)
            .ok()
    }

    /// This machine's fingerprint for the configured product ([`machine_fingerprint`](crate::machine_fingerprint)).
    pub fn machine_fingerprint(&self) -> Result<String, Error> {
        crate::machine_fingerprint(&self.inner.config.product_id, None)
    }

    // --- transport and verification ---------------------------------------------------------

    fn send_json(&self, path: &str, body: &Object) -> Result<Answer, Error> {
        let url = self.url(path);
        let json = Value::Object(body.clone()).to_string();
        self.send(&Request {
            method: "POST",
            url: &url,
            headers: &[("accept", "application/json")],
            json: Some(&json),
        })
    }

    fn send(&self, request: &Request) -> Result<Answer, Error> {
        let answer = http::send(&self.inner.agent, &self.inner.config, request)?;
        let status = answer.signed.status;
        if (300..400).contains(&status) {
            return unverifiable(format!(
                "depot answered {status}, a redirect to {} (set the server to the address it redirects to)",
                answer.location.as_deref().unwrap_or("nowhere")
            ));
        }
        Ok(answer)
    }

    /// Checks 1–6 of the contract on an answer; a 2xx must echo `nonce`, anything else is a
    /// refusal (whose `nonce`, when it has one, must be ours too), returned as [`Error::Refused`].
    fn verified(
        &self,
        answer: &SignedAnswer,
        retry_after: Option<Duration>,
        nonce: &str,
        freshness: Freshness,
    ) -> Result<Verified, Error> {
        let now = unix_seconds(self.now());
        let mut refetched = false;
        let checked = signature::verify(
            answer,
            &mut |kid| self.key_for(kid, &mut refetched),
            now,
            freshness,
        )?;
        let echoed = checked.body().get("nonce");
        let success = (200..300).contains(&answer.status);
        match echoed {
            Some(Value::String(echoed)) if echoed == nonce => {}
            None | Some(Value::Null) if !success => {}
            _ => return unverifiable("the answer does not echo our nonce (a replayed answer?)"),
        }
        if success {
            return Ok(Verified {
                status: answer.status,
                checked,
            });
        }
        Err(Error::Refused(refusal(
            answer.status,
            checked.raw,
            retry_after,
        )))
    }

    /// The key `kid` names, if trusted: a pinned one; without a pinned set, one the server
    /// publishes (fetched at first use, and once more per answer for a `kid` not seen yet).
    fn key_for(&self, kid: &str, refetched: &mut bool) -> Result<Option<Key>, Error> {
        if let Some(pinned) = &self.inner.pinned {
            return Ok(pinned.iter().find(|key| key.kid == kid).cloned());
        }
        let mut fetched = self.inner.fetched.lock().unwrap_or_else(|p| p.into_inner());
        let known = |keys: &Option<Vec<Key>>| {
            keys.as_ref()
                .and_then(|keys| keys.iter().find(|key| key.kid == kid).cloned())
        };
        if fetched.is_some() && (known(&fetched).is_some() || *refetched) {
            return Ok(known(&fetched));
        }
        *refetched = true;
        *fetched = Some(self.fetch_keys()?);
        Ok(known(&fetched))
    }

    fn fetch_keys(&self) -> Result<Vec<Key>, Error> {
        let url = self.url("/.well-known/jwks.json");
        let answer = self.send(&Request {
            method: "GET",
            url: &url,
            headers: &[("accept", "application/json")],
            json: None,
        })?;
        if answer.signed.status != 200 {
            return Err(Error::Unreachable(format!(
                "{url} answered {}",
                answer.signed.status
            )));
        }
        let text = String::from_utf8_lossy(&answer.signed.body);
        jwks::parse(&text).map_err(|error| Error::Unverifiable(format!("{url}: {error}")))
    }

    /// The keys a check without the network may use: pinned, else those fetched so far.
    fn keys_in_hand(&self) -> Vec<Key> {
        match &self.inner.pinned {
            Some(pinned) => pinned.clone(),
            None => self
                .inner
                .fetched
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone()
                .unwrap_or_default(),
        }
    }
}

/// A signed refusal as a [`Refusal`]: its code, or one named after its status.
fn refusal(status: u16, raw: Value, retry_after: Option<Duration>) -> Refusal {
    let empty = Map::new();
    let body = raw.as_object().unwrap_or(&empty);
    let code = string(body, "code").unwrap_or_else(|| Refusal::code_of_status(status));
    Refusal {
        code,
        message: string(body, "message").unwrap_or_default(),
        status,
        retry_after,
        raw,
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("config", &self.inner.config)
            .finish()
    }
}
