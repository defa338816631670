//! depot's conformance driver for the Rust library (sdk/README.md, "The conformance suite"):
//!
//!   depot-conformance --server URL --jwks FILE --product ID --key KEY [--fingerprint FP]
//!     [--current-version V --platform P --arch A]
//!
//! Activates the fingerprint when given, validates, checks for an update when a current version
//! is given, and prints one JSON line. Exit 0 valid and verified, 1 verified but not valid (a
//! signed refusal of the activation or the update check is that too, its code as `code`),
//! 2 unverifiable, 3 unreachable, 64 usage.

use std::collections::HashMap;
use std::process::ExitCode;

use depot_client::{Client, Config, Error, MachineDetails, UpdateOptions};
use serde_json::{json, Map, Value};

const USAGE: &str = "usage: depot-conformance --server URL --jwks FILE --product ID --key KEY [--fingerprint FP] [--current-version V --platform P --arch A]";
const FLAGS: [&str; 8] = [
    "--server",
    "--jwks",
    "--product",
    "--key",
    "--fingerprint",
    "--current-version",
    "--platform",
    "--arch",
];

fn main() -> ExitCode {
    let args = match arguments() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            return ExitCode::from(64);
        }
    };
    let jwks = match std::fs::read_to_string(&args["--jwks"]) {
        Ok(jwks) => jwks,
        Err(error) => {
            eprintln!("cannot read {}: {error}\n{USAGE}", args["--jwks"]);
            return ExitCode::from(64);
        }
    };
    let client = match Client::new(Config::new(&args["--server"], &args["--product"], jwks)) {
        Ok(client) => client,
        Err(error) => {
            eprintln!("{error}\n{USAGE}");
            return ExitCode::from(64);
        }
    };
    match run(&client, &args) {
        Ok((line, valid)) => {
            println!("{line}");
            ExitCode::from(if valid { 0 } else { 1 })
        }
        Err(Error::Refused(refusal)) => {
            let line = json!({"valid": false, "code": refusal.code, "verified": true});
            println!("{}", ordered(line.as_object().expect("an object")));
            ExitCode::from(1)
        }
        Err(error) => {
            let (kind, code) = match &error {
                Error::Unreachable(_) => ("unreachable", 3),
                _ => ("unverifiable", 2),
            };
            let reason = match &error {
                Error::Unverifiable(reason) | Error::Unreachable(reason) => reason.clone(),
                other => other.to_string(),
            };
            println!(
                "{{\"verified\":false,\"error\":{},\"reason\":{}}}",
                json!(kind),
                json!(reason)
            );
            ExitCode::from(code)
        }
    }
}

/// The JSON line (members in the contract's order) and whether the license is valid.
fn run(client: &Client, args: &HashMap<&str, String>) -> Result<(String, bool), Error> {
    let key = &args["--key"];
    let fingerprint = args.get("--fingerprint").map(String::as_str);
    let machine = match fingerprint {
        Some(fingerprint) => {
            let details = MachineDetails::new().name("depot conformance");
            Some(client.activate(key, fingerprint, &details)?.machine)
        }
        None => None,
    };
    let validation = client.validate(key, fingerprint)?;
    let mut line = Map::new();
    line.insert("valid".into(), validation.valid.into());
    line.insert("code".into(), validation.code.clone().into());
    line.insert("verified".into(), true.into());
    if let Some(machine) = machine {
        line.insert("machine".into(), json!({ "id": machine.id }));
    }
    if let Some(current) = args.get("--current-version") {
        let mut options = UpdateOptions::new();
        if let Some(platform) = args.get("--platform") {
            options = options.platform(platform);
        }
        if let Some(arch) = args.get("--arch") {
            options = options.arch(arch);
        }
        let upgrade = client.check_for_update(key, current, &options)?;
        let version = upgrade
            .version
            .filter(|_| upgrade.upgrade)
            .map(|v| v.version_number);
        line.insert("upgrade".into(), json!({ "version": version }));
    }
    Ok((ordered(&line), validation.valid))
}

/// serde_json's map sorts its keys; the line keeps the contract's order.
fn ordered(line: &Map<String, Value>) -> String {
    let members: Vec<String> = ["valid", "code", "verified", "machine", "upgrade"]
        .iter()
        .filter_map(|name| {
            line.get(*name)
                .map(|value| format!("{}:{value}", json!(name)))
        })
        .collect();
    format!("{{{}}}", members.join(","))
}

fn arguments() -> Result<HashMap<&'static str, String>, String> {
    let mut args = HashMap::new();
    let mut given = std::env::args().skip(1);
    while let Some(flag) = given.next() {
        let name = FLAGS
            .iter()
            .find(|known| **known == flag)
            .ok_or_else(|| format!("unknown argument {flag:?}"))?;
        let value = given
            .next()
            .ok_or_else(|| format!("{flag} needs a value"))?;
        if args.insert(*name, value).is_some() {
            return Err(format!("{flag} given twice"));
        }
    }
    for required in ["--server", "--jwks", "--product", "--key"] {
        if !args.contains_key(required) {
            return Err(format!("{required} is required"));
        }
    }
    let update = ["--platform", "--arch"]
        .iter()
        .any(|flag| args.contains_key(flag));
    if update && !args.contains_key("--current-version") {
        return Err("--platform and --arch go with --current-version".into());
    }
    Ok(args)
}
