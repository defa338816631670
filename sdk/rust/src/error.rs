//! The outcomes that are not a result: unverifiable, unreachable, refused, and the caller's own
//! mistakes.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Everything a call can fail with. Unverifiable, unreachable and refused are the three answers an
/// app must tell apart; a license that is merely not valid is not an error but a
/// [`Validation`](crate::Validation) with `valid: false`.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// An answer came, but it is not provably depot's answer to this request: unsigned, a bad
    /// digest or signature, a key that is not pinned, `created` outside the skew window, another
    /// nonce, another license or product, a body that is not JSON, a download whose hash differs or
    /// whose file name is not a plain one, a license file that does not verify. Never trust it.
    Unverifiable(String),
    /// No answer: DNS, a refused connection, a timeout, TLS, or a 5xx after the retries.
    Unreachable(String),
    /// depot refused the request with a signed answer (a machine or update call, or a refusal of
    /// the request itself: 401, 403, 404, 422, 429).
    Refused(Refusal),
    /// The caller's input or settings cannot be used: a JWKS without an Ed25519 key, a server URL
    /// that is not http(s), no machine id.
    Invalid(String),
    /// Reading or writing a local file failed (a download, `state_dir`, the machine id).
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the operating system said.
        error: std::io::Error,
    },
}

/// A signed refusal: what depot said, by its code.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// `TOO_MANY_MACHINES`, `TOO_MANY_ACTIVATIONS`, `HEARTBEAT_DEAD`, `REVOKED`, `EXPIRED`,
    /// `NOT_FOUND`, `MACHINE_FILE_VALID` as depot names them (`PRODUCT_MISMATCH` for an
    /// activation on another product's license); for a refusal without a code, from its status:
    /// `INVALID` (400, 422), `UNAUTHENTICATED` (401), `FORBIDDEN` (403), `NOT_FOUND` (404),
    /// `TOO_MANY_REQUESTS` (429), else `HTTP_<status>`.
    pub code: String,
    /// depot's message, for people.
    pub message: String,
    /// The HTTP status.
    pub status: u16,
    /// `Retry-After`, when the refusal carries one (`TOO_MANY_ACTIVATIONS`, a 429).
    pub retry_after: Option<Duration>,
    /// The refusal's JSON body as depot sent it (`Null` when it was not JSON), for what the
    /// fields above do not show.
    pub raw: serde_json::Value,
}

impl Refusal {
    /// The code of a refusal whose body names none, by its status.
    pub(crate) fn code_of_status(status: u16) -> String {
        use crate::codes;
        match status {
            400 | 422 => codes::INVALID,
            401 => codes::UNAUTHENTICATED,
            403 => codes::FORBIDDEN,
            404 => codes::NOT_FOUND,
            429 => codes::TOO_MANY_REQUESTS,
            _ => return format!("HTTP_{status}"),
        }
        .to_string()
    }

    /// `MACHINE_FILE_VALID`: when the license file that holds the machine's seat expires (the
    /// machine cannot be deactivated before); `None` for any other refusal.
    pub fn file_expires_at(&self) -> Option<std::time::SystemTime> {
        self.raw
            .get("fileExpiresAt")
            .and_then(serde_json::Value::as_str)
            .and_then(crate::util::iso_timestamp)
    }

    /// A 422's messages per field (its `errors`), empty for any other refusal.
    pub fn field_errors(&self) -> BTreeMap<String, Vec<String>> {
        let fields = match self
            .raw
            .get("errors")
            .and_then(serde_json::Value::as_object)
        {
            Some(fields) => fields,
            None => return BTreeMap::new(),
        };
        fields
            .iter()
            .map(|(field, messages)| {
                let list = match messages {
                    serde_json::Value::Array(list) => list
                        .iter()
                        .filter_map(|m| m.as_str().map(str::to_string))
                        .collect(),
                    serde_json::Value::String(one) => vec![one.clone()],
                    _ => Vec::new(),
                };
                (field.clone(), list)
            })
            .collect()
    }
}

impl Error {
    /// The refusal's code, when depot refused.
    pub fn refusal_code(&self) -> Option<&str> {
        match self {
            Error::Refused(refusal) => Some(&refusal.code),
            _ => None,
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, error: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            error,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unverifiable(reason) => write!(f, "the answer could not be verified: {reason}"),
            Error::Unreachable(reason) => write!(f, "depot could not be reached: {reason}"),
            Error::Refused(refusal) => write!(f, "{refusal}"),
            Error::Invalid(reason) => f.write_str(reason),
            Error::Io { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "depot refused ({} {}): {}",
            self.status, self.code, self.message
        )
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl std::error::Error for Refusal {}
