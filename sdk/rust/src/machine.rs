//! Machines: the details an activation names, and the background heartbeat.

use std::fmt;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::client::Client;
use crate::error::Error;

/// What an activation tells the vendor about the machine, each optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MachineDetails {
    pub(crate) name: Option<String>,
    pub(crate) platform: Option<String>,
    pub(crate) hostname: Option<String>,
}

impl MachineDetails {
    /// No details.
    pub fn new() -> MachineDetails {
        MachineDetails::default()
    }

    /// A name the customer recognises (“Ada's laptop”).
    pub fn name(mut self, name: impl Into<String>) -> MachineDetails {
        self.name = Some(name.into());
        self
    }

    /// e.g. `linux-x64`, `windows-x64`, `macos-arm64`.
    pub fn platform(mut self, platform: impl Into<String>) -> MachineDetails {
        self.platform = Some(platform.into());
        self
    }

    /// The machine's host name.
    pub fn hostname(mut self, hostname: impl Into<String>) -> MachineDetails {
        self.hostname = Some(hostname.into());
        self
    }

    /// The details given, in the contract's order.
    pub(crate) fn fields(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            ("name", &self.name),
            ("platform", &self.platform),
            ("hostname", &self.hostname),
        ]
        .into_iter()
        .filter_map(|(name, value)| value.as_deref().map(|value| (name, value)))
    }
}

type OnError = Box<dyn FnMut(&Error) + Send>;

/// How [`Client::start_heartbeat`] beats.
pub struct HeartbeatOptions {
    pub(crate) interval: Duration,
    pub(crate) on_error: Option<OnError>,
}

impl HeartbeatOptions {
    /// Every 60 s, errors ignored.
    pub fn new() -> HeartbeatOptions {
        HeartbeatOptions {
            interval: Duration::from_secs(60),
            on_error: None,
        }
    }

    /// How often (default 60 s). Keep it well under the license's `heartbeat_seconds`: half of it
    /// is a good choice (`activation.license.heartbeat_seconds`).
    pub fn interval(mut self, interval: Duration) -> HeartbeatOptions {
        self.interval = interval.max(Duration::from_millis(10));
        self
    }

    /// Told of every failed heartbeat, on the heartbeat's thread.
    pub fn on_error(mut self, on_error: impl FnMut(&Error) + Send + 'static) -> HeartbeatOptions {
        self.on_error = Some(Box::new(on_error));
        self
    }
}

impl Default for HeartbeatOptions {
    fn default() -> HeartbeatOptions {
        HeartbeatOptions::new()
    }
}

impl fmt::Debug for HeartbeatOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HeartbeatOptions")
            .field("interval", &self.interval)
            .field("on_error", &self.on_error.is_some())
            .finish()
    }
}

/// A running background heartbeat. [`stop`](Heartbeat::stop) — or dropping it — ends the thread
/// (after the heartbeat in flight, if one is).
#[derive(Debug)]
pub struct Heartbeat {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
    last_error: Arc<Mutex<Option<String>>>,
}

impl Heartbeat {
    pub(crate) fn start(
        client: Client,
        key: String,
        machine_id: String,
        options: HeartbeatOptions,
    ) -> Heartbeat {
        let (stop, stopped) = mpsc::channel::<()>();
        let last_error = Arc::new(Mutex::new(None));
        let record = Arc::clone(&last_error);
        let HeartbeatOptions {
            interval,
            mut on_error,
        } = options;
        let thread = std::thread::Builder::new()
            .name("depot-heartbeat".into())
            // The first at once: a lease that died while the app was closed is known now.
            .spawn(move || loop {
                let result = client.heartbeat(&key, &machine_id);
                *record.lock().unwrap_or_else(|p| p.into_inner()) =
                    result.as_ref().err().map(ToString::to_string);
                if let Err(error) = result {
                    if let Some(on_error) = on_error.as_mut() {
                        on_error(&error);
                    }
                    // A refusal (a dead machine, a revoked license, another license's machine) will
                    // not pass by itself: the app must activate again. Anything else may.
                    if matches!(error, Error::Refused(_)) {
                        return;
                    }
                }
                match stopped.recv_timeout(interval) {
                    Err(RecvTimeoutError::Timeout) => {}
                    _ => return,
                }
            })
            .expect("cannot start the heartbeat thread");
        Heartbeat {
            stop: Some(stop),
            thread: Some(thread),
            last_error,
        }
    }

    /// Stops the heartbeat and waits for its thread to end.
    pub fn stop(mut self) {
        self.end();
    }

    /// Whether it still beats: false once stopped, or after depot refused a heartbeat.
    pub fn is_running(&self) -> bool {
        self.thread
            .as_ref()
            .is_some_and(|thread| !thread.is_finished())
    }

    /// The last heartbeat's error, `None` when it succeeded (or none was sent yet).
    pub fn last_error(&self) -> Option<String> {
        self.last_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn end(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.end();
    }
}
