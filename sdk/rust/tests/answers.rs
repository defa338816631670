//! validate and check_for_update against a fake server: each answer is wrong in one way only
//! (signed by a key made here and pinned, so that only the thing under test fails).

mod common;

use std::time::{Duration, Instant};

use common::{now, valid_answer, FakeServer, Reply, Signer, KEY};
use depot_client::{Client, Config, Error, UpdateOptions};

fn config(server: &FakeServer, signer: &Signer) -> Config {
    Config::new(&server.url, "1", signer.jwks())
        .timeout(Duration::from_secs(2))
        .max_retry_wait(Duration::from_secs(5))
}

fn client(server: &FakeServer, signer: &Signer) -> Client {
    Client::new(config(server, signer)).unwrap()
}

fn unverifiable(result: Result<impl std::fmt::Debug, Error>, reason: &str) {
    match result {
        Err(Error::Unverifiable(why)) => {
            assert!(why.contains(reason), "{why:?} does not say {reason:?}")
        }
        other => panic!("expected Unverifiable({reason:?}), got {other:?}"),
    }
}

#[test]
fn a_valid_answer_is_verified_and_read() {
    let signer = std::sync::Arc::new(Signer::new("k1"));
    let s = std::sync::Arc::clone(&signer);
    let server =
        FakeServer::start(move |r, _| s.reply(200, &valid_answer(KEY, "1", r.nonce().as_deref())));
    let client = client(&server, &signer);

    let validation = client
        .validate(" aaaaa-bbbbb-ccccc-ddddd-eeeee ", None)
        .unwrap();
    assert!(validation.valid);
    assert_eq!(validation.code, "VALID");
    assert_eq!(validation.license.as_ref().unwrap().product_id, "1");
    assert_eq!(validation.ips.unwrap().max, Some(5));
    assert!((depot_client_time(validation.signed_at) - now()).abs() <= 1);

    let request = &server.requests()[0];
    assert_eq!(request.method, "POST");
    assert_eq!(request.path(), "/api/v1/licenses/validate");
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(
        request.header("user-agent"),
        Some("depot-client-rust/0.1.0")
    );
    let body = request.json();
    assert_eq!(body["key"], " aaaaa-bbbbb-ccccc-ddddd-eeeee ");
    assert_eq!(body["productId"], "1");
    assert!(body.get("fingerprint").is_none());
}

fn depot_client_time(time: std::time::SystemTime) -> i64 {
    time.duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

#[test]
fn every_request_has_a_fresh_random_nonce() {
    let signer = std::sync::Arc::new(Signer::new("k1"));
    let s = std::sync::Arc::clone(&signer);
    let server = FakeServer::start(move |r, _| {
        let mut body: serde_json::Value =
            serde_json::from_str(&valid_answer(KEY, "1", r.nonce().as_deref())).unwrap();
        body["machine"] = common::machine("m-1", "fp-1");
        s.reply(200, &body.to_string())
    });
    let client = client(&server, &signer);
    client.validate(KEY, Some("fp-1")).unwrap();
    client.validate(KEY, Some("fp-1")).unwrap();
    let nonces: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.nonce().unwrap())
        .collect();
    assert_eq!(nonces[0].len(), 22);
    assert!(
        base64::decode_config(&nonces[0], base64::URL_SAFE_NO_PAD)
            .unwrap()
            .len()
            == 16
    );
    assert_ne!(nonces[0], nonces[1]);
    assert_eq!(server.requests()[0].json()["fingerprint"], "fp-1");
}

/// A server answering every request with `reply(request)`.
fn serve(reply: impl Fn(&common::Request) -> Reply + Send + Sync + 'static) -> FakeServer {
    FakeServer::start(move |r, _| reply(r))
}

fn shared(kid: &str) -> std::sync::Arc<Signer> {
    std::sync::Arc::new(Signer::new(kid))
}

#[test]
fn an_unsigned_answer_is_unverifiable() {
    let signer = shared("k1");
    let server = serve(|r| {
        Reply::new(200, valid_answer(KEY, "1", r.nonce().as_deref()))
            .header("content-type", "application/json")
    });
    unverifiable(client(&server, &signer).validate(KEY, None), "not signed");
}

#[test]
fn a_body_changed_after_signing_is_unverifiable() {
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |r| {
        let body = valid_answer(KEY, "1", r.nonce().as_deref());
        let mut reply = s.reply(200, &body.replace("\"valid\":true", "\"valid\":false"));
        reply.body = body.into_bytes();
        reply
    });
    unverifiable(
        client(&server, &signer).validate(KEY, None),
        "does not match its Content-Digest",
    );
}

#[test]
fn an_unknown_kid_is_unverifiable() {
    let pinned = shared("k1");
    let other = shared("k2");
    let o = std::sync::Arc::clone(&other);
    let server = serve(move |r| o.reply(200, &valid_answer(KEY, "1", r.nonce().as_deref())));
    unverifiable(
        client(&server, &pinned).validate(KEY, None),
        "\"k2\" is not pinned",
    );
}

#[test]
fn another_key_under_the_pinned_kid_is_unverifiable() {
    let pinned = shared("k1");
    let forger = shared("k1");
    let f = std::sync::Arc::clone(&forger);
    let server = serve(move |r| f.reply(200, &valid_answer(KEY, "1", r.nonce().as_deref())));
    unverifiable(
        client(&server, &pinned).validate(KEY, None),
        "signature does not verify",
    );
}

#[test]
fn a_signature_over_other_components_is_unverifiable() {
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |r| {
        let reply = s.reply(200, &valid_answer(KEY, "1", r.nonce().as_deref()));
        let input = reply
            .get("signature-input")
            .unwrap()
            .replace(r#" "content-type""#, "");
        reply.header("signature-input", input)
    });
    unverifiable(
        client(&server, &signer).validate(KEY, None),
        "does not cover exactly",
    );
}

#[test]
fn created_must_be_within_the_skew() {
    let signer = shared("k1");
    for (offset, ok) in [(-301, false), (301, false), (-200, true), (200, true)] {
        let s = std::sync::Arc::clone(&signer);
        let server = serve(move |r| {
            s.reply_at(
                200,
                &valid_answer(KEY, "1", r.nonce().as_deref()),
                now() + offset,
                "k1",
            )
        });
        let result = client(&server, &signer).validate(KEY, None);
        if ok {
            assert!(result.is_ok(), "{offset}: {result:?}");
        } else {
            unverifiable(result, "the signature was created");
        }
    }
}

#[test]
fn the_skew_is_a_setting() {
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |r| {
        s.reply_at(
            200,
            &valid_answer(KEY, "1", r.nonce().as_deref()),
            now() - 100,
            "k1",
        )
    });
    let client =
        Client::new(config(&server, &signer).max_clock_skew(Duration::from_secs(60))).unwrap();
    unverifiable(client.validate(KEY, None), "more than 60 s");
}

#[test]
fn another_nonce_is_unverifiable() {
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |_| s.reply(200, &valid_answer(KEY, "1", Some("recorded-earlier"))));
    unverifiable(client(&server, &signer).validate(KEY, None), "nonce");
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |_| s.reply(200, &valid_answer(KEY, "1", None)));
    unverifiable(client(&server, &signer).validate(KEY, None), "nonce");
}

#[test]
fn another_license_key_echoed_is_unverifiable() {
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |r| {
        s.reply(
            200,
            &valid_answer("ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ", "1", r.nonce().as_deref()),
        )
    });
    unverifiable(
        client(&server, &signer).validate(KEY, None),
        "another license key",
    );
}

#[test]
fn another_product_is_unverifiable_unless_depot_says_it_differs() {
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |r| s.reply(200, &valid_answer(KEY, "2", r.nonce().as_deref())));
    unverifiable(
        client(&server, &signer).validate(KEY, None),
        "product 2, not 1",
    );

    let mismatch = |product: &'static str| {
        let s = std::sync::Arc::clone(&signer);
        serve(move |r| {
            let mut body: serde_json::Value =
                serde_json::from_str(&valid_answer(KEY, product, r.nonce().as_deref())).unwrap();
            body["valid"] = false.into();
            body["code"] = "PRODUCT_MISMATCH".into();
            s.reply(200, &body.to_string())
        })
    };
    let server = mismatch("2");
    let validation = client(&server, &signer).validate(KEY, None).unwrap();
    assert!(!validation.valid);
    assert_eq!(validation.code, "PRODUCT_MISMATCH");
    let server = mismatch("1");
    unverifiable(
        client(&server, &signer).validate(KEY, None),
        "PRODUCT_MISMATCH about this very product",
    );
}

#[test]
fn another_machine_echoed_is_unverifiable() {
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |r| {
        let mut body: serde_json::Value =
            serde_json::from_str(&valid_answer(KEY, "1", r.nonce().as_deref())).unwrap();
        body["machine"] = common::machine("m-1", "fp-other");
        s.reply(200, &body.to_string())
    });
    unverifiable(
        client(&server, &signer).validate(KEY, Some("fp-1")),
        "another machine",
    );
}

#[test]
fn a_validation_with_a_fingerprint_must_name_the_machine() {
    // depot names the machine (or null) whenever a fingerprint came: without it, the request lost it.
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |r| s.reply(200, &valid_answer(KEY, "1", r.nonce().as_deref())));
    unverifiable(
        client(&server, &signer).validate(KEY, Some("fp-1")),
        "no machine",
    );
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |r| {
        let mut body: serde_json::Value =
            serde_json::from_str(&valid_answer(KEY, "1", r.nonce().as_deref())).unwrap();
        body["valid"] = false.into();
        body["code"] = "NOT_ACTIVATED".into();
        body["machine"] = serde_json::Value::Null;
        s.reply(200, &body.to_string())
    });
    let validation = client(&server, &signer)
        .validate(KEY, Some("fp-1"))
        .unwrap();
    assert_eq!(validation.code, "NOT_ACTIVATED");
}

#[test]
fn refusals_without_a_code_are_named_by_their_status() {
    let signer = shared("k1");
    for (status, code) in [
        (400, "INVALID"),
        (401, "UNAUTHENTICATED"),
        (403, "FORBIDDEN"),
        (404, "NOT_FOUND"),
        (409, "HTTP_409"),
        (410, "HTTP_410"),
        (422, "INVALID"),
        (429, "TOO_MANY_REQUESTS"),
    ] {
        let s = std::sync::Arc::clone(&signer);
        let server = serve(move |_| s.reply(status, r#"{"message":"No."}"#));
        match client(&server, &signer).validate(KEY, None) {
            Err(Error::Refused(refusal)) => {
                assert_eq!((refusal.code.as_str(), refusal.status), (code, status))
            }
            other => panic!("{status}: {other:?}"),
        }
    }
}

#[test]
fn a_body_that_is_not_json_is_unverifiable() {
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |_| s.reply(200, "<html>valid</html>"));
    unverifiable(client(&server, &signer).validate(KEY, None), "not JSON");
}

#[test]
fn a_redirect_is_not_followed() {
    let signer = shared("k1");
    let server = serve(|_| {
        Reply::new(301, "").header(
            "location",
            "https://elsewhere.example/api/v1/licenses/validate",
        )
    });
    unverifiable(
        client(&server, &signer).validate(KEY, None),
        "a redirect to https://elsewhere.example",
    );
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_503_is_retried_then_answered() {
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = FakeServer::start(move |r, count| {
        if count == 0 {
            Reply::new(503, r#"{"message":"Database unavailable."}"#)
        } else {
            s.reply(200, &valid_answer(KEY, "1", r.nonce().as_deref()))
        }
    });
    assert!(client(&server, &signer).validate(KEY, None).unwrap().valid);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    // A retry is a new request: a new nonce.
    assert_ne!(requests[0].nonce(), None);
    assert_eq!(
        requests[0].nonce(),
        requests[1].nonce(),
        "the same request is sent again"
    );
}

#[test]
fn a_5xx_after_the_retries_is_unreachable() {
    let signer = shared("k1");
    let server = serve(|_| Reply::new(502, "bad gateway"));
    let started = Instant::now();
    let result = Client::new(config(&server, &signer).retries(2))
        .unwrap()
        .validate(KEY, None);
    assert!(
        matches!(result, Err(Error::Unreachable(ref why)) if why.contains("502")),
        "{result:?}"
    );
    assert_eq!(server.requests().len(), 3);
    // Backoff 0.25 s and 0.5 s, ±20 %.
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(600) && waited < Duration::from_secs(3),
        "{waited:?}"
    );

    let server = serve(|_| Reply::new(500, "oops"));
    let result = client(&server, &signer).validate(KEY, None);
    assert!(matches!(result, Err(Error::Unreachable(_))), "{result:?}");
    assert_eq!(server.requests().len(), 1, "a 500 is not retried");
}

#[test]
fn a_429_with_retry_after_is_waited_for() {
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = FakeServer::start(move |r, count| {
        if count == 0 {
            s.reply(429, r#"{"message":"Too Many Attempts."}"#)
                .header("retry-after", "1")
        } else {
            s.reply(200, &valid_answer(KEY, "1", r.nonce().as_deref()))
        }
    });
    let started = Instant::now();
    assert!(client(&server, &signer).validate(KEY, None).unwrap().valid);
    assert!(started.elapsed() >= Duration::from_secs(1));
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn a_429_asking_too_long_a_wait_is_a_refusal() {
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |_| {
        s.reply(429, r#"{"message":"Too Many Attempts."}"#)
            .header("retry-after", "3600")
    });
    match client(&server, &signer).validate(KEY, None) {
        Err(Error::Refused(refusal)) => {
            assert_eq!(refusal.code, "TOO_MANY_REQUESTS");
            assert_eq!(refusal.status, 429);
            assert_eq!(refusal.retry_after, Some(Duration::from_secs(3600)));
            assert_eq!(refusal.message, "Too Many Attempts.");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_timeout_is_unreachable() {
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |r| {
        s.reply(200, &valid_answer(KEY, "1", r.nonce().as_deref()))
            .delay(Duration::from_secs(3))
    });
    let client = Client::new(
        config(&server, &signer)
            .timeout(Duration::from_millis(300))
            .retries(1),
    )
    .unwrap();
    let started = Instant::now();
    let result = client.validate(KEY, None);
    assert!(matches!(result, Err(Error::Unreachable(_))), "{result:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn nobody_listening_is_unreachable() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let signer = Signer::new("k1");
    let client =
        Client::new(Config::new(format!("http://127.0.0.1:{port}"), "1", signer.jwks()).retries(1))
            .unwrap();
    assert!(matches!(
        client.validate(KEY, None),
        Err(Error::Unreachable(_))
    ));
}

#[test]
fn a_422_is_a_refusal_with_its_fields() {
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |_| {
        s.reply(422, r#"{"message":"The fingerprint field is invalid.","errors":{"fingerprint":["The fingerprint field is invalid."]}}"#)
    });
    match client(&server, &signer).validate(KEY, Some("bad\u{1}")) {
        Err(Error::Refused(refusal)) => {
            assert_eq!(refusal.code, "INVALID");
            assert_eq!(
                refusal.field_errors()["fingerprint"],
                vec!["The fingerprint field is invalid.".to_string()]
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_refusal_with_another_nonce_is_unverifiable() {
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |_| s.reply(422, r#"{"message":"no","nonce":"old"}"#));
    unverifiable(client(&server, &signer).validate(KEY, None), "nonce");
}

#[test]
fn an_unpinned_client_fetches_the_keys_and_again_for_a_new_kid() {
    let first = shared("k1");
    let rotated = shared("k2");
    let (f, r) = (
        std::sync::Arc::clone(&first),
        std::sync::Arc::clone(&rotated),
    );
    let fetched = std::sync::atomic::AtomicUsize::new(0);
    let server = FakeServer::start(move |request, _| {
        if request.path() == "/.well-known/jwks.json" {
            // The first fetch has k1; k2 is rotated in after it.
            let keys = if fetched.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
                f.jwks()
            } else {
                format!(
                    r#"{{"keys":[{{"kty":"OKP","crv":"Ed25519","x":"{}","kid":"k1"}},{{"kty":"OKP","crv":"Ed25519","x":"{}","kid":"k2"}}]}}"#,
                    f.x(),
                    r.x()
                )
            };
            return Reply::new(200, keys).header("content-type", "application/json");
        }
        let signer = if request.json()["key"] == "ROTATED" {
            &r
        } else {
            &f
        };
        let key = request.json()["key"].as_str().unwrap().to_string();
        signer.reply(200, &valid_answer(&key, "1", request.nonce().as_deref()))
    });
    let client = Client::new(Config::unpinned(&server.url, "1")).unwrap();
    assert!(client.validate(KEY, None).unwrap().valid);
    assert!(client.validate(KEY, None).unwrap().valid);
    assert!(client.validate("ROTATED", None).unwrap().valid);
    let fetches = server
        .requests()
        .iter()
        .filter(|r| r.path() == "/.well-known/jwks.json")
        .count();
    assert_eq!(fetches, 2, "once at first use, once for the new kid");
}

#[test]
fn a_pinned_set_ignores_what_the_server_publishes() {
    let pinned = shared("k1");
    let fake = shared("fake");
    let f = std::sync::Arc::clone(&fake);
    let server = FakeServer::start(move |request, _| {
        if request.path() == "/.well-known/jwks.json" {
            return Reply::new(200, f.jwks()).header("content-type", "application/json");
        }
        f.reply(200, &valid_answer(KEY, "1", request.nonce().as_deref()))
    });
    let client = Client::new(config(&server, &pinned).fetch_jwks(true)).unwrap();
    unverifiable(client.validate(KEY, None), "not pinned");
    assert!(server
        .requests()
        .iter()
        .all(|r| r.path() != "/.well-known/jwks.json"));
}

#[test]
fn a_recorded_answer_verifies_with_its_nonce_and_clock() {
    let signer = Signer::new("k1");
    let created = 1_795_405_565;
    let reply = signer.reply_at(200, &valid_answer(KEY, "1", Some("n-1")), created, "k1");
    let answer = depot_client::SignedAnswer {
        status: 200,
        content_type: reply.get("content-type").map(str::to_string),
        content_digest: reply.get("content-digest").map(str::to_string),
        signature_input: reply.get("signature-input").map(str::to_string),
        signature: reply.get("signature").map(str::to_string),
        body: reply.body.clone(),
    };
    let at = std::time::UNIX_EPOCH + Duration::from_secs(created as u64 + 10);
    let client =
        Client::new(Config::new("http://127.0.0.1:9", "1", signer.jwks()).clock(move || at))
            .unwrap();
    assert!(
        client
            .verify_validation(&answer, KEY, None, "n-1")
            .unwrap()
            .valid
    );
    unverifiable(client.verify_validation(&answer, KEY, None, "n-2"), "nonce");
    let later = Client::new(Config::new("http://127.0.0.1:9", "1", signer.jwks())).unwrap();
    unverifiable(
        later.verify_validation(&answer, KEY, None, "n-1"),
        "the signature was created",
    );
}

fn upgrade_body(request: &common::Request, overrides: serde_json::Value) -> String {
    let mut body = serde_json::json!({
        "upgrade": true, "current": request.query("version"),
        "product_id": "1",
        "platform": request.query("platform").unwrap_or_else(|| "any".into()),
        "arch": request.query("arch").unwrap_or_else(|| "any".into()),
        "channel": request.query("channel").unwrap_or_else(|| "stable".into()),
        "nonce": request.nonce(),
        "version": {
            "id": 7, "version_number": "1.1.0", "title": "1.1.0", "changelog": "- faster",
            "channel": "stable", "critical": false, "published_at": "2026-01-01T00:00:00.000Z",
            "artifacts": [{
                "id": 12, "version_id": 7, "platform": "linux", "arch": "x86_64",
                "file_name": "app-1.1.0.tar.gz", "file_size": 10, "sha256": "00", "sha512": null,
                "content_type": "application/gzip", "signature": null,
                "download_url": "http://127.0.0.1:1/api/products/1/versions/7/artifacts/12/download"
            }]
        }
    });
    for (name, value) in overrides.as_object().unwrap() {
        body[name] = value.clone();
    }
    body.to_string()
}

#[test]
fn an_upgrade_answer_is_verified_and_read() {
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |r| s.reply(200, &upgrade_body(r, serde_json::json!({}))));
    let client = client(&server, &signer);
    let options = UpdateOptions::new()
        .platform("linux")
        .arch("x86_64")
        .staging_id("user-7");
    let upgrade = client.check_for_update(KEY, "1.0.0", &options).unwrap();
    assert!(upgrade.upgrade);
    let version = upgrade.version.unwrap();
    assert_eq!(version.version_number, "1.1.0");
    assert_eq!(version.artifacts[0].file_name, "app-1.1.0.tar.gz");
    let request = &server.requests()[0];
    assert_eq!(request.method, "GET");
    assert_eq!(request.path(), "/api/v1/products/1/upgrade");
    assert_eq!(request.query("version").as_deref(), Some("1.0.0"));
    assert_eq!(request.query("platform").as_deref(), Some("linux"));
    assert_eq!(request.query("channel"), None);
    assert_eq!(
        request.header("authorization"),
        Some(format!("License {KEY}").as_str())
    );
    assert_eq!(request.header("x-user-staging-id"), Some("user-7"));
    // Nothing asked: any, any, stable.
    assert!(client
        .check_for_update(KEY, "1.0.0", &UpdateOptions::new())
        .is_ok());
}

#[test]
fn an_upgrade_answer_about_something_else_is_unverifiable() {
    let signer = shared("k1");
    for (field, value) in [
        ("product_id", "2"),
        ("platform", "windows"),
        ("arch", "aarch64"),
        ("channel", "beta"),
    ] {
        let s = std::sync::Arc::clone(&signer);
        let server =
            serve(move |r| s.reply(200, &upgrade_body(r, serde_json::json!({ field: value }))));
        let options = UpdateOptions::new().platform("linux").arch("x86_64");
        unverifiable(
            client(&server, &signer).check_for_update(KEY, "1.0.0", &options),
            &format!("about {field} {value}"),
        );
    }
    // An upgrade must say to what.
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |r| {
        s.reply(
            200,
            &upgrade_body(r, serde_json::json!({ "version": null })),
        )
    });
    unverifiable(
        client(&server, &signer).check_for_update(KEY, "1.0.0", &UpdateOptions::new()),
        "offers no version",
    );
    // The version asked about: a relay could ask with a higher one and hand back "no upgrade".
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |r| {
        s.reply(
            200,
            &upgrade_body(r, serde_json::json!({ "current": "9.9.9" })),
        )
    });
    unverifiable(
        client(&server, &signer).check_for_update(KEY, "1.0.0", &UpdateOptions::new()),
        "about current 9.9.9, not 1.0.0",
    );
    let s = std::sync::Arc::clone(&signer);
    let server =
        serve(move |r| s.reply(200, &upgrade_body(r, serde_json::json!({ "nonce": "old" }))));
    unverifiable(
        client(&server, &signer).check_for_update(KEY, "1.0.0", &UpdateOptions::new()),
        "nonce",
    );
}

#[test]
fn a_403_on_the_upgrade_check_is_forbidden() {
    let signer = shared("k1");
    let s = std::sync::Arc::clone(&signer);
    let server = serve(move |_| {
        s.reply(
            403,
            r#"{"message":"This license does not hold this product."}"#,
        )
    });
    let result = client(&server, &signer).check_for_update(KEY, "1.0.0", &UpdateOptions::new());
    assert_eq!(result.unwrap_err().refusal_code(), Some("FORBIDDEN"));
}
