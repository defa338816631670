//! status() with the real depot stopped: the kept answer within the grace, then the license file,
//! then nothing. It stops the seeded depot, so sdk/rust/test.sh runs it last, on its own.

mod common;

use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use common::{temp_dir, Fixture};
use depot_client::{CheckoutOptions, Client, Error, Source};

#[test]
#[ignore = "stops the seeded depot: sdk/rust/test.sh runs it last"]
fn status_through_an_outage() {
    let f = Fixture::load();
    let key = f.get("key");
    let dir = temp_dir("outage");
    let client = Client::new(f.config().state_dir(&dir)).unwrap();
    assert_eq!(client.status(&key, None).source, Source::Online);
    assert!(client
        .checkout(&key, &CheckoutOptions::new())
        .unwrap()
        .license_file
        .is_some());

    // Stop depot (the server process start-depot runs) and wait until nobody listens.
    let status = Command::new("kill").arg(f.get("pid")).status().unwrap();
    assert!(status.success());
    let address = f.get("server").trim_start_matches("http://").to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(&address).is_ok() {
        assert!(Instant::now() < deadline, "depot did not stop");
        std::thread::sleep(Duration::from_millis(100));
    }

    // Within the grace: the kept answer, verified again as it is read.
    let cached = client.status(&key, None);
    assert_eq!(cached.source, Source::Cache, "{cached:?}");
    assert!(cached.valid);
    assert!(matches!(cached.error, Some(Error::Unreachable(_))));

    // Eight days later, from the state directory alone (a restarted app): the license file.
    let later = SystemTime::now() + Duration::from_secs(8 * 86_400);
    let restarted =
        Client::new(f.config().state_dir(&dir).retries(0).clock(move || later)).unwrap();
    let file = restarted.status(&key, None);
    assert_eq!(file.source, Source::LicenseFile, "{file:?}");
    assert!(file.valid);
    assert_eq!(file.code, "VALID");

    // A key nothing was kept for: not valid, and says why.
    let none = restarted.status(&f.get("otherKey"), None);
    assert_eq!(
        (none.valid, none.source, none.code.as_str()),
        (false, Source::None, "UNREACHABLE")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
