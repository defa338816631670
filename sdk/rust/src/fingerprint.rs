//! A stable, privacy-preserving machine fingerprint, and the offline activation request.

use crate::error::Error;
use crate::machine::MachineDetails;
use crate::util::{base64_encode, hex, json_string, sha256};

/// This machine's fingerprint for `product_id`: lower-case hex SHA-256 of
/// `depot:<product_id>:<machine id>`, so that two vendors never see the same value and the value
/// says nothing about the machine.
///
/// The machine id is, trimmed: Windows' `MachineGuid` (`HKLM\SOFTWARE\Microsoft\Cryptography`),
/// macOS' `IOPlatformUUID` (`ioreg -rd1 -c IOPlatformExpertDevice`), Linux's `/etc/machine-id`, then
/// `/var/lib/dbus/machine-id`; or `machine_id` when given (e.g. a random id the app stores on first
/// start). It changes when the OS is reinstalled, a VM image is cloned with its id regenerated, or
/// (Windows) sysprep runs; containers built from one image may share one. No id found:
/// [`Error::Invalid`].
///
/// ```
/// let fp = depot_client::machine_fingerprint("1", Some("0123456789abcdef0123456789abcdef")).unwrap();
/// assert_eq!(fp, "bee1603142b8ed5996fe832fa4faa1d37b91f33a63af6e45c18f9fbee1adaf78");
/// ```
pub fn machine_fingerprint(product_id: &str, machine_id: Option<&str>) -> Result<String, Error> {
    let id = match machine_id {
        Some(id) => id.trim().to_string(),
        None => system_machine_id()?,
    };
    if id.is_empty() {
        return Err(Error::Invalid("the machine id is empty".into()));
    }
    Ok(hex(&sha256(format!("depot:{product_id}:{id}").as_bytes())))
}

#[cfg(target_os = "linux")]
fn system_machine_id() -> Result<String, Error> {
    ["/etc/machine-id", "/var/lib/dbus/machine-id"]
        .iter()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .map(|text| text.trim().to_string())
        .find(|id| !id.is_empty())
        .ok_or_else(|| {
            Error::Invalid(
                "no machine id: neither /etc/machine-id nor /var/lib/dbus/machine-id (pass one)"
                    .into(),
            )
        })
}

#[cfg(target_os = "macos")]
fn system_machine_id() -> Result<String, Error> {
    let out = command_output("ioreg", &["-rd1", "-c", "IOPlatformExpertDevice"])?;
    out.lines()
        .find(|line| line.contains("\"IOPlatformUUID\""))
        .and_then(|line| line.split('"').nth(3))
        .map(str::to_string)
        .ok_or_else(|| Error::Invalid("ioreg shows no IOPlatformUUID (pass a machine id)".into()))
}

#[cfg(windows)]
fn system_machine_id() -> Result<String, Error> {
    let out = command_output(
        "reg",
        &[
            "query",
            r"HKLM\SOFTWARE\Microsoft\Cryptography",
            "/v",
            "MachineGuid",
        ],
    )?;
    out.lines()
        .find(|line| line.trim_start().starts_with("MachineGuid"))
        .and_then(|line| line.split_whitespace().nth(2))
        .map(str::to_string)
        .ok_or_else(|| Error::Invalid("the registry has no MachineGuid (pass a machine id)".into()))
}

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
fn system_machine_id() -> Result<String, Error> {
    Err(Error::Invalid(
        "no machine id on this platform: pass one".into(),
    ))
}

#[cfg(any(target_os = "macos", windows))]
fn command_output(program: &str, args: &[&str]) -> Result<String, Error> {
    let output = std::process::Command::new(program)
        .args(args)
        .output()
        .map_err(|error| Error::io(program, error))?;
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The activation request an air-gapped machine writes (docs/vendors.md, "Offline activation"):
/// `{"v":1,"key":…,"fingerprint":…,"name":…,"platform":…,"hostname":…}` (absent details left out),
/// UTF-8, standard base64 without line breaks. The vendor's dashboard turns it into a license file,
/// which the machine checks with [`Client::verify_license_file`](crate::Client::verify_license_file)
/// and its fingerprint.
pub fn offline_activation_request(
    key: &str,
    fingerprint: &str,
    details: &MachineDetails,
) -> String {
    let mut json = format!(
        "{{\"v\":1,\"key\":{},\"fingerprint\":{}",
        json_string(key),
        json_string(fingerprint)
    );
    for (name, value) in details.fields() {
        json.push_str(&format!(",\"{name}\":{}", json_string(value)));
    }
    json.push('}');
    base64_encode(json.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_test_vector_holds() {
        assert_eq!(
            machine_fingerprint("1", Some(" 0123456789abcdef0123456789abcdef\n")).unwrap(),
            "bee1603142b8ed5996fe832fa4faa1d37b91f33a63af6e45c18f9fbee1adaf78"
        );
    }

    #[test]
    fn another_product_sees_another_value() {
        let id = Some("0123456789abcdef0123456789abcdef");
        assert_ne!(
            machine_fingerprint("1", id).unwrap(),
            machine_fingerprint("2", id).unwrap()
        );
        assert!(matches!(
            machine_fingerprint("1", Some("  ")),
            Err(Error::Invalid(_))
        ));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_machine_has_a_stable_fingerprint() {
        if std::path::Path::new("/etc/machine-id").exists() {
            let once = machine_fingerprint("1", None).unwrap();
            assert_eq!(once.len(), 64);
            assert_eq!(once, machine_fingerprint("1", None).unwrap());
        }
    }

    #[test]
    fn the_offline_request_is_base64_of_the_documented_json() {
        let details = MachineDetails::new().name("Vault").hostname("vault");
        let request = offline_activation_request("AAAAA-BBBBB", "fp-1", &details);
        let json = String::from_utf8(base64::decode(&request).unwrap()).unwrap();
        assert_eq!(
            json,
            r#"{"v":1,"key":"AAAAA-BBBBB","fingerprint":"fp-1","name":"Vault","hostname":"vault"}"#
        );
        assert!(!request.contains('\n'));
    }
}
