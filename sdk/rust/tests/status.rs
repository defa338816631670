//! status(): online, then from what is kept when the fake depot stops answering or lies.

mod common;

use std::fs;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use common::{now, valid_answer, FakeServer, Reply, Signer, TempDir, KEY};
use depot_client::{CheckoutOptions, Client, Config, Error, Source};
use serde_json::json;

const UP: u8 = 0;
const DOWN: u8 = 1;
const LYING: u8 = 2;

/// A fake depot that answers validate and checkout (with a license file) while `mode` is UP,
/// answers 503 while it is DOWN, and answers unsigned while it is LYING.
fn depot(signer: &Arc<Signer>, mode: &Arc<AtomicU8>) -> FakeServer {
    let (s, m) = (Arc::clone(signer), Arc::clone(mode));
    let url = Arc::new(std::sync::Mutex::new(String::new()));
    let own_url = Arc::clone(&url);
    let server = FakeServer::start(move |request, _| {
        let body = valid_answer(KEY, "1", request.nonce().as_deref());
        match m.load(Ordering::SeqCst) {
            DOWN => Reply::new(503, "down"),
            LYING => Reply::new(200, body).header("content-type", "application/json"),
            _ if request.path().ends_with("/checkout") => {
                let mut answer: serde_json::Value = serde_json::from_str(&body).unwrap();
                answer["license_file"] = s
                    .license_file(&json!({
                        "iss": *own_url.lock().unwrap(), "sub": "00000000-0000-4000-8000-000000000001",
                        "iat": now(), "exp": now() + 30 * 86_400, "key": KEY, "product_id": "1"
                    }))
                    .into();
                s.reply(200, &answer.to_string())
            }
            _ => s.reply(200, &body),
        }
    });
    *url.lock().unwrap() = server.url.clone();
    server
}

fn config(server: &FakeServer, signer: &Signer) -> Config {
    Config::new(&server.url, "1", signer.jwks()).retries(0)
}

fn later(days: u64) -> impl Fn() -> SystemTime + Send + Sync {
    let at = SystemTime::now() + Duration::from_secs(days * 86_400);
    move || at
}

#[test]
fn online_then_cache_then_license_file_then_none() {
    let signer = Arc::new(Signer::new("k1"));
    let mode = Arc::new(AtomicU8::new(UP));
    let server = depot(&signer, &mode);
    let client = Client::new(config(&server, &signer)).unwrap();

    let online = client.status(KEY, None);
    assert!(online.valid);
    assert_eq!(online.source, Source::Online);
    assert!(online.error.is_none());
    let checked_at = online.checked_at.unwrap();

    mode.store(DOWN, Ordering::SeqCst);
    let cached = client.status(KEY, None);
    assert!(cached.valid);
    assert_eq!(cached.source, Source::Cache);
    assert_eq!(cached.checked_at, Some(checked_at));
    assert!(matches!(cached.error, Some(Error::Unreachable(_))));

    // Another fingerprint is another validation: nothing kept for it.
    let none = client.status(KEY, Some("fp-2"));
    assert!(!none.valid);
    assert_eq!(
        (none.source, none.code.as_str()),
        (Source::None, "UNREACHABLE")
    );
    assert_eq!(none.checked_at, None);

    // A lying depot: unverifiable, and the kept answer stands in.
    mode.store(LYING, Ordering::SeqCst);
    let lied = client.status(KEY, None);
    assert_eq!(lied.source, Source::Cache);
    assert!(matches!(lied.error, Some(Error::Unverifiable(_))));
    assert_eq!(client.status("ZZZZZ-ZZZZZ", None).code, "UNVERIFIABLE");

    // Eight days on, past the grace: only a license file would do, and none was checked out.
    mode.store(DOWN, Ordering::SeqCst);
    // A new client without a state directory: nothing kept at all.
    let late = Client::new(config(&server, &signer).clock(later(8))).unwrap();
    let gone = late.status(KEY, None);
    assert_eq!((gone.source, gone.checked_at), (Source::None, None));
}

#[test]
fn a_refusal_of_the_validation_is_an_online_answer() {
    // depot's own answer: not valid, with the refusal's code, and nothing from what is kept.
    let signer = Arc::new(Signer::new("k1"));
    let refusing = Arc::new(AtomicU8::new(0));
    let (s, r) = (Arc::clone(&signer), Arc::clone(&refusing));
    let server = FakeServer::start(move |request, _| {
        if r.load(Ordering::SeqCst) == 1 {
            return s.reply(
                422,
                r#"{"message":"The key field is invalid.","errors":{"key":["bad"]}}"#,
            );
        }
        s.reply(200, &valid_answer(KEY, "1", request.nonce().as_deref()))
    });
    let client = Client::new(config(&server, &signer)).unwrap();
    assert_eq!(client.status(KEY, None).source, Source::Online);
    refusing.store(1, Ordering::SeqCst);
    let status = client.status(KEY, None);
    assert_eq!(
        (status.valid, status.code.as_str(), status.source),
        (false, "INVALID", Source::Online)
    );
    assert!(matches!(status.error, Some(Error::Refused(_))));
    assert!(status.validation.is_none());
}

#[test]
fn past_the_grace_the_status_still_says_when_depot_last_answered() {
    let signer = Arc::new(Signer::new("k1"));
    let mode = Arc::new(AtomicU8::new(UP));
    let server = depot(&signer, &mode);
    let dir = TempDir::unmade("state-last-answer");
    let client = Client::new(config(&server, &signer).state_dir(&dir)).unwrap();
    let checked_at = client.status(KEY, None).checked_at;
    mode.store(DOWN, Ordering::SeqCst);
    let late = Client::new(config(&server, &signer).state_dir(&dir).clock(later(8))).unwrap();
    let status = late.status(KEY, None);
    assert_eq!((status.valid, status.source), (false, Source::None));
    assert_eq!(status.code, "UNREACHABLE");
    assert_eq!(status.checked_at, checked_at);
}

#[test]
fn a_checked_out_license_file_carries_past_the_grace() {
    let signer = Arc::new(Signer::new("k1"));
    let mode = Arc::new(AtomicU8::new(UP));
    let server = depot(&signer, &mode);
    let dir = TempDir::unmade("state-file");
    let client = Client::new(config(&server, &signer).state_dir(&dir)).unwrap();
    let checkout = client.checkout(KEY, &CheckoutOptions::new()).unwrap();
    assert!(checkout.license_file.is_some());
    assert_eq!(client.status(KEY, None).source, Source::Online);

    mode.store(DOWN, Ordering::SeqCst);
    // A new client on the same state directory: the grace survives a restart.
    let restarted = Client::new(config(&server, &signer).state_dir(&dir)).unwrap();
    assert_eq!(restarted.status(KEY, None).source, Source::Cache);

    let late = Client::new(config(&server, &signer).state_dir(&dir).clock(later(8))).unwrap();
    let status = late.status(KEY, None);
    assert!(status.valid, "{status:?}");
    assert_eq!(status.source, Source::LicenseFile);
    assert_eq!(status.code, "VALID");
    assert_eq!(status.license_file.unwrap().key, KEY);
    // The file is bound to no machine: asked with a fingerprint it does not count.
    assert_eq!(late.status(KEY, Some("fp-1")).source, Source::None);

    // Past the file's own exp, nothing is left.
    let later = Client::new(config(&server, &signer).state_dir(&dir).clock(later(31))).unwrap();
    assert_eq!(later.status(KEY, None).source, Source::None);
}

#[test]
fn a_kept_answer_edited_on_disk_is_not_trusted() {
    let signer = Arc::new(Signer::new("k1"));
    let mode = Arc::new(AtomicU8::new(UP));
    let server = depot(&signer, &mode);
    let dir = TempDir::unmade("state-edited");
    let client = Client::new(config(&server, &signer).state_dir(&dir)).unwrap();
    assert_eq!(client.status(KEY, None).source, Source::Online);

    let kept = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".json"))
        .unwrap();
    let mut record: serde_json::Value = serde_json::from_slice(&fs::read(&kept).unwrap()).unwrap();
    let body =
        String::from_utf8(base64::decode(record["body"].as_str().unwrap()).unwrap()).unwrap();
    let edited = body.replace("\"maxIps\":5", "\"maxIps\":500");
    assert_ne!(body, edited);
    record["body"] = base64::encode(edited).into();
    fs::write(&kept, record.to_string()).unwrap();

    mode.store(DOWN, Ordering::SeqCst);
    let restarted = Client::new(config(&server, &signer).state_dir(&dir)).unwrap();
    let status = restarted.status(KEY, None);
    assert_eq!(status.source, Source::None, "{status:?}");
}

#[test]
fn a_kept_answer_from_the_future_is_not_trusted() {
    let signer = Arc::new(Signer::new("k1"));
    let mode = Arc::new(AtomicU8::new(UP));
    let server = depot(&signer, &mode);
    let dir = TempDir::unmade("state-future");
    let client = Client::new(config(&server, &signer).state_dir(&dir)).unwrap();
    assert_eq!(client.status(KEY, None).source, Source::Online);
    mode.store(DOWN, Ordering::SeqCst);
    // The clock set back a day: the answer would be from tomorrow.
    let yesterday = SystemTime::now() - Duration::from_secs(86_400);
    let earlier = Client::new(
        config(&server, &signer)
            .state_dir(&dir)
            .clock(move || yesterday),
    )
    .unwrap();
    assert_eq!(earlier.status(KEY, None).source, Source::None);
}
