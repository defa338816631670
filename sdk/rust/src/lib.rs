//! depot's client library for Rust apps (Tauri, native tools): validate a license key, activate
//! the machine, keep working offline, and find and download updates — every answer verified as
//! depot's before it is returned (an RFC 9421 Ed25519 signature by a key the app pins, an RFC 9530
//! digest of the exact bytes, the nonce sent, the license and product asked about).
//!
//! ```no_run
//! use depot_client::{Client, Config, Error};
//!
//! let config = Config::new("https://licenses.example.com", "1", include_str!("../tests/fixtures/example-jwks.json"));
//! let client = Client::new(config)?;
//! match client.validate("XXXXX-XXXXX-XXXXX-XXXXX-XXXXX", None) {
//!     Ok(v) if v.valid => println!("licensed"),
//!     Ok(v) => println!("not licensed: {}", v.code),
//!     Err(Error::Unverifiable(why)) => println!("not depot's answer: {why}"),
//!     Err(Error::Unreachable(why)) => println!("offline: {why}"),
//!     Err(other) => println!("{other}"),
//! }
//! # Ok::<(), Error>(())
//! ```
//!
//! Every call blocks. Speaks depot's HTTP API as of depot 0.1 (`/api/v1`, the signing scheme of
//! docs/integrators.md). The contract it keeps with the other languages' libraries is
//! `sdk/README.md` in depot's repository.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod client;
mod config;
mod download;
mod error;
mod fingerprint;
mod http;
mod jwks;
mod license_file;
mod machine;
mod signature;
mod state;
mod types;
mod util;

pub use client::{CheckoutOptions, Client, UpdateOptions};
pub use config::{Clock, Config};
pub use error::{Error, Refusal};
pub use fingerprint::{machine_fingerprint, offline_activation_request};
pub use license_file::LicenseFileOptions;
pub use machine::{Heartbeat, HeartbeatOptions, MachineDetails};
pub use signature::SignedAnswer;
pub use types::{
    codes, Activation, Artifact, Count, License, LicenseFile, Machine, Source, Status, Upgrade,
    Validation, Version,
};
