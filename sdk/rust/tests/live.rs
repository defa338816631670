//! Against a real, seeded depot (`bun sdk/conformance/start-depot.ts`): ignored by a plain
//! `cargo test`; sdk/rust/test.sh starts the depot and runs them with `--include-ignored`.

mod common;

use std::fs;
use std::sync::Mutex;

use common::{Fixture, TempDir};
use depot_client::{
    offline_activation_request, CheckoutOptions, Error, LicenseFileOptions, MachineDetails, Source,
    UpdateOptions,
};

/// machineKey has three seats: tests that take one take this lock, and free the seat after.
static SEATS: Mutex<()> = Mutex::new(());

fn seats() -> std::sync::MutexGuard<'static, ()> {
    SEATS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Frees the seat of a machine that has a license file: the vendor's API key, with `force`
/// (depot may keep such a machine's seat while its file is valid).
fn free_seat(f: &Fixture, machine_id: &str) {
    let url = format!(
        "{}/api/v1/machines/{machine_id}?force=true",
        f.get("server")
    );
    let response = ureq::delete(&url).set("x-api-key", &f.get("apiKey")).call();
    assert_eq!(response.map(|r| r.status()).ok(), Some(204), "DELETE {url}");
}

#[test]
#[ignore = "needs a seeded depot: sdk/rust/test.sh"]
fn validate_valid_not_found_product_mismatch_fingerprint_required() {
    let f = Fixture::load();
    let client = f.client();
    let valid = client.validate(&f.get("key"), None).unwrap();
    assert!(valid.valid);
    assert_eq!(valid.code, "VALID");
    assert_eq!(valid.license.unwrap().key, f.get("key"));

    let missing = client
        .validate("ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", None)
        .unwrap();
    assert_eq!((missing.valid, missing.code.as_str()), (false, "NOT_FOUND"));
    assert!(missing.license.is_none());

    let other = client.validate(&f.get("otherKey"), None).unwrap();
    assert_eq!(
        (other.valid, other.code.as_str()),
        (false, "PRODUCT_MISMATCH")
    );
    assert_eq!(other.license.unwrap().product_id, f.get("otherProductId"));

    let machines = client.validate(&f.get("machineKey"), None).unwrap();
    assert_eq!(machines.code, "FINGERPRINT_REQUIRED");
    assert_eq!(machines.machines.unwrap().max, Some(3));
}

#[test]
#[ignore = "needs a seeded depot: sdk/rust/test.sh"]
fn activate_201_then_200_validate_then_deactivate() {
    let f = Fixture::load();
    let client = f.client();
    let key = f.get("machineKey");
    let _seats = seats();
    let details = MachineDetails::new()
        .name("rust test")
        .platform("linux-x64")
        .hostname("ci");
    let first = client.activate(&key, "rust-activate", &details).unwrap();
    assert!(first.created);
    assert_eq!(first.machine.fingerprint, "rust-activate");
    assert_eq!(first.machine.name.as_deref(), Some("rust test"));
    assert_eq!(first.license.max_machines, Some(3));
    let again = client.activate(&key, "rust-activate", &details).unwrap();
    assert!(!again.created);
    assert_eq!(again.machine.id, first.machine.id);

    let validation = client.validate(&key, Some("rust-activate")).unwrap();
    assert!(validation.valid, "{validation:?}");
    assert_eq!(validation.machine.unwrap().id, first.machine.id);

    client.deactivate(&key, &first.machine.id).unwrap();
    assert_eq!(
        client.validate(&key, Some("rust-activate")).unwrap().code,
        "NOT_ACTIVATED"
    );
    match client.deactivate(&key, &first.machine.id) {
        Err(Error::Refused(refusal)) => {
            assert_eq!((refusal.status, refusal.code.as_str()), (404, "NOT_FOUND"))
        }
        other => panic!("{other:?}"),
    }
}

/// Passes once the server echoes the heartbeat's `?nonce=` (the branch that adds it).
#[test]
#[ignore = "needs a seeded depot: sdk/rust/test.sh"]
fn heartbeat() {
    let f = Fixture::load();
    let client = f.client();
    let key = f.get("machineKey");
    let _seats = seats();
    let machine = client
        .activate(&key, "rust-heartbeat", &MachineDetails::new())
        .unwrap()
        .machine;
    let beat = client.heartbeat(&key, &machine.id);
    client.deactivate(&key, &machine.id).unwrap();
    let beat = beat.unwrap();
    assert_eq!(beat.id, machine.id);
    assert!(beat.alive);
    // Another license's key: the machine is not found.
    let error = client.heartbeat(&f.get("key"), &machine.id).unwrap_err();
    assert_eq!(error.refusal_code(), Some("NOT_FOUND"));
}

#[test]
#[ignore = "needs a seeded depot: sdk/rust/test.sh"]
fn checkout_and_verify_the_license_file() {
    let f = Fixture::load();
    let client = f.client();
    let key = f.get("key");
    let checkout = client
        .checkout(&key, &CheckoutOptions::new().ttl(7200))
        .unwrap();
    assert!(checkout.valid);
    let text = checkout.license_file.expect("a license file");
    let file = client
        .verify_license_file(&text, &LicenseFileOptions::new().key(&key))
        .unwrap();
    assert_eq!(file.key, key);
    assert_eq!(file.product_id, f.get("productId"));
    assert_eq!(file.issuer, f.get("server"));
    let lifetime = file
        .expires_at
        .duration_since(file.issued_at)
        .unwrap()
        .as_secs();
    assert_eq!(lifetime, 7200);

    // A tampered payload.
    let jws: String = text.lines().filter(|l| !l.starts_with("-----")).collect();
    let parts: Vec<&str> = jws.split('.').collect();
    let mut claims: serde_json::Value =
        serde_json::from_slice(&base64::decode_config(parts[1], base64::URL_SAFE_NO_PAD).unwrap())
            .unwrap();
    claims["exp"] = (claims["exp"].as_i64().unwrap() + 365 * 86_400).into();
    let forged = base64::encode_config(claims.to_string(), base64::URL_SAFE_NO_PAD);
    let tampered = format!("{}.{forged}.{}", parts[0], parts[2]);
    assert!(matches!(
        client.verify_license_file(&tampered, &LicenseFileOptions::new()),
        Err(Error::Unverifiable(why)) if why.contains("signature")
    ));

    // Expired at `now`, unless within the grace.
    let after = file.expires_at + std::time::Duration::from_secs(60);
    assert!(matches!(
        client.verify_license_file(&text, &LicenseFileOptions::new().now(after)),
        Err(Error::Unverifiable(why)) if why.contains("expired")
    ));
    let graced = LicenseFileOptions::new()
        .now(after)
        .grace(std::time::Duration::from_secs(120));
    assert!(client.verify_license_file(&text, &graced).is_ok());

    // Not bound to a machine: refused when one is asked for.
    assert!(client
        .verify_license_file(&text, &LicenseFileOptions::new().fingerprint("fp"))
        .is_err());
}

#[test]
#[ignore = "needs a seeded depot: sdk/rust/test.sh"]
fn checkout_bound_to_a_machine() {
    let f = Fixture::load();
    let client = f.client();
    let key = f.get("machineKey");
    let _seats = seats();
    let machine = client
        .activate(&key, "rust-checkout", &MachineDetails::new())
        .unwrap()
        .machine;
    let checkout = client.checkout(&key, &CheckoutOptions::new().fingerprint("rust-checkout"));
    // The file works offline until it expires: the license key cannot free the seat before then.
    let deactivation = client.deactivate(&key, &machine.id);
    free_seat(&f, &machine.id);
    let text = checkout
        .unwrap()
        .license_file
        .expect("a machine-bound file");
    let bound = client
        .verify_license_file(
            &text,
            &LicenseFileOptions::new().fingerprint("rust-checkout"),
        )
        .unwrap();
    assert_eq!(bound.machine_id.as_deref(), Some(machine.id.as_str()));
    match deactivation {
        Err(Error::Refused(refusal)) => {
            assert_eq!(
                (refusal.code.as_str(), refusal.status),
                ("MACHINE_FILE_VALID", 409)
            );
            assert_eq!(refusal.file_expires_at(), Some(bound.expires_at));
        }
        other => panic!("deactivating a machine whose file is valid: {other:?}"),
    }
    assert!(matches!(
        client.verify_license_file(&text, &LicenseFileOptions::new().fingerprint("another-machine")),
        Err(Error::Unverifiable(why)) if why.contains("another machine")
    ));
}

#[test]
#[ignore = "needs a seeded depot: sdk/rust/test.sh"]
fn offline_activation_through_the_owners_route() {
    let f = Fixture::load();
    let client = f.client();
    let key = f.get("machineKey");
    let _seats = seats();
    let license_id = client.validate(&key, None).unwrap().license.unwrap().id;
    let request =
        offline_activation_request(&key, "rust-offline", &MachineDetails::new().name("Vault"));
    let answer = ureq::post(&format!(
        "{}/api/licenses/{license_id}/machines/offline",
        f.get("server")
    ))
    .set("authorization", &format!("Bearer {}", f.get("token")))
    .set("content-type", "application/json")
    .send_string(&serde_json::json!({ "request": request }).to_string());
    let answer: serde_json::Value = match answer {
        Ok(response) => {
            assert_eq!(response.status(), 201);
            serde_json::from_str(&response.into_string().unwrap()).unwrap()
        }
        Err(error) => panic!("{error}"),
    };
    let data = &answer["data"];
    let machine_id = data["machine"]["id"].as_str().unwrap().to_string();
    assert_eq!(data["machine"]["name"], "Vault");
    let text = data["license_file"].as_str().unwrap();
    let options = LicenseFileOptions::new()
        .key(&key)
        .fingerprint("rust-offline");
    let verified = client.verify_license_file(text, &options);
    free_seat(&f, &machine_id);
    assert_eq!(
        verified.unwrap().machine_id.as_deref(),
        Some(machine_id.as_str())
    );
    assert!(client
        .verify_license_file(text, &LicenseFileOptions::new().fingerprint("rust-other"))
        .is_err());
}

#[test]
#[ignore = "needs a seeded depot: sdk/rust/test.sh"]
fn check_for_update_and_download() {
    let f = Fixture::load();
    let client = f.client();
    let key = f.get("key");
    let linux = UpdateOptions::new().platform("linux").arch("x86_64");
    let upgrade = client.check_for_update(&key, "1.0.0", &linux).unwrap();
    assert!(upgrade.upgrade);
    let version = upgrade.version.unwrap();
    assert_eq!(version.version_number, "1.1.0");
    assert_eq!(version.artifacts.len(), 1);
    let artifact = &version.artifacts[0];
    assert_eq!(artifact.file_name, "desk-clock-1.1.0-linux-x86_64.tar.gz");
    let newest = client.check_for_update(&key, "1.1.0", &linux).unwrap();
    assert!(!newest.upgrade);
    assert!(newest.version.is_none());
    let invalid = client
        .check_for_update(&key, "not-semver", &linux)
        .unwrap_err();
    assert_eq!(invalid.refusal_code(), Some("INVALID"));

    let expected = b"desk-clock-1.1.0-linux-x86_64.tar.gz bytes\n";
    let dir = TempDir::new("live-download");
    let path = client.download(&key, artifact, &dir).unwrap();
    assert_eq!(fs::read(&path).unwrap(), expected);

    // Resumed from a partial .part.
    fs::remove_file(&path).unwrap();
    let part = dir.join(format!("{}.part", artifact.file_name));
    fs::write(&part, &expected[..10]).unwrap();
    let mut first = None;
    let path = client
        .download_with_progress(&key, artifact, &dir, |done, _| {
            first.get_or_insert(done);
        })
        .unwrap();
    assert_eq!(first, Some(10), "the download started from the .part");
    assert_eq!(fs::read(&path).unwrap(), expected);

    // A wrong hash: refused, the .part deleted, nothing renamed.
    fs::remove_file(&path).unwrap();
    let mut wrong = artifact.clone();
    wrong.sha256 = Some("0".repeat(64));
    assert!(matches!(
        client.download(&key, &wrong, &dir),
        Err(Error::Unverifiable(_))
    ));
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);

    // A hostile name: refused before a byte is written.
    let mut hostile = artifact.clone();
    hostile.file_name = "../escaped.tar.gz".into();
    assert!(matches!(
        client.download(&key, &hostile, &dir),
        Err(Error::Unverifiable(_))
    ));
    assert!(!dir.parent().unwrap().join("escaped.tar.gz").exists());
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);

    // Another product's key does not hold this one.
    let other = client
        .download(&f.get("otherKey"), artifact, &dir)
        .unwrap_err();
    assert_eq!(other.refusal_code(), Some("FORBIDDEN"));
}

#[test]
#[ignore = "needs a seeded depot: sdk/rust/test.sh"]
fn status_online() {
    let f = Fixture::load();
    let status = f.client().status(&f.get("key"), None);
    assert!(status.valid);
    assert_eq!(status.source, Source::Online);
    assert_eq!(status.code, "VALID");
}
