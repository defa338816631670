//! A small HTTP server inside the tests, for what a real depot cannot be made to do, and an
//! Ed25519 key made in the test that signs its answers exactly as depot does (and is pinned).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ring::rand::SystemRandom;
use ring::signature::{Ed25519KeyPair, KeyPair};

pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// A request as the fake server read it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap()
    }

    pub fn query(&self, name: &str) -> Option<String> {
        let query = self.target.split_once('?')?.1;
        query
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.replace("%2B", "+").replace("%2F", "/"))
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }

    /// The nonce the client sent: in the JSON body, else in the query.
    pub fn nonce(&self) -> Option<String> {
        self.json()
            .get("nonce")
            .and_then(|n| n.as_str())
            .map(str::to_string)
            .or_else(|| self.query("nonce"))
    }
}

/// What the fake server answers.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Wait this long before answering (a timeout).
    pub delay: Duration,
    /// Promise this many bytes but send only the body (a dropped connection).
    pub declared_length: Option<usize>,
}

impl Reply {
    pub fn new(status: u16, body: impl Into<Vec<u8>>) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: body.into(),
            delay: Duration::ZERO,
            declared_length: None,
        }
    }

    pub fn header(mut self, name: &str, value: impl Into<String>) -> Reply {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_string(), value.into()));
        self
    }

    pub fn without(mut self, name: &str) -> Reply {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    pub fn delay(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

type Handler = dyn Fn(&Request, usize) -> Reply + Send + Sync;

/// Answers every request with `handler(request, how many came before)`, one request per
/// connection. Stops when dropped.
pub struct FakeServer {
    pub url: String,
    pub requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<Mutex<bool>>,
}

impl FakeServer {
    pub fn start(handler: impl Fn(&Request, usize) -> Reply + Send + Sync + 'static) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(Mutex::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let (seen, stopped) = (Arc::clone(&requests), Arc::clone(&stop));
        thread::spawn(move || {
            for stream in listener.incoming() {
                if *stopped.lock().unwrap() {
                    return;
                }
                let Ok(stream) = stream else { continue };
                let (handler, seen) = (Arc::clone(&handler), Arc::clone(&seen));
                thread::spawn(move || serve(stream, &*handler, &seen));
            }
        });
        FakeServer {
            url,
            requests,
            stop,
        }
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        *self.stop.lock().unwrap() = true;
        // Wake the accept loop so that it sees the flag.
        let _ = TcpStream::connect(self.url.trim_start_matches("http://"));
    }
}

fn serve(stream: TcpStream, handler: &Handler, seen: &Mutex<Vec<Request>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("").to_string();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    let length = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let request = Request {
        method,
        target,
        headers,
        body,
    };
    let count = {
        let mut seen = seen.lock().unwrap();
        seen.push(request.clone());
        seen.len() - 1
    };
    let reply = handler(&request, count);
    thread::sleep(reply.delay);
    let mut out = format!("HTTP/1.1 {} X\r\n", reply.status);
    for (name, value) in &reply.headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n",
        reply.declared_length.unwrap_or(reply.body.len())
    ));
    let mut stream = stream;
    let _ = stream.write_all(out.as_bytes());
    let _ = stream.write_all(&reply.body);
    let _ = stream.flush();
}

/// An Ed25519 key made in the test, with its JWKS, signing as depot signs.
pub struct Signer {
    pair: Ed25519KeyPair,
    pub kid: String,
}

impl Signer {
    pub fn new(kid: &str) -> Signer {
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).unwrap();
        Signer {
            pair: Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap(),
            kid: kid.to_string(),
        }
    }

    pub fn x(&self) -> String {
        base64::encode_config(self.pair.public_key().as_ref(), base64::URL_SAFE_NO_PAD)
    }

    pub fn jwks(&self) -> String {
        format!(
            r#"{{"keys":[{{"kty":"OKP","crv":"Ed25519","x":"{}","kid":"{}","alg":"EdDSA","use":"sig"}}]}}"#,
            self.x(),
            self.kid
        )
    }

    pub fn sign_bytes(&self, message: &[u8]) -> Vec<u8> {
        self.pair.sign(message).as_ref().to_vec()
    }

    /// A JSON answer signed now.
    pub fn reply(&self, status: u16, body: &str) -> Reply {
        self.reply_at(status, body, now(), &self.kid)
    }

    /// A JSON answer signed at `created` under `kid`.
    pub fn reply_at(&self, status: u16, body: &str, created: i64, kid: &str) -> Reply {
        let digest = format!(
            "sha-256=:{}:",
            base64::encode(ring::digest::digest(&ring::digest::SHA256, body.as_bytes()))
        );
        let params = format!(
            r#"("@status" "content-type" "content-digest");created={created};keyid="{kid}";alg="ed25519""#
        );
        let base = format!(
            "\"@status\": {status}\n\"content-type\": application/json\n\"content-digest\": {digest}\n\"@signature-params\": {params}"
        );
        Reply::new(status, body)
            .header("content-type", "application/json")
            .header("content-digest", digest)
            .header("signature-input", format!("depot={params}"))
            .header(
                "signature",
                format!(
                    "depot=:{}:",
                    base64::encode(self.sign_bytes(base.as_bytes()))
                ),
            )
    }

    /// A license file as depot's checkout writes it, with these claims.
    pub fn license_file(&self, claims: &serde_json::Value) -> String {
        self.license_file_with_header(
            &serde_json::json!({"alg": "EdDSA", "typ": "depot-license+jwt", "kid": self.kid}),
            claims,
        )
    }

    pub fn license_file_with_header(
        &self,
        header: &serde_json::Value,
        claims: &serde_json::Value,
    ) -> String {
        let part = |v: &serde_json::Value| {
            base64::encode_config(v.to_string().as_bytes(), base64::URL_SAFE_NO_PAD)
        };
        let input = format!("{}.{}", part(header), part(claims));
        let signature =
            base64::encode_config(self.sign_bytes(input.as_bytes()), base64::URL_SAFE_NO_PAD);
        let jws = format!("{input}.{signature}");
        let lines: Vec<String> = jws
            .as_bytes()
            .chunks(64)
            .map(|c| String::from_utf8(c.to_vec()).unwrap())
            .collect();
        format!(
            "-----BEGIN DEPOT LICENSE FILE-----\n{}\n-----END DEPOT LICENSE FILE-----\n",
            lines.join("\n")
        )
    }
}

pub const KEY: &str = "AAAAA-BBBBB-CCCCC-DDDDD-EEEEE";

/// A license in the license API's shape.
pub fn license(key: &str, product: &str) -> serde_json::Value {
    serde_json::json!({
        "id": "00000000-0000-4000-8000-000000000001",
        "userId": "1", "creatorId": "1", "productId": product,
        "expires": null, "maxIps": 5, "key": key,
        "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z"
    })
}

/// A VALID answer about `key` and `product`, echoing `nonce`.
pub fn valid_answer(key: &str, product: &str, nonce: Option<&str>) -> String {
    serde_json::json!({
        "valid": true, "code": "VALID", "detail": "This license is valid.",
        "ts": "2026-01-01T00:00:00.000Z", "nonce": nonce,
        "license": license(key, product), "ips": {"count": 1, "max": 5}
    })
    .to_string()
}

pub fn machine(id: &str, fingerprint: &str) -> serde_json::Value {
    serde_json::json!({
        "id": id, "licenseId": "00000000-0000-4000-8000-000000000001",
        "fingerprint": fingerprint, "name": null, "platform": null, "hostname": null,
        "createdAt": "2026-01-01T00:00:00.000Z", "lastHeartbeatAt": "2026-01-01T00:00:00.000Z",
        "alive": true
    })
}

/// The seeded depot that `bun sdk/conformance/start-depot.ts --out FILE` started, from
/// `DEPOT_FIXTURE=FILE` (sdk/rust/test.sh sets it).
pub struct Fixture {
    pub json: serde_json::Value,
}

impl Fixture {
    pub fn load() -> Fixture {
        let path = std::env::var("DEPOT_FIXTURE")
            .expect("DEPOT_FIXTURE names start-depot's JSON: run sdk/rust/test.sh");
        let text = std::fs::read_to_string(&path).expect("cannot read DEPOT_FIXTURE");
        Fixture {
            json: serde_json::from_str(&text).expect("DEPOT_FIXTURE is not JSON"),
        }
    }

    pub fn get(&self, name: &str) -> String {
        match &self.json[name] {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
        }
    }

    pub fn config(&self) -> depot_client::Config {
        let jwks = std::fs::read_to_string(self.get("jwks")).unwrap();
        depot_client::Config::new(self.get("server"), self.get("productId"), jwks)
    }

    pub fn client(&self) -> depot_client::Client {
        depot_client::Client::new(self.config()).unwrap()
    }
}

/// A directory of its own under the system's temporary one, removed with what is in it when
/// dropped, so that a test (even a failing one) leaves nothing behind.
pub struct TempDir(PathBuf);

impl TempDir {
    /// The directory, made and empty.
    pub fn new(name: &str) -> TempDir {
        let dir = TempDir::unmade(name);
        std::fs::create_dir_all(&dir.0).unwrap();
        dir
    }

    /// Its path only, for code that makes the directory itself.
    pub fn unmade(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("depot-client-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        TempDir(path)
    }
}

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl From<&TempDir> for PathBuf {
    fn from(dir: &TempDir) -> PathBuf {
        dir.0.clone()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
