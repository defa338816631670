//! verify_license_file offline, with files signed by a key made here (and pinned).

mod common;

use std::time::{Duration, UNIX_EPOCH};

use common::{now, Signer, KEY};
use depot_client::{Client, Config, Error, LicenseFileOptions};
use serde_json::{json, Value};

const SERVER: &str = "http://127.0.0.1:18123";

fn claims() -> Value {
    let now = now();
    json!({
        "iss": SERVER, "sub": "00000000-0000-4000-8000-000000000001",
        "iat": now, "exp": now + 86_400, "key": KEY, "product_id": "1",
        "user_id": "1", "creator_id": "1", "max_ips": 5, "expires": null,
        "fingerprint": "fp-1", "machine_id": "m-1"
    })
}

fn with(changes: Value) -> Value {
    let mut claims = claims();
    for (name, value) in changes.as_object().unwrap() {
        if value.is_null() {
            claims.as_object_mut().unwrap().remove(name);
        } else {
            claims[name] = value.clone();
        }
    }
    claims
}

fn client(signer: &Signer) -> Client {
    // A trailing slash on the server is not part of the issuer.
    Client::new(Config::new(format!("{SERVER}/"), "1", signer.jwks())).unwrap()
}

fn refused(result: Result<depot_client::LicenseFile, Error>, reason: &str) {
    match result {
        Err(Error::Unverifiable(why)) => {
            assert!(why.contains(reason), "{why:?} does not say {reason:?}")
        }
        other => panic!("expected Unverifiable({reason:?}), got {other:?}"),
    }
}

#[test]
fn a_good_file_verifies_with_its_key_and_fingerprint() {
    let signer = Signer::new("k1");
    let text = signer.license_file(&claims());
    let options = LicenseFileOptions::new()
        .key(KEY.to_lowercase())
        .fingerprint("fp-1");
    let file = client(&signer)
        .verify_license_file(&text, &options)
        .unwrap();
    assert_eq!(file.key, KEY);
    assert_eq!(file.product_id, "1");
    assert_eq!(file.fingerprint.as_deref(), Some("fp-1"));
    assert_eq!(file.machine_id.as_deref(), Some("m-1"));
    assert_eq!(file.issuer, SERVER);
    assert_eq!(file.claims["max_ips"], 5);
    // Without the armour lines, and with CRLF line breaks, it is the same JWS.
    let bare: String = text
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .collect::<Vec<_>>()
        .join("\r\n");
    assert!(client(&signer)
        .verify_license_file(&bare, &LicenseFileOptions::new())
        .is_ok());
}

#[test]
fn a_tampered_payload_does_not_verify() {
    let signer = Signer::new("k1");
    let text = signer.license_file(&claims());
    let jws: String = text.lines().filter(|l| !l.starts_with("-----")).collect();
    let parts: Vec<&str> = jws.split('.').collect();
    let forged = base64::encode_config(
        with(json!({"exp": now() + 10 * 365 * 86_400})).to_string(),
        base64::URL_SAFE_NO_PAD,
    );
    let tampered = format!("{}.{}.{}", parts[0], forged, parts[2]);
    refused(
        client(&signer).verify_license_file(&tampered, &LicenseFileOptions::new()),
        "signature does not verify",
    );
}

#[test]
fn another_key_or_kid_does_not_verify() {
    let pinned = Signer::new("k1");
    let forger = Signer::new("k1");
    refused(
        client(&pinned)
            .verify_license_file(&forger.license_file(&claims()), &LicenseFileOptions::new()),
        "signature does not verify",
    );
    let stranger = Signer::new("k2");
    refused(
        client(&pinned).verify_license_file(
            &stranger.license_file(&claims()),
            &LicenseFileOptions::new(),
        ),
        "\"k2\" is not pinned",
    );
}

#[test]
fn the_header_must_be_depots() {
    let signer = Signer::new("k1");
    for (header, reason) in [
        (
            json!({"alg": "none", "typ": "depot-license+jwt", "kid": "k1"}),
            "alg",
        ),
        (json!({"alg": "EdDSA", "typ": "JWT", "kid": "k1"}), "typ"),
        (json!({"alg": "EdDSA", "typ": "depot-license+jwt"}), "kid"),
    ] {
        let text = signer.license_file_with_header(&header, &claims());
        refused(
            client(&signer).verify_license_file(&text, &LicenseFileOptions::new()),
            reason,
        );
    }
    refused(
        client(&signer).verify_license_file(
            "-----BEGIN DEPOT LICENSE FILE-----\nabc",
            &LicenseFileOptions::new(),
        ),
        "no DEPOT LICENSE FILE block",
    );
    refused(
        client(&signer).verify_license_file("a.b", &LicenseFileOptions::new()),
        "not a compact JWS",
    );
}

#[test]
fn another_fingerprint_or_none_is_refused_when_one_is_given() {
    let signer = Signer::new("k1");
    let text = signer.license_file(&claims());
    refused(
        client(&signer).verify_license_file(&text, &LicenseFileOptions::new().fingerprint("fp-2")),
        "bound to another machine",
    );
    let unbound = signer.license_file(&with(json!({"fingerprint": null, "machine_id": null})));
    refused(
        client(&signer)
            .verify_license_file(&unbound, &LicenseFileOptions::new().fingerprint("fp-1")),
        "not bound to a machine",
    );
    assert!(client(&signer)
        .verify_license_file(&unbound, &LicenseFileOptions::new())
        .is_ok());
}

#[test]
fn an_expired_file_is_refused_unless_within_the_grace() {
    let signer = Signer::new("k1");
    let text = signer.license_file(&claims());
    let after = UNIX_EPOCH + Duration::from_secs((now() + 86_400 + 3600) as u64);
    refused(
        client(&signer).verify_license_file(&text, &LicenseFileOptions::new().now(after)),
        "expired",
    );
    let options = LicenseFileOptions::new()
        .now(after)
        .grace(Duration::from_secs(2 * 3600));
    assert!(client(&signer).verify_license_file(&text, &options).is_ok());
    // The client's clock is the default "now".
    let late = Client::new(Config::new(SERVER, "1", signer.jwks()).clock(move || after)).unwrap();
    refused(
        late.verify_license_file(&text, &LicenseFileOptions::new()),
        "expired",
    );
}

#[test]
fn a_file_from_the_future_is_refused() {
    let signer = Signer::new("k1");
    let nbf = signer.license_file(&with(json!({"nbf": now() + 3600})));
    refused(
        client(&signer).verify_license_file(&nbf, &LicenseFileOptions::new()),
        "not valid yet",
    );
    let iat = signer.license_file(&with(json!({"iat": now() + 3600})));
    refused(
        client(&signer).verify_license_file(&iat, &LicenseFileOptions::new()),
        "issued in the future",
    );
    let soon = signer.license_file(&with(json!({"nbf": now() + 60})));
    assert!(
        client(&signer)
            .verify_license_file(&soon, &LicenseFileOptions::new())
            .is_ok(),
        "within the skew"
    );
}

#[test]
fn another_issuer_product_or_key_is_refused() {
    let signer = Signer::new("k1");
    let other = signer.license_file(&with(json!({"iss": "http://localhost:8080"})));
    refused(
        client(&signer).verify_license_file(&other, &LicenseFileOptions::new()),
        "the file was issued by \"http://localhost:8080\", expected \"http://127.0.0.1:18123\"",
    );
    let product = signer.license_file(&with(json!({"product_id": "2"})));
    refused(
        client(&signer).verify_license_file(&product, &LicenseFileOptions::new()),
        "for product 2, not 1",
    );
    let text = signer.license_file(&claims());
    refused(
        client(&signer).verify_license_file(&text, &LicenseFileOptions::new().key("ZZZZZ-ZZZZZ")),
        "another license key",
    );
    let no_exp = signer.license_file(&with(json!({"exp": null})));
    refused(
        client(&signer).verify_license_file(&no_exp, &LicenseFileOptions::new()),
        "no exp claim",
    );
}
