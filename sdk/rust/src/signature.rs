//! depot's signed answers: an RFC 9530 `Content-Digest` of the exact body bytes and an RFC 9421
//! Ed25519 signature over the status, the content type and that digest.

use ring::constant_time::verify_slices_are_equal;
use serde_json::Value;

use crate::error::Error;
use crate::jwks::Key;
use crate::types::Object;
use crate::util::{base64_decode, sha256};

/// An answer as it was received: the status, the three signed headers and the body's bytes. What
/// [`Client::verify_validation`](crate::Client::verify_validation) takes, e.g. an answer recorded
/// or relayed by the app's own backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedAnswer {
    /// The HTTP status.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: Option<String>,
    /// `Content-Digest`.
    pub content_digest: Option<String>,
    /// `Signature-Input`.
    pub signature_input: Option<String>,
    /// `Signature`.
    pub signature: Option<String>,
    /// The body, byte for byte.
    pub body: Vec<u8>,
}

/// The only components depot signs, in its order: anything else is not depot's signature.
const COMPONENTS: &str = r#"("@status" "content-type" "content-digest")"#;

/// How recent `created` must be.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Freshness {
    /// A live answer: within this many seconds of the clock, either way.
    Skew(i64),
    /// A kept answer (`status()`): younger than `max_age`, and not from the future beyond `skew`.
    Kept { max_age: i64, skew: i64 },
}

/// A verified answer's JSON (an object) and when it was signed.
#[derive(Debug)]
pub(crate) struct Checked {
    pub raw: Value,
    pub created: i64,
}

impl Checked {
    pub fn body(&self) -> &Object {
        self.raw
            .as_object()
            .expect("verify() lets only an object through")
    }
}

fn unverifiable<T>(reason: impl Into<String>) -> Result<T, Error> {
    Err(Error::Unverifiable(reason.into()))
}

/// Checks 1–6 of the contract but the nonce (the caller's, with the subject): the digest, the
/// signature's parameters, a pinned `kid`, the Ed25519 signature, `created`, and a JSON object.
/// `key_for` finds a key by its `kid` (`None`: not trusted).
pub(crate) fn verify(
    answer: &SignedAnswer,
    key_for: &mut dyn FnMut(&str) -> Result<Option<Key>, Error>,
    now: i64,
    freshness: Freshness,
) -> Result<Checked, Error> {
    let (input, signature) = match (&answer.signature_input, &answer.signature) {
        (Some(input), Some(signature)) => (input, signature),
        // Without this, anyone who can answer in depot's place (a hosts-file entry, a proxy) says "valid".
        _ => return unverifiable(format!("the answer is not signed (HTTP {})", answer.status)),
    };

    // 1. The signature covers the digest header; only this ties it to the bytes we got.
    let digest = match &answer.content_digest {
        Some(digest) => digest,
        None => return unverifiable("the answer has no Content-Digest"),
    };
    let claimed = match byte_sequence(digest, "sha-256") {
        Some(bytes) => bytes,
        None => return unverifiable(format!("Content-Digest is not sha-256=:…: ({digest})")),
    };
    if verify_slices_are_equal(&claimed, &sha256(&answer.body)).is_err() {
        return unverifiable("the body does not match its Content-Digest");
    }

    // 2. Exactly depot's signature: its label, its components, ed25519.
    let params_text = match input.strip_prefix("depot=") {
        Some(rest) => rest,
        None => return unverifiable(format!("Signature-Input is not depot's ({input})")),
    };
    let params = parse_params(params_text)?;
    if params.alg.as_deref() != Some("ed25519") {
        return unverifiable(format!(
            "the signature's alg is {}, expected ed25519",
            params.alg.as_deref().unwrap_or("missing")
        ));
    }
    let kid = match params.keyid {
        Some(kid) => kid,
        None => return unverifiable("Signature-Input has no keyid"),
    };
    let created = match params.created {
        Some(created) => created,
        None => return unverifiable("Signature-Input has no created time"),
    };

    // 3. A key depot shipped with the app; a fake server signs with one of its own.
    let key = match key_for(&kid)? {
        Some(key) => key,
        None => return unverifiable(format!("the key \"{kid}\" is not pinned")),
    };

    // 4. The signature over the base of RFC 9421 §2.5.
    let content_type = match &answer.content_type {
        Some(content_type) => content_type,
        None => return unverifiable("the answer has no Content-Type"),
    };
    let signature_bytes = match byte_sequence(signature, "depot") {
        Some(bytes) => bytes,
        None => return unverifiable(format!("Signature is not depot=:…: ({signature})")),
    };
    let base = format!(
        "\"@status\": {}\n\"content-type\": {content_type}\n\"content-digest\": {digest}\n\"@signature-params\": {params_text}",
        answer.status
    );
    if !key.verifies(base.as_bytes(), &signature_bytes) {
        return unverifiable("the signature does not verify");
    }

    // 5. A signed answer recorded yesterday stays signed: the clock bounds how long it can be replayed.
    let age = now - created;
    match freshness {
        Freshness::Skew(skew) if age.abs() > skew => {
            return unverifiable(format!(
                "the signature was created {age} s from now (more than {skew} s)"
            ))
        }
        Freshness::Kept { max_age, skew } if age > max_age || -age > skew => {
            return unverifiable(format!(
                "the kept answer is {age} s old (more than {max_age} s)"
            ))
        }
        _ => {}
    }
    if let Some(expires) = params.expires {
        if expires <= now {
            return unverifiable("the signature has expired");
        }
    }

    // 6. JSON, an object.
    let raw: Value = match serde_json::from_slice(&answer.body) {
        Ok(raw) => raw,
        Err(_) => return unverifiable("the signed body is not JSON"),
    };
    if !raw.is_object() {
        return unverifiable("the signed body is not a JSON object");
    }
    Ok(Checked { raw, created })
}

/// The value of a one-member dictionary `name=:<base64>:` (RFC 8941 byte sequence).
fn byte_sequence(header: &str, name: &str) -> Option<Vec<u8>> {
    let value = header.trim().strip_prefix(name)?.strip_prefix("=:")?;
    let encoded = value.strip_suffix(':')?;
    if encoded.contains(':') {
        return None;
    }
    base64_decode(encoded)
}

#[derive(Debug, Default)]
struct Params {
    created: Option<i64>,
    expires: Option<i64>,
    keyid: Option<String>,
    alg: Option<String>,
}

/// `("@status" "content-type" "content-digest");created=…;keyid="…";alg="ed25519"`: the inner list
/// exactly as depot writes it, then its parameters in any order, each at most once. Anything after
/// them (another signature, another member) is refused.
fn parse_params(text: &str) -> Result<Params, Error> {
    let mut rest = match text.strip_prefix(COMPONENTS) {
        Some(rest) => rest,
        None => {
            return unverifiable(format!(
                "the signature does not cover exactly @status, content-type and content-digest ({text})"
            ))
        }
    };
    let mut params = Params::default();
    let mut seen: Vec<String> = Vec::new();
    while !rest.is_empty() {
        rest = match rest.strip_prefix(';') {
            Some(rest) => rest,
            None => {
                return unverifiable(format!(
                    "Signature-Input has more than depot's signature ({text})"
                ))
            }
        };
        let name_end = rest.find('=').unwrap_or(rest.len());
        let name = &rest[..name_end];
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-.*".contains(&b))
        {
            return unverifiable(format!(
                "Signature-Input's parameters are malformed ({text})"
            ));
        }
        if seen.iter().any(|s| s == name) {
            return unverifiable(format!("Signature-Input repeats {name}"));
        }
        seen.push(name.to_string());
        rest = rest.get(name_end + 1..).unwrap_or("");
        let (value, after) = bare_item(rest)
            .ok_or_else(|| Error::Unverifiable(format!("Signature-Input's {name} is malformed")))?;
        rest = after;
        match (name, value) {
            ("created", Item::Integer(n)) => params.created = Some(n),
            ("expires", Item::Integer(n)) => params.expires = Some(n),
            ("keyid", Item::String(s)) => params.keyid = Some(s),
            ("alg", Item::String(s)) => params.alg = Some(s),
            ("created" | "expires" | "keyid" | "alg", _) => {
                return unverifiable(format!("Signature-Input's {name} has the wrong type"))
            }
            // Another parameter (a tag, a nonce of the signer's) is covered by the signature as written.
            _ => {}
        }
    }
    Ok(params)
}

enum Item {
    Integer(i64),
    String(String),
    Other,
}

/// One RFC 8941 bare item at the start of `text`, and what follows it.
fn bare_item(text: &str) -> Option<(Item, &str)> {
    let bytes = text.as_bytes();
    match bytes.first()? {
        b'"' => {
            let mut value = String::new();
            let mut chars = text[1..].char_indices();
            while let Some((at, c)) = chars.next() {
                match c {
                    '"' => return Some((Item::String(value), &text[at + 2..])),
                    '\\' => match chars.next()? {
                        (_, e @ ('"' | '\\')) => value.push(e),
                        _ => return None,
                    },
                    c if (' '..='~').contains(&c) => value.push(c),
                    _ => return None,
                }
            }
            None
        }
        b'-' | b'0'..=b'9' => {
            let end = bytes[1..]
                .iter()
                .position(|b| !b.is_ascii_digit())
                .map_or(bytes.len(), |p| p + 1);
            let digits = &text[..end];
            if digits == "-" || end > 16 || bytes.get(end) == Some(&b'.') {
                return None;
            }
            Some((Item::Integer(digits.parse().ok()?), &text[end..]))
        }
        b'?' | b'a'..=b'z' | b'A'..=b'Z' | b'*' | b':' => {
            let end = text.find([';', ',', ' ']).unwrap_or(text.len());
            Some((Item::Other, &text[end..]))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depot_parameters_are_read_in_any_order() {
        let p = parse_params(r#"("@status" "content-type" "content-digest");alg="ed25519";keyid="k\"1";created=1795405565"#).unwrap();
        assert_eq!(p.created, Some(1_795_405_565));
        assert_eq!(p.keyid.as_deref(), Some("k\"1"));
        assert_eq!(p.alg.as_deref(), Some("ed25519"));
    }

    #[test]
    fn other_components_labels_or_repeats_are_refused() {
        for text in [
            r#"("@status" "content-digest");created=1;keyid="k";alg="ed25519""#,
            r#"("@status" "content-type" "content-digest" "date");created=1;keyid="k";alg="ed25519""#,
            r#"("@status" "content-type" "content-digest");created=1;created=2;keyid="k";alg="ed25519""#,
            r#"("@status" "content-type" "content-digest");created=1;keyid="k";alg="ed25519", other=("@status");created=1"#,
            r#"("@status" "content-type" "content-digest");created="1";keyid="k";alg="ed25519""#,
            r#"("@status" "content-type" "content-digest");created=1.5;keyid="k";alg="ed25519""#,
        ] {
            assert!(parse_params(text).is_err(), "{text}");
        }
    }

    #[test]
    fn byte_sequences_are_one_member() {
        assert_eq!(
            byte_sequence("sha-256=:AAEC:", "sha-256"),
            Some(vec![0, 1, 2])
        );
        assert_eq!(byte_sequence("sha-512=:AAEC:", "sha-256"), None);
        assert_eq!(
            byte_sequence("sha-256=:AAEC:, sha-512=:AAEC:", "sha-256"),
            None
        );
        assert_eq!(byte_sequence("sha-256=AAEC", "sha-256"), None);
    }
}
