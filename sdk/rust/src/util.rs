//! Small helpers the modules share: encodings, hashes, time, the nonce.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ring::digest;
use ring::rand::{SecureRandom, SystemRandom};

pub(crate) fn sha256(bytes: &[u8]) -> Vec<u8> {
    digest::digest(&digest::SHA256, bytes).as_ref().to_vec()
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(DIGITS[(byte >> 4) as usize] as char);
        out.push(DIGITS[(byte & 15) as usize] as char);
    }
    out
}

/// Standard base64 with padding (RFC 4648 §4), as `Content-Digest` and `Signature` carry it.
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    base64::decode_config(text, base64::STANDARD).ok()
}

pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    base64::encode_config(bytes, base64::STANDARD)
}

/// base64url, padding optional (JWK `x`, a JWS's parts).
pub(crate) fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    base64::decode_config(text.trim_end_matches('='), base64::URL_SAFE_NO_PAD).ok()
}

pub(crate) fn base64url_encode(bytes: &[u8]) -> String {
    base64::encode_config(bytes, base64::URL_SAFE_NO_PAD)
}

/// 16 bytes nobody can predict, base64url: a fresh one per request, so that only an answer to this
/// very request can echo it.
pub(crate) fn nonce() -> String {
    let mut bytes = [0u8; 16];
    SystemRandom::new()
        .fill(&mut bytes)
        .expect("the operating system's random number generator failed");
    base64url_encode(&bytes)
}

/// A number in [0, 1) from the system's generator, for the backoff's jitter.
pub(crate) fn random_fraction() -> f64 {
    let mut bytes = [0u8; 4];
    if SystemRandom::new().fill(&mut bytes).is_err() {
        return 0.5;
    }
    f64::from(u32::from_le_bytes(bytes)) / (f64::from(u32::MAX) + 1.0)
}

/// How depot looks a key up: surrounding spaces and letter case do not matter.
pub(crate) fn normalise_key(key: &str) -> String {
    key.trim().to_uppercase()
}

/// Seconds since the Unix epoch (negative before it).
pub(crate) fn unix_seconds(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_secs() as i64,
        Err(before) => -(before.duration().as_secs() as i64),
    }
}

pub(crate) fn from_unix_seconds(seconds: i64) -> SystemTime {
    if seconds >= 0 {
        UNIX_EPOCH + Duration::from_secs(seconds as u64)
    } else {
        UNIX_EPOCH - Duration::from_secs(seconds.unsigned_abs())
    }
}

/// A URL path segment or query value: everything but RFC 3986's unreserved characters escaped.
pub(crate) fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `Retry-After`: delay-seconds or an HTTP date (RFC 9110 §10.2.3), as a wait from `now`.
pub(crate) fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return value.parse::<u64>().ok().map(Duration::from_secs);
    }
    let at = http_date(value)?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the only form RFC 9110 lets servers send.
pub(crate) fn http_date(text: &str) -> Option<SystemTime> {
    let parts: Vec<&str> = text.split_whitespace().collect();
    if parts.len() != 6 || !parts[0].ends_with(',') || parts[5] != "GMT" {
        return None;
    }
    let day: i64 = parts[1].parse().ok()?;
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| *m == parts[2])? as i64 + 1;
    let year: i64 = parts[3].parse().ok()?;
    let clock: Vec<&str> = parts[4].split(':').collect();
    if clock.len() != 3 {
        return None;
    }
    let (h, m, s): (i64, i64, i64) = (
        clock[0].parse().ok()?,
        clock[1].parse().ok()?,
        clock[2].parse().ok()?,
    );
    if !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(from_unix_seconds(days * 86_400 + h * 3600 + m * 60 + s))
}

/// A UTC timestamp as depot writes them (`2026-12-04T23:12:21.000Z`, JavaScript's toISOString).
pub(crate) fn iso_timestamp(text: &str) -> Option<SystemTime> {
    let text = text.strip_suffix('Z')?;
    let (date, clock) = text.split_once('T')?;
    let mut date = date.split('-');
    let (year, month, day): (i64, i64, i64) = (
        date.next()?.parse().ok()?,
        date.next()?.parse().ok()?,
        date.next()?.parse().ok()?,
    );
    let (clock, fraction) = clock.split_once('.').unwrap_or((clock, ""));
    let mut clock = clock.split(':');
    let (h, m, s): (i64, i64, i64) = (
        clock.next()?.parse().ok()?,
        clock.next()?.parse().ok()?,
        clock.next()?.parse().ok()?,
    );
    let millis: u64 = match fraction {
        "" => 0,
        digits if digits.len() <= 3 && digits.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{digits:0<3}").parse().ok()?
        }
        _ => return None,
    };
    if date.next().is_some() || clock.next().is_some() {
        return None;
    }
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 {
        return None;
    }
    let seconds = days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + s;
    Some(from_unix_seconds(seconds) + Duration::from_millis(millis))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A JSON string literal, for the few texts whose member order is part of the contract.
pub(crate) fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_dates_are_read_as_rfc_9110_writes_them() {
        assert_eq!(
            http_date("Sun, 06 Nov 1994 08:49:37 GMT").map(unix_seconds),
            Some(784_111_777)
        );
        assert_eq!(
            http_date("Thu, 01 Jan 1970 00:00:00 GMT").map(unix_seconds),
            Some(0)
        );
        assert_eq!(http_date("Sunday, 06-Nov-94 08:49:37 GMT"), None);
        assert_eq!(http_date("06 Nov 1994 08:49:37 GMT"), None);
    }

    #[test]
    fn iso_timestamps_are_read_as_depot_writes_them() {
        let at = UNIX_EPOCH + Duration::from_secs(1_796_425_941);
        assert_eq!(iso_timestamp("2026-12-04T23:12:21.000Z"), Some(at));
        assert_eq!(iso_timestamp("2026-12-04T23:12:21Z"), Some(at));
        assert_eq!(
            iso_timestamp("2026-12-04T23:12:21.5Z"),
            Some(at + Duration::from_millis(500))
        );
        for bad in [
            "2026-12-04T23:12:21",
            "2026-13-04T23:12:21Z",
            "yesterday",
            "",
        ] {
            assert_eq!(iso_timestamp(bad), None, "{bad}");
        }
    }

    #[test]
    fn retry_after_takes_seconds_or_a_date() {
        let now = from_unix_seconds(784_111_777);
        assert_eq!(retry_after("120", now), Some(Duration::from_secs(120)));
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:50:07 GMT", now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            retry_after("Sun, 06 Nov 1994 08:40:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-5", now), None);
    }

    #[test]
    fn nonces_are_16_random_bytes_in_base64url() {
        let (a, b) = (nonce(), nonce());
        assert_eq!(a.len(), 22);
        assert_ne!(a, b);
        assert_eq!(base64url_decode(&a).map(|bytes| bytes.len()), Some(16));
    }

    #[test]
    fn percent_encoding_keeps_only_unreserved_characters() {
        assert_eq!(percent_encode("1.0.0-beta+x y/z"), "1.0.0-beta%2Bx%20y%2Fz");
    }
}
