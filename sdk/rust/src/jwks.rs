//! depot's key set (`/.well-known/jwks.json`): the Ed25519 keys that may vouch for an answer.

use ring::signature::{UnparsedPublicKey, ED25519};
use serde_json::Value;

use crate::error::Error;
use crate::util::base64url_decode;

/// One Ed25519 public key and its `kid`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Key {
    pub kid: String,
    pub public: Vec<u8>,
}

impl Key {
    pub fn verifies(&self, message: &[u8], signature: &[u8]) -> bool {
        UnparsedPublicKey::new(&ED25519, &self.public)
            .verify(message, signature)
            .is_ok()
    }
}

/// The Ed25519 signing keys of a JWKS. Anything else in the set (another key type, a key for
/// encryption, another algorithm) is skipped: nothing else may vouch for an answer.
pub(crate) fn parse(text: &str) -> Result<Vec<Key>, Error> {
    let set: Value = serde_json::from_str(text)
        .map_err(|error| Error::Invalid(format!("the JWKS is not JSON: {error}")))?;
    let list = set
        .get("keys")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::Invalid("the JWKS has no keys array".into()))?;
    let keys: Vec<Key> = list.iter().filter_map(ed25519_key).collect();
    if keys.is_empty() {
        return Err(Error::Invalid("the JWKS has no Ed25519 signing key".into()));
    }
    Ok(keys)
}

fn ed25519_key(jwk: &Value) -> Option<Key> {
    let field = |name: &str| jwk.get(name).and_then(Value::as_str);
    let absent_or = |name: &str, expected: &str| match jwk.get(name) {
        None => true,
        Some(value) => value == expected,
    };
    if field("kty")? != "OKP" || field("crv")? != "Ed25519" {
        return None;
    }
    if !absent_or("alg", "EdDSA") || !absent_or("use", "sig") {
        return None;
    }
    let public = base64url_decode(field("x")?).filter(|x| x.len() == 32)?;
    Some(Key {
        kid: field("kid")?.to_string(),
        public,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_ed25519_signing_keys_are_kept() {
        let x = crate::util::base64url_encode(&[7u8; 32]);
        let text = format!(
            r#"{{"keys":[
                {{"kty":"OKP","crv":"Ed25519","x":"{x}","kid":"good","alg":"EdDSA","use":"sig"}},
                {{"kty":"OKP","crv":"X25519","x":"{x}","kid":"x25519"}},
                {{"kty":"OKP","crv":"Ed25519","x":"{x}","kid":"enc","use":"enc"}},
                {{"kty":"RSA","n":"AQAB","e":"AQAB","kid":"rsa"}},
                {{"kty":"OKP","crv":"Ed25519","x":"AAAA","kid":"short"}}
            ]}}"#
        );
        let keys = parse(&text).unwrap();
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].kid, "good");
        assert_eq!(keys[0].public, vec![7u8; 32]);
    }

    #[test]
    fn a_set_without_a_usable_key_is_refused() {
        assert!(matches!(parse(r#"{"keys":[]}"#), Err(Error::Invalid(_))));
        assert!(matches!(parse("not json"), Err(Error::Invalid(_))));
        assert!(matches!(parse(r#"{"kty":"OKP"}"#), Err(Error::Invalid(_))));
    }
}
