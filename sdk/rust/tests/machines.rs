//! activate, heartbeat, the background heartbeat and deactivate against a fake server.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{license, machine, FakeServer, Reply, Signer, KEY};
use depot_client::{Client, Config, Error, HeartbeatOptions, MachineDetails};

const MACHINE_ID: &str = "5f0c6a52-3c36-4c5e-9b7e-0a8f4c1d2e3f";

fn client(server: &FakeServer, signer: &Signer) -> Client {
    Client::new(
        Config::new(&server.url, "1", signer.jwks())
            .timeout(Duration::from_secs(2))
            .retries(0),
    )
    .unwrap()
}

fn activation(request: &common::Request, fingerprint: &str, product: &str) -> String {
    serde_json::json!({
        "machine": machine(MACHINE_ID, fingerprint),
        "license": license(KEY, product),
        "nonce": request.nonce(),
    })
    .to_string()
}

#[test]
fn an_activation_is_verified_201_new_200_already() {
    let signer = Arc::new(Signer::new("k1"));
    let s = Arc::clone(&signer);
    let server = FakeServer::start(move |r, count| {
        s.reply(
            if count == 0 { 201 } else { 200 },
            &activation(r, "fp-1", "1"),
        )
    });
    let client = client(&server, &signer);
    let details = MachineDetails::new()
        .name("Ada's laptop")
        .platform("linux-x64");
    let first = client.activate(KEY, "fp-1", &details).unwrap();
    assert!(first.created);
    assert_eq!(first.machine.id, MACHINE_ID);
    assert_eq!(first.license.key, KEY);
    assert!(!client.activate(KEY, "fp-1", &details).unwrap().created);

    let body = server.requests()[0].json();
    assert_eq!(server.requests()[0].path(), "/api/v1/licenses/activate");
    assert_eq!(body["key"], KEY);
    assert_eq!(body["fingerprint"], "fp-1");
    assert_eq!(body["name"], "Ada's laptop");
    assert_eq!(body["platform"], "linux-x64");
    assert!(body.get("hostname").is_none());
    assert_eq!(body["nonce"].as_str().unwrap().len(), 22);
}

#[test]
fn an_activation_about_another_machine_is_unverifiable() {
    let signer = Arc::new(Signer::new("k1"));
    let s = Arc::clone(&signer);
    let server = FakeServer::start(move |r, _| s.reply(201, &activation(r, "fp-other", "1")));
    match client(&server, &signer).activate(KEY, "fp-1", &MachineDetails::new()) {
        Err(Error::Unverifiable(why)) => assert!(why.contains("another machine"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_activation_on_a_license_of_another_product_is_refused() {
    // Activation names no product: depot's answer about this key says the seat is another
    // product's, which is a refusal rather than a forgery.
    let signer = Arc::new(Signer::new("k1"));
    let s = Arc::clone(&signer);
    let server = FakeServer::start(move |r, _| s.reply(201, &activation(r, "fp-1", "2")));
    match client(&server, &signer).activate(KEY, "fp-1", &MachineDetails::new()) {
        Err(Error::Refused(refusal)) => {
            assert_eq!(
                (refusal.code.as_str(), refusal.status),
                ("PRODUCT_MISMATCH", 201)
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn coded_refusals_are_typed() {
    let signer = Arc::new(Signer::new("k1"));
    let s = Arc::clone(&signer);
    let server = FakeServer::start(move |_, count| {
        match count {
        0 => s.reply(409, r#"{"code":"TOO_MANY_MACHINES","message":"This license is already active on its maximum of 2 machines."}"#),
        1 => s
            .reply(429, r#"{"code":"TOO_MANY_ACTIVATIONS","message":"Too many activations today."}"#)
            .header("retry-after", "86400"),
        2 => s.reply(403, r#"{"code":"REVOKED","message":"This license has been revoked."}"#),
        // An unsigned refusal is anyone's.
        _ => Reply::new(404, r#"{"code":"NOT_FOUND","message":"No license has this key."}"#)
            .header("content-type", "application/json"),
    }
    });
    let client = client(&server, &signer);
    let activate = || client.activate(KEY, "fp-1", &MachineDetails::new());
    match activate() {
        Err(Error::Refused(refusal)) => {
            assert_eq!(refusal.code, "TOO_MANY_MACHINES");
            assert_eq!(refusal.status, 409);
            assert!(refusal.message.contains("maximum of 2"));
        }
        other => panic!("{other:?}"),
    }
    match activate() {
        Err(Error::Refused(refusal)) => {
            assert_eq!(refusal.code, "TOO_MANY_ACTIVATIONS");
            assert_eq!(refusal.retry_after, Some(Duration::from_secs(86_400)));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(activate().unwrap_err().refusal_code(), Some("REVOKED"));
    assert!(matches!(activate(), Err(Error::Unverifiable(_))));
}

fn heartbeat_answer(request: &common::Request, id: &str) -> String {
    serde_json::json!({ "machine": machine(id, "fp-1"), "nonce": request.nonce() }).to_string()
}

#[test]
fn a_heartbeat_is_verified() {
    let signer = Arc::new(Signer::new("k1"));
    let s = Arc::clone(&signer);
    let server = FakeServer::start(move |r, _| s.reply(200, &heartbeat_answer(r, MACHINE_ID)));
    let machine = client(&server, &signer).heartbeat(KEY, MACHINE_ID).unwrap();
    assert!(machine.alive);
    let request = &server.requests()[0];
    assert_eq!(request.method, "POST");
    assert_eq!(
        request.path(),
        format!("/api/v1/machines/{MACHINE_ID}/heartbeat")
    );
    assert_eq!(
        request.header("authorization"),
        Some(format!("License {KEY}").as_str())
    );
    assert_eq!(request.query("nonce").unwrap().len(), 22);
}

#[test]
fn a_heartbeat_about_another_machine_or_without_our_nonce_is_unverifiable() {
    let signer = Arc::new(Signer::new("k1"));
    let s = Arc::clone(&signer);
    let server = FakeServer::start(move |r, _| s.reply(200, &heartbeat_answer(r, "another")));
    assert!(matches!(
        client(&server, &signer).heartbeat(KEY, MACHINE_ID),
        Err(Error::Unverifiable(why)) if why.contains("another machine")
    ));
    let s = Arc::clone(&signer);
    let server = FakeServer::start(move |_, _| {
        s.reply(
            200,
            &serde_json::json!({ "machine": machine(MACHINE_ID, "fp-1") }).to_string(),
        )
    });
    assert!(matches!(
        client(&server, &signer).heartbeat(KEY, MACHINE_ID),
        Err(Error::Unverifiable(why)) if why.contains("nonce")
    ));
}

#[test]
fn a_dead_machine_is_refused() {
    let signer = Arc::new(Signer::new("k1"));
    let s = Arc::clone(&signer);
    let server = FakeServer::start(move |_, _| {
        s.reply(410, r#"{"code":"HEARTBEAT_DEAD","message":"This machine missed its heartbeats; activate it again."}"#)
    });
    let error = client(&server, &signer)
        .heartbeat(KEY, MACHINE_ID)
        .unwrap_err();
    assert_eq!(error.refusal_code(), Some("HEARTBEAT_DEAD"));
}

#[test]
fn the_background_heartbeat_beats_until_stopped() {
    let signer = Arc::new(Signer::new("k1"));
    let s = Arc::clone(&signer);
    let server = FakeServer::start(move |r, _| s.reply(200, &heartbeat_answer(r, MACHINE_ID)));
    let client = client(&server, &signer);
    let heartbeat = client.start_heartbeat(
        KEY,
        MACHINE_ID,
        HeartbeatOptions::new().interval(Duration::from_millis(50)),
    );
    std::thread::sleep(Duration::from_millis(400));
    assert!(heartbeat.is_running());
    assert_eq!(heartbeat.last_error(), None);
    heartbeat.stop();
    let beats = server.requests().len();
    assert!(beats >= 3, "{beats} heartbeats in 400 ms");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(server.requests().len(), beats, "no heartbeat after stop()");
}

#[test]
fn the_background_heartbeat_beats_at_once() {
    let signer = Arc::new(Signer::new("k1"));
    let s = Arc::clone(&signer);
    let server = FakeServer::start(move |r, _| s.reply(200, &heartbeat_answer(r, MACHINE_ID)));
    let client = client(&server, &signer);
    let heartbeat = client.start_heartbeat(KEY, MACHINE_ID, HeartbeatOptions::new());
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while server.requests().is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        server.requests().len(),
        1,
        "the first heartbeat goes at once"
    );
    heartbeat.stop();
}

#[test]
fn dropping_the_handle_stops_the_heartbeat() {
    let signer = Arc::new(Signer::new("k1"));
    let s = Arc::clone(&signer);
    let server = FakeServer::start(move |r, _| s.reply(200, &heartbeat_answer(r, MACHINE_ID)));
    let client = client(&server, &signer);
    {
        let _heartbeat = client.start_heartbeat(
            KEY,
            MACHINE_ID,
            HeartbeatOptions::new().interval(Duration::from_millis(20)),
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let beats = server.requests().len();
    std::thread::sleep(Duration::from_millis(150));
    assert_eq!(server.requests().len(), beats);
}

#[test]
fn the_background_heartbeat_reports_errors_and_ends_on_a_refusal() {
    let signer = Arc::new(Signer::new("k1"));
    let s = Arc::clone(&signer);
    let server = FakeServer::start(move |r, count| match count {
        // Unverifiable once: reported, and it beats on.
        0 => Reply::new(200, heartbeat_answer(r, MACHINE_ID))
            .header("content-type", "application/json"),
        1 => s.reply(200, &heartbeat_answer(r, MACHINE_ID)),
        _ => s.reply(
            410,
            r#"{"code":"HEARTBEAT_DEAD","message":"activate it again"}"#,
        ),
    });
    let client = client(&server, &signer);
    let errors = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&errors);
    let heartbeat = client.start_heartbeat(
        KEY,
        MACHINE_ID,
        HeartbeatOptions::new()
            .interval(Duration::from_millis(30))
            .on_error(move |error| seen.lock().unwrap().push(error.to_string())),
    );
    std::thread::sleep(Duration::from_millis(400));
    assert!(!heartbeat.is_running(), "a refusal ends it");
    assert_eq!(server.requests().len(), 3);
    let errors = errors.lock().unwrap();
    assert_eq!(errors.len(), 2);
    assert!(errors[0].contains("not signed"));
    assert!(errors[1].contains("HEARTBEAT_DEAD"));
    assert!(heartbeat.last_error().unwrap().contains("HEARTBEAT_DEAD"));
}

#[test]
fn deactivate_takes_the_unsigned_204_and_verifies_refusals() {
    let signer = Arc::new(Signer::new("k1"));
    let s = Arc::clone(&signer);
    let calls = AtomicUsize::new(0);
    let server = FakeServer::start(move |_, _| {
        if calls.fetch_add(1, Ordering::SeqCst) == 0 {
            Reply::new(204, "")
        } else {
            s.reply(404, r#"{"message":"Machine not found."}"#)
        }
    });
    let client = client(&server, &signer);
    client.deactivate(KEY, MACHINE_ID).unwrap();
    let request = &server.requests()[0];
    assert_eq!(request.method, "DELETE");
    assert_eq!(request.path(), format!("/api/v1/machines/{MACHINE_ID}"));
    assert_eq!(
        request.header("authorization"),
        Some(format!("License {KEY}").as_str())
    );
    match client.deactivate(KEY, MACHINE_ID) {
        Err(Error::Refused(refusal)) => {
            assert_eq!(refusal.code, "NOT_FOUND");
            assert_eq!(refusal.message, "Machine not found.");
            assert_eq!(refusal.file_expires_at(), None);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn deactivating_a_machine_whose_file_is_valid_is_refused_with_its_expiry() {
    let signer = Arc::new(Signer::new("k1"));
    let s = Arc::clone(&signer);
    let server = FakeServer::start(move |_, _| {
        s.reply(
            409,
            r#"{"code":"MACHINE_FILE_VALID","message":"This machine holds its seat.","fileExpiresAt":"2026-12-04T23:12:21.000Z"}"#,
        )
    });
    match client(&server, &signer).deactivate(KEY, MACHINE_ID) {
        Err(Error::Refused(refusal)) => {
            assert_eq!(
                (refusal.code.as_str(), refusal.status),
                ("MACHINE_FILE_VALID", 409)
            );
            assert_eq!(
                refusal.file_expires_at(),
                Some(std::time::UNIX_EPOCH + Duration::from_secs(1_796_425_941))
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        server.requests()[0].query("nonce"),
        None,
        "depot takes no nonce there"
    );
}
