//! What `status()` falls back on: the last verified validation of a key (and fingerprint) and the
//! license file last checked out, in memory and, with `state_dir`, on disk. A validation is kept
//! as it came (status, signed headers, body bytes, the nonce sent) so that it is verified again
//! when it is read back: a file edited on disk verifies no more than a forged answer.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::{json, Value};

use crate::error::Error;
use crate::signature::SignedAnswer;
use crate::util::{base64_decode, base64_encode, hex, normalise_key, sha256};

/// A validation as it was received, and the nonce it answered.
#[derive(Debug, Clone)]
pub(crate) struct KeptAnswer {
    pub answer: SignedAnswer,
    pub nonce: String,
}

#[derive(Debug)]
pub(crate) struct Store {
    dir: Option<PathBuf>,
    answers: Mutex<HashMap<String, KeptAnswer>>,
    files: Mutex<HashMap<String, String>>,
}

impl Store {
    /// A store in memory, and in `dir` when given (created now, so that a wrong path shows at once).
    pub fn new(dir: Option<&Path>) -> Result<Store, Error> {
        if let Some(dir) = dir {
            fs::create_dir_all(dir).map_err(|error| Error::io(dir, error))?;
        }
        Ok(Store {
            dir: dir.map(Path::to_path_buf),
            answers: Mutex::new(HashMap::new()),
            files: Mutex::new(HashMap::new()),
        })
    }

    pub fn keep_answer(&self, key: &str, fingerprint: Option<&str>, kept: KeptAnswer) {
        let name = answer_name(key, fingerprint);
        if let Some(path) = self.path(&name) {
            let answer = &kept.answer;
            let record = json!({
                "v": 1,
                "status": answer.status,
                "contentType": answer.content_type,
                "contentDigest": answer.content_digest,
                "signatureInput": answer.signature_input,
                "signature": answer.signature,
                "body": base64_encode(&answer.body),
                "nonce": kept.nonce,
            });
            write_atomically(&path, record.to_string().as_bytes());
        }
        lock(&self.answers).insert(name, kept);
    }

    pub fn kept_answer(&self, key: &str, fingerprint: Option<&str>) -> Option<KeptAnswer> {
        let name = answer_name(key, fingerprint);
        if let Some(kept) = lock(&self.answers).get(&name) {
            return Some(kept.clone());
        }
        let record: Value = serde_json::from_slice(&fs::read(self.path(&name)?).ok()?).ok()?;
        let text = |field: &str| {
            record
                .get(field)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        Some(KeptAnswer {
            answer: SignedAnswer {
                status: u16::try_from(record.get("status")?.as_u64()?).ok()?,
                content_type: text("contentType"),
                content_digest: text("contentDigest"),
                signature_input: text("signatureInput"),
                signature: text("signature"),
                body: base64_decode(&text("body")?)?,
            },
            nonce: text("nonce")?,
        })
    }

    pub fn keep_license_file(&self, key: &str, file: &str) {
        let name = file_name(key);
        if let Some(path) = self.path(&name) {
            write_atomically(&path, file.as_bytes());
        }
        lock(&self.files).insert(name, file.to_string());
    }

    pub fn kept_license_file(&self, key: &str) -> Option<String> {
        let name = file_name(key);
        if let Some(file) = lock(&self.files).get(&name) {
            return Some(file.clone());
        }
        fs::read_to_string(self.path(&name)?).ok()
    }

    fn path(&self, name: &str) -> Option<PathBuf> {
        self.dir.as_ref().map(|dir| dir.join(name))
    }
}

/// A poisoned lock only means another thread panicked while holding it: the map is still whole.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// File names say nothing of the key: a hash of it (and of the fingerprint).
fn answer_name(key: &str, fingerprint: Option<&str>) -> String {
    let id = format!("{}\n{}", normalise_key(key), fingerprint.unwrap_or(""));
    format!("validation-{}.json", &hex(&sha256(id.as_bytes()))[..32])
}

fn file_name(key: &str) -> String {
    format!(
        "license-{}.lic",
        &hex(&sha256(normalise_key(key).as_bytes()))[..32]
    )
}

/// Best effort, never half a file: status() must not fail because the disk is full, and a file cut
/// short by a crash would only fail its check later.
fn write_atomically(path: &Path, bytes: &[u8]) {
    let temporary = path.with_extension(format!("tmp{}", std::process::id()));
    if fs::write(&temporary, bytes)
        .and_then(|()| fs::rename(&temporary, path))
        .is_err()
    {
        let _ = fs::remove_file(&temporary);
    }
}
