//! The CPU cost of one verified validate, without the network: a real answer recorded from depot
//! (`curl -D HEADERS -o BODY`) verified N times — digest, signature parameters, Ed25519, `created`,
//! JSON, nonce, license and product — exactly as `Client::validate` verifies it. sdk/rust/bench.sh
//! records the answer and runs this.
//!
//!   cargo run --release --example bench -- HEADERS BODY JWKS PRODUCT KEY NONCE [N]

use std::time::{Duration, Instant, UNIX_EPOCH};

use depot_client::{Client, Config, SignedAnswer};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 6 {
        eprintln!("usage: bench HEADERS BODY JWKS PRODUCT KEY NONCE [N]");
        std::process::exit(64);
    }
    let headers = std::fs::read_to_string(&args[0]).expect("HEADERS");
    let body = std::fs::read(&args[1]).expect("BODY");
    let jwks = std::fs::read_to_string(&args[2]).expect("JWKS");
    let (product, key, nonce) = (&args[3], &args[4], &args[5]);
    let n: u32 = args.get(6).map_or(20_000, |n| n.parse().expect("N"));

    let status: u16 = headers
        .lines()
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|status| status.parse().ok())
        .expect("a status line");
    let header = |name: &str| {
        headers.lines().find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    };
    let answer = SignedAnswer {
        status,
        content_type: header("content-type"),
        content_digest: header("content-digest"),
        signature_input: header("signature-input"),
        signature: header("signature"),
        body,
    };
    // The clock of the recording, so that the answer stays within the skew however long this runs.
    let created: u64 = answer
        .signature_input
        .as_deref()
        .and_then(|input| input.split("created=").nth(1))
        .and_then(|rest| rest.split(';').next())
        .and_then(|created| created.parse().ok())
        .expect("a created parameter");
    let at = UNIX_EPOCH + Duration::from_secs(created);
    let client =
        Client::new(Config::new("http://127.0.0.1:9", product.as_str(), jwks).clock(move || at))
            .expect("a client");

    let verify = || {
        let validation = client
            .verify_validation(&answer, key, None, nonce)
            .expect("the recorded answer verifies");
        assert!(validation.valid);
    };
    for _ in 0..n / 10 {
        verify();
    }
    let (started, cpu) = (Instant::now(), cpu_ns());
    for _ in 0..n {
        verify();
    }
    let elapsed = started.elapsed();
    let per = |nanos: f64| nanos / 1e3 / f64::from(n);
    println!(
        "depot-client (Rust, ring 0.16): {n} verified validations in {:.3} s: {:.1} µs per verification (wall)",
        elapsed.as_secs_f64(),
        per(elapsed.as_nanos() as f64)
    );
    // On a shared machine the wall clock counts the time others had the CPU; this does not.
    if let (Some(before), Some(after)) = (cpu, cpu_ns()) {
        println!(
            "CPU time: {:.1} µs per verification",
            per((after - before) as f64)
        );
    }
    let cpu = cpu_ns();
    let ed25519 = ed25519_alone(&answer, n);
    let ed25519_cpu = cpu.zip(cpu_ns()).map(|(b, a)| per((a - b) as f64));
    println!(
        "of which one Ed25519 verification (ring alone): {ed25519:.1} µs wall{}",
        ed25519_cpu.map_or(String::new(), |c| format!(", {c:.1} µs CPU"))
    );
}

/// This thread's time on the CPU in nanoseconds (Linux's schedstat), if the system says.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// ring's Ed25519 verification of a message as long as the signature base, on its own.
fn ed25519_alone(answer: &SignedAnswer, n: u32) -> f64 {
    use ring::signature::{Ed25519KeyPair, KeyPair, UnparsedPublicKey, ED25519};
    let pkcs8 = Ed25519KeyPair::generate_pkcs8(&ring::rand::SystemRandom::new()).unwrap();
    let pair = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap();
    let message = vec![b'x'; 200 + answer.signature_input.as_ref().map_or(0, String::len)];
    let signature = pair.sign(&message);
    let key = UnparsedPublicKey::new(&ED25519, pair.public_key().as_ref().to_vec());
    let started = Instant::now();
    for _ in 0..n {
        key.verify(&message, signature.as_ref()).unwrap();
    }
    started.elapsed().as_secs_f64() * 1e6 / f64::from(n)
}
