//! Downloads: streamed to `<file_name>.part`, resumed with `Range`, hashed, renamed only when the
//! hashes match. The name is the artifact's, never a header's, and never leaves the directory.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::thread;

use ring::constant_time::verify_slices_are_equal;
use ring::digest;

use crate::config::Config;
use crate::error::{Error, Refusal};
use crate::http::backoff;
use crate::types::Artifact;
use crate::util::{base64_decode, hex};

/// Redirects a download may follow (to a bucket's presigned URL, say).
const MAX_REDIRECTS: usize = 5;

pub(crate) fn agent(config: &Config) -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout_connect(config.timeout)
        // Between bytes, not the whole file: a large file on a slow line is not a timeout.
        .timeout_read(config.timeout)
        .timeout_write(config.timeout)
        // Followed by hand, so that the license key goes to depot only.
        .redirects(0)
        .user_agent(&config.user_agent)
        .build()
}

/// Refuses a name that could write anywhere but `directory/<name>`.
pub(crate) fn check_file_name(name: &str) -> Result<(), Error> {
    // ':' is a drive or a stream on Windows: nothing depot names needs one, nor a control character.
    let hostile = name.is_empty()
        || name.contains(['/', '\\', ':'])
        || name.contains("..")
        || name.starts_with('.')
        || name.chars().any(|c| c.is_ascii_control());
    if hostile {
        return Err(Error::Unverifiable(format!(
            "the artifact's file name {name:?} is not a plain file name"
        )));
    }
    Ok(())
}

enum Outcome {
    Complete,
    /// The .part was not a prefix of the file (416): deleted, start over.
    Restart,
    /// Worth another attempt (the connection dropped, a 5xx): resumes from the `.part`.
    Retry(Error),
}

pub(crate) fn download(
    agent: &ureq::Agent,
    config: &Config,
    key: &str,
    artifact: &Artifact,
    directory: &Path,
    on_progress: &mut dyn FnMut(u64, u64),
) -> Result<PathBuf, Error> {
    check_file_name(&artifact.file_name)?;
    if artifact.sha256.is_none() && artifact.sha512.is_none() {
        return Err(Error::Unverifiable(format!(
            "the artifact {} carries no sha256 or sha512 to check it by",
            artifact.file_name
        )));
    }
    let target = directory.join(&artifact.file_name);
    let part = directory.join(format!("{}.part", artifact.file_name));
    // A .part already whole (the app stopped before the rename): checked, and fetched again only
    // when it does not match.
    let whole = artifact.file_size > 0
        && fs::metadata(&part).map(|m| m.len()).ok() == Some(artifact.file_size);
    let mut done = whole && check_hashes(&part, artifact).is_ok();
    if whole && !done {
        fs::remove_file(&part).map_err(|error| Error::io(&part, error))?;
    }
    let checked = done;
    let mut attempt = 0;
    let mut restarted = false;
    while !done {
        match fetch(agent, key, artifact, &part, on_progress)? {
            Outcome::Complete => done = true,
            // Once: a .part that is no prefix of the file is dropped and the download starts over.
            Outcome::Restart if !restarted => restarted = true,
            Outcome::Restart => {
                return Err(Error::Unverifiable(
                    "the server refuses the range of a fresh download".into(),
                ))
            }
            Outcome::Retry(error) => {
                let wait = backoff(attempt);
                if attempt >= config.retries || wait > config.max_retry_wait {
                    return Err(error);
                }
                thread::sleep(wait);
                attempt += 1;
            }
        }
    }
    if !checked {
        if let Err(error) = check_hashes(&part, artifact) {
            let _ = fs::remove_file(&part);
            return Err(error);
        }
    }
    fs::rename(&part, &target).map_err(|error| Error::io(&target, error))?;
    Ok(target)
}

/// One request: appends to the `.part` from where it ends.
fn fetch(
    agent: &ureq::Agent,
    key: &str,
    artifact: &Artifact,
    part: &Path,
    on_progress: &mut dyn FnMut(u64, u64),
) -> Result<Outcome, Error> {
    let mut have = fs::metadata(part).map(|m| m.len()).unwrap_or(0);
    let size = artifact.file_size;
    if size > 0 && have > size {
        fs::remove_file(part).map_err(|error| Error::io(part, error))?;
        have = 0;
    }
    let response = match request(agent, key, &artifact.download_url, have) {
        Ok(response) => response,
        Err(error @ Error::Unreachable(_)) => return Ok(Outcome::Retry(error)),
        Err(error) => return Err(error),
    };
    let mut file = match response.status() {
        206 if starts_at(&response) == Some(have) => OpenOptions::new()
            .append(true)
            .open(part)
            .map_err(|error| Error::io(part, error))?,
        // The whole file (a server that ignores ranges, or none asked): start over.
        200 => {
            have = 0;
            File::create(part).map_err(|error| Error::io(part, error))?
        }
        // The range is past the end: the .part is not a prefix of this file.
        416 => {
            fs::remove_file(part).map_err(|error| Error::io(part, error))?;
            return Ok(Outcome::Restart);
        }
        206 => {
            return Err(Error::Unverifiable(
                "the server answered another range than the one asked".into(),
            ))
        }
        status if status >= 500 => {
            return Ok(Outcome::Retry(Error::Unreachable(format!(
                "{} answered {status}",
                artifact.download_url
            ))))
        }
        _ => return Err(Error::Refused(refusal(response))),
    };
    on_progress(have, size);
    let mut reader = response.into_reader();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => {
                return Ok(Outcome::Retry(Error::Unreachable(format!(
                    "{}: {error}",
                    artifact.download_url
                ))))
            }
        };
        have += read as u64;
        if size > 0 && have > size {
            drop(file);
            let _ = fs::remove_file(part);
            return Err(Error::Unverifiable(format!(
                "the download is larger than the artifact's {size} bytes"
            )));
        }
        file.write_all(&buffer[..read])
            .map_err(|error| Error::io(part, error))?;
        on_progress(have, size);
    }
    file.sync_all().map_err(|error| Error::io(part, error))?;
    // ureq reads a connection closed before its Content-Length as an end: the .part is short.
    if have < size {
        return Ok(Outcome::Retry(Error::Unreachable(format!(
            "{}: the connection closed after {have} of {size} bytes",
            artifact.download_url
        ))));
    }
    Ok(Outcome::Complete)
}

/// The GET, following redirects by hand: the license key goes only to the host the URL names
/// first, never to where it redirects (a bucket, a CDN).
fn request(agent: &ureq::Agent, key: &str, url: &str, from: u64) -> Result<ureq::Response, Error> {
    let origin = origin(url).map(str::to_string);
    let mut url = url.to_string();
    for _ in 0..=MAX_REDIRECTS {
        let mut call = agent.get(&url);
        if origin.as_deref() == self::origin(&url) {
            call = call.set("x-license-key", key);
        }
        if from > 0 {
            call = call.set("range", &format!("bytes={from}-"));
        }
        let response = match call.call() {
            Ok(response) | Err(ureq::Error::Status(_, response)) => response,
            Err(ureq::Error::Transport(transport)) => {
                return Err(Error::Unreachable(transport.to_string()))
            }
        };
        if !(300..400).contains(&response.status()) || response.status() == 304 {
            return Ok(response);
        }
        let location = response
            .header("location")
            .ok_or_else(|| Error::Unreachable(format!("{url}: a redirect without a Location")))?;
        url = resolve(&url, location);
    }
    Err(Error::Unreachable(format!(
        "{url}: more than {MAX_REDIRECTS} redirects"
    )))
}

/// `scheme://host:port` of an absolute URL.
fn origin(url: &str) -> Option<&str> {
    let after_scheme = url.find("://")? + 3;
    let end = url[after_scheme..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |at| after_scheme + at);
    Some(&url[..end])
}

/// A `Location` against the URL it came from: absolute, scheme-relative or path-absolute.
fn resolve(base: &str, location: &str) -> String {
    if location.contains("://") {
        location.to_string()
    } else if let Some(rest) = location.strip_prefix("//") {
        let scheme = base.split("://").next().unwrap_or("https");
        format!("{scheme}://{rest}")
    } else if location.starts_with('/') {
        format!("{}{location}", origin(base).unwrap_or(""))
    } else {
        let directory = base.rfind('/').map_or(base, |at| &base[..=at]);
        format!("{directory}{location}")
    }
}

/// Where a 206's `Content-Range: bytes START-END/SIZE` starts.
fn starts_at(response: &ureq::Response) -> Option<u64> {
    let range = response.header("content-range")?.strip_prefix("bytes ")?;
    range.split('-').next()?.trim().parse().ok()
}

fn refusal(response: ureq::Response) -> Refusal {
    let status = response.status();
    let raw = response
        .into_string()
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .unwrap_or_default();
    let message = raw
        .get("message")
        .and_then(|message| message.as_str())
        .unwrap_or_default()
        .to_string();
    Refusal {
        code: Refusal::code_of_status(status),
        message,
        status,
        retry_after: None,
        raw,
    }
}

/// The `.part` against the artifact's hashes: each one it carries must match.
fn check_hashes(part: &Path, artifact: &Artifact) -> Result<(), Error> {
    let mut sha256 = digest::Context::new(&digest::SHA256);
    let mut sha512 = digest::Context::new(&digest::SHA512);
    let mut file = File::open(part).map_err(|error| Error::io(part, error))?;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = file
            .read(&mut buffer)
            .map_err(|error| Error::io(part, error))?;
        if read == 0 {
            break;
        }
        sha256.update(&buffer[..read]);
        sha512.update(&buffer[..read]);
    }
    if let Some(expected) = &artifact.sha256 {
        if hex(sha256.finish().as_ref()) != expected.trim().to_ascii_lowercase() {
            return Err(Error::Unverifiable(format!(
                "{}: the sha256 differs from the artifact's",
                artifact.file_name
            )));
        }
    }
    if let Some(expected) = &artifact.sha512 {
        let matches = base64_decode(expected.trim())
            .is_some_and(|bytes| verify_slices_are_equal(&bytes, sha512.finish().as_ref()).is_ok());
        if !matches {
            return Err(Error::Unverifiable(format!(
                "{}: the sha512 differs from the artifact's",
                artifact.file_name
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_file_names_are_refused() {
        for name in [
            "", "../evil", "a/b", "a\\b", ".hidden", "x\0y", "..", "a..b",
        ] {
            assert!(check_file_name(name).is_err(), "{name:?}");
        }
        assert!(check_file_name("desk-clock-1.1.0-linux-x86_64.tar.gz").is_ok());
    }

    #[test]
    fn redirects_resolve_against_their_url() {
        let base = "http://127.0.0.1:8080/api/products/1/versions/2/download";
        assert_eq!(
            resolve(base, "https://bucket.example/x?sig=1"),
            "https://bucket.example/x?sig=1"
        );
        assert_eq!(resolve(base, "//cdn.example/x"), "http://cdn.example/x");
        assert_eq!(resolve(base, "/files/x"), "http://127.0.0.1:8080/files/x");
        assert_eq!(
            resolve(base, "x"),
            "http://127.0.0.1:8080/api/products/1/versions/2/x"
        );
        assert_eq!(origin(base), Some("http://127.0.0.1:8080"));
        assert_eq!(origin("http://h:1?q"), Some("http://h:1"));
    }
}
