//! download against a fake server that answers ranges, redirects, and lies about sizes.

mod common;

use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use common::{FakeServer, Reply, Signer, TempDir, KEY};
use depot_client::{Artifact, Client, Config, Error};

const CONTENT: &[u8] = b"desk-clock 1.1.0 for linux x86_64: the release bytes\n";

fn sha256_hex(bytes: &[u8]) -> String {
    ring::digest::digest(&ring::digest::SHA256, bytes)
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn sha512_base64(bytes: &[u8]) -> String {
    base64::encode(ring::digest::digest(&ring::digest::SHA512, bytes))
}

/// Serves `content` at any path: the whole of it, or from a `Range: bytes=N-`.
fn file_server(content: &'static [u8]) -> FakeServer {
    FakeServer::start(move |request, _| {
        if request.header("x-license-key") != Some(KEY) {
            return Reply::new(401, r#"{"message":"Unauthenticated."}"#);
        }
        match request.header("range").and_then(|r| {
            r.strip_prefix("bytes=")?
                .strip_suffix('-')?
                .parse::<usize>()
                .ok()
        }) {
            Some(from) if from < content.len() => Reply::new(206, &content[from..]).header(
                "content-range",
                format!("bytes {from}-{}/{}", content.len() - 1, content.len()),
            ),
            Some(_) => Reply::new(416, ""),
            None => Reply::new(200, content),
        }
    })
}

fn artifact(server: &FakeServer, name: &str) -> Artifact {
    Artifact {
        id: 12,
        platform: "linux".into(),
        arch: "x86_64".into(),
        file_name: name.into(),
        file_size: CONTENT.len() as u64,
        sha256: Some(sha256_hex(CONTENT)),
        sha512: Some(sha512_base64(CONTENT)),
        signature: None,
        download_url: format!(
            "{}/api/products/1/versions/7/artifacts/12/download",
            server.url
        ),
    }
}

fn client(server: &FakeServer) -> Client {
    let signer = Signer::new("k1");
    Client::new(
        Config::new(&server.url, "1", signer.jwks())
            .retries(1)
            .timeout(Duration::from_secs(2)),
    )
    .unwrap()
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn a_download_is_checked_and_renamed() {
    let server = file_server(CONTENT);
    let dir = TempDir::new("whole");
    let mut progress = Vec::new();
    let path = client(&server)
        .download_with_progress(
            KEY,
            &artifact(&server, "app-1.1.0.tar.gz"),
            &dir,
            |done, total| progress.push((done, total)),
        )
        .unwrap();
    assert_eq!(path, dir.join("app-1.1.0.tar.gz"));
    assert_eq!(fs::read(&path).unwrap(), CONTENT);
    assert_eq!(listing(&dir), vec!["app-1.1.0.tar.gz"]);
    assert_eq!(progress.first(), Some(&(0, CONTENT.len() as u64)));
    assert_eq!(
        progress.last(),
        Some(&(CONTENT.len() as u64, CONTENT.len() as u64))
    );
    assert_eq!(server.requests()[0].header("range"), None);
}

#[test]
fn a_part_is_resumed_with_a_range() {
    let server = file_server(CONTENT);
    let dir = TempDir::new("resume");
    fs::write(dir.join("app.tar.gz.part"), &CONTENT[..20]).unwrap();
    let path = client(&server)
        .download(KEY, &artifact(&server, "app.tar.gz"), &dir)
        .unwrap();
    assert_eq!(fs::read(path).unwrap(), CONTENT);
    assert_eq!(server.requests()[0].header("range"), Some("bytes=20-"));
    assert_eq!(listing(&dir), vec!["app.tar.gz"]);
}

#[test]
fn a_whole_part_is_checked_without_a_request() {
    let server = file_server(CONTENT);
    let dir = TempDir::new("whole-part");
    fs::write(dir.join("app.tar.gz.part"), CONTENT).unwrap();
    let path = client(&server)
        .download(KEY, &artifact(&server, "app.tar.gz"), &dir)
        .unwrap();
    assert_eq!(fs::read(path).unwrap(), CONTENT);
    assert!(server.requests().is_empty());
}

#[test]
fn a_part_that_is_not_a_prefix_is_dropped() {
    let server = file_server(CONTENT);
    // As long as the file but not it: fetched again whole.
    let dir = TempDir::new("wrong-part");
    fs::write(dir.join("app.tar.gz.part"), vec![b'x'; CONTENT.len()]).unwrap();
    let path = client(&server)
        .download(KEY, &artifact(&server, "app.tar.gz"), &dir)
        .unwrap();
    assert_eq!(fs::read(path).unwrap(), CONTENT);
    assert_eq!(server.requests()[0].header("range"), None);
    // Longer than the file: dropped before asking.
    let dir = TempDir::new("long-part");
    fs::write(dir.join("app.tar.gz.part"), vec![b'x'; CONTENT.len() + 5]).unwrap();
    client(&server)
        .download(KEY, &artifact(&server, "app.tar.gz"), &dir)
        .unwrap();
}

#[test]
fn a_416_starts_over_once() {
    let server = FakeServer::start(|request, _| match request.header("range") {
        Some(_) => Reply::new(416, ""),
        None => Reply::new(200, CONTENT),
    });
    let dir = TempDir::new("416");
    fs::write(dir.join("app.tar.gz.part"), b"0123").unwrap();
    let path = Client::new(Config::new(&server.url, "1", Signer::new("k1").jwks()).retries(0))
        .unwrap()
        .download(KEY, &artifact(&server, "app.tar.gz"), &dir)
        .unwrap();
    assert_eq!(fs::read(path).unwrap(), CONTENT);
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn a_200_to_a_range_starts_over() {
    let server = FakeServer::start(|_, _| Reply::new(200, CONTENT));
    let dir = TempDir::new("restart");
    fs::write(dir.join("app.tar.gz.part"), b"garbage that is not a prefix").unwrap();
    let path = client(&server)
        .download(KEY, &artifact(&server, "app.tar.gz"), &dir)
        .unwrap();
    assert_eq!(fs::read(path).unwrap(), CONTENT);
}

#[test]
fn a_wrong_hash_is_refused_and_the_part_deleted() {
    let server = file_server(CONTENT);
    for (sha256, sha512) in [
        (Some("00".repeat(32)), None),
        (None, Some(sha512_base64(b"other"))),
    ] {
        let dir = TempDir::new("hash");
        let mut artifact = artifact(&server, "app.tar.gz");
        artifact.sha256 = sha256;
        artifact.sha512 = sha512;
        match client(&server).download(KEY, &artifact, &dir) {
            Err(Error::Unverifiable(why)) => assert!(why.contains("differs"), "{why}"),
            other => panic!("{other:?}"),
        }
        assert!(listing(&dir).is_empty(), "{:?}", listing(&dir));
    }
}

#[test]
fn an_artifact_without_a_hash_is_not_downloaded() {
    let server = file_server(CONTENT);
    let dir = TempDir::new("nohash");
    let mut artifact = artifact(&server, "app.tar.gz");
    artifact.sha256 = None;
    artifact.sha512 = None;
    assert!(matches!(
        client(&server).download(KEY, &artifact, &dir),
        Err(Error::Unverifiable(_))
    ));
    assert!(server.requests().is_empty());
}

#[test]
fn a_hostile_file_name_is_refused_before_a_byte_is_written() {
    let server = file_server(CONTENT);
    let dir = TempDir::new("hostile");
    for name in [
        "../evil",
        "/etc/passwd",
        ".bashrc",
        "a\\b",
        "x\0y",
        "app..zip",
        "C:evil.exe",
        "app.exe:stream",
        "tab\tname",
        "del\u{7f}name",
    ] {
        match client(&server).download(KEY, &artifact(&server, name), &dir) {
            Err(Error::Unverifiable(why)) => {
                assert!(why.contains("not a plain file name"), "{why}")
            }
            other => panic!("{name:?}: {other:?}"),
        }
    }
    assert!(server.requests().is_empty());
    assert!(listing(&dir).is_empty());
    assert!(!dir.parent().unwrap().join("evil").exists());
}

#[test]
fn more_bytes_than_the_artifact_says_stop_at_once() {
    static BIG: [u8; 300_000] = [7u8; 300_000];
    let server = FakeServer::start(|_, _| Reply::new(200, &BIG[..]));
    let dir = TempDir::new("toobig");
    match client(&server).download(KEY, &artifact(&server, "app.tar.gz"), &dir) {
        Err(Error::Unverifiable(why)) => assert!(why.contains("larger than"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert!(listing(&dir).is_empty());
}

#[test]
fn a_redirect_elsewhere_does_not_carry_the_license_key() {
    let bucket = Arc::new(FakeServer::start(|_, _| Reply::new(200, CONTENT)));
    let target = format!("{}/bucket/app?sig=1", bucket.url);
    let server =
        FakeServer::start(move |_, _| Reply::new(302, "").header("location", target.clone()));
    let dir = TempDir::new("redirect");
    client(&server)
        .download(KEY, &artifact(&server, "app.tar.gz"), &dir)
        .unwrap();
    assert_eq!(server.requests()[0].header("x-license-key"), Some(KEY));
    let fetched = &bucket.requests()[0];
    assert_eq!(fetched.target, "/bucket/app?sig=1");
    assert_eq!(fetched.header("x-license-key"), None);
}

#[test]
fn a_refusal_is_typed_and_writes_nothing() {
    let server = FakeServer::start(|_, _| {
        Reply::new(
            403,
            r#"{"message":"This license does not hold this product."}"#,
        )
    });
    let dir = TempDir::new("refused");
    match client(&server).download(KEY, &artifact(&server, "app.tar.gz"), &dir) {
        Err(Error::Refused(refusal)) => {
            assert_eq!(refusal.code, "FORBIDDEN");
            assert_eq!(refusal.message, "This license does not hold this product.");
        }
        other => panic!("{other:?}"),
    }
    assert!(listing(&dir).is_empty());
    // Named by their status as every refusal without a code is.
    for (status, code) in [(422, "INVALID"), (410, "HTTP_410")] {
        let server = FakeServer::start(move |_, _| Reply::new(status, r#"{"message":"No."}"#));
        let result = client(&server).download(KEY, &artifact(&server, "app.tar.gz"), &dir);
        assert_eq!(result.unwrap_err().refusal_code(), Some(code));
    }
}

#[test]
fn a_dropped_connection_is_resumed_by_the_retry() {
    // The first answer promises the whole file and sends 25 bytes of it.
    let server = FakeServer::start(|request, count| {
        if count == 0 {
            let mut reply = Reply::new(200, &CONTENT[..25]);
            reply.declared_length = Some(CONTENT.len());
            return reply;
        }
        let from: usize = request
            .header("range")
            .unwrap()
            .trim_start_matches("bytes=")
            .trim_end_matches('-')
            .parse()
            .unwrap();
        Reply::new(206, &CONTENT[from..]).header(
            "content-range",
            format!("bytes {from}-{}/{}", CONTENT.len() - 1, CONTENT.len()),
        )
    });
    let dir = TempDir::new("dropped");
    let path = client(&server)
        .download(KEY, &artifact(&server, "app.tar.gz"), &dir)
        .unwrap();
    assert_eq!(fs::read(path).unwrap(), CONTENT);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].header("range"), Some("bytes=25-"));
}
