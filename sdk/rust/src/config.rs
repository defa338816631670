//! The settings of a [`Client`](crate::Client).

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// What "now" is, for tests.
pub type Clock = Arc<dyn Fn() -> SystemTime + Send + Sync>;

/// A client's settings: `Config::new(server, product_id, jwks)` and the setters below, each taking
/// and returning the config.
///
/// ```
/// use std::time::Duration;
/// # let jwks = r#"{"keys":[]}"#;
/// let config = depot_client::Config::new("https://licenses.example.com", "1", jwks)
///     .timeout(Duration::from_secs(5))
///     .retries(3)
///     .state_dir("/var/lib/my-app/depot");
/// ```
#[derive(Clone)]
pub struct Config {
    pub(crate) server: String,
    pub(crate) product_id: String,
    pub(crate) jwks: Option<String>,
    pub(crate) fetch_jwks: bool,
    pub(crate) timeout: Duration,
    pub(crate) retries: u32,
    pub(crate) max_retry_wait: Duration,
    pub(crate) max_clock_skew: Duration,
    pub(crate) offline_grace: Duration,
    pub(crate) state_dir: Option<PathBuf>,
    pub(crate) user_agent: String,
    pub(crate) clock: Clock,
}

impl Config {
    /// depot's base URL (`https://licenses.example.com`, a trailing slash is fine), the product the
    /// app is (its id, a string of digits), and the pinned key set: the JSON text of depot's
    /// `/.well-known/jwks.json`, shipped with the app (`include_str!("depot-jwks.json")`).
    pub fn new(
        server: impl Into<String>,
        product_id: impl Into<String>,
        jwks: impl Into<String>,
    ) -> Config {
        Config {
            jwks: Some(jwks.into()),
            ..Config::unpinned(server, product_id)
        }
    }

    /// A config without a pinned key set: the keys are fetched from the server itself. **Weaker**:
    /// a fake server publishes its own keys, so this is for development only.
    pub fn unpinned(server: impl Into<String>, product_id: impl Into<String>) -> Config {
        Config {
            server: server.into().trim_end_matches('/').to_string(),
            product_id: product_id.into(),
            jwks: None,
            fetch_jwks: true,
            timeout: Duration::from_secs(10),
            retries: 2,
            max_retry_wait: Duration::from_secs(30),
            max_clock_skew: Duration::from_secs(300),
            offline_grace: Duration::from_secs(7 * 86_400),
            state_dir: None,
            user_agent: format!("depot-client-rust/{}", env!("CARGO_PKG_VERSION")),
            clock: Arc::new(SystemTime::now),
        }
    }

    /// Also fetch the key set from the server, at first use and again on an unknown `keyid`
    /// (default false). With a pinned set only pinned keys are trusted whatever the server
    /// publishes, so this changes nothing then; [`Config::unpinned`] turns it on.
    pub fn fetch_jwks(mut self, fetch: bool) -> Config {
        self.fetch_jwks = fetch;
        self
    }

    /// Per attempt, connecting to the last byte (downloads: the longest wait between bytes).
    /// Default 10 s.
    pub fn timeout(mut self, timeout: Duration) -> Config {
        self.timeout = timeout;
        self
    }

    /// Extra attempts after a connection failure, a timeout, 502, 503 or 504, or a 429 whose
    /// `Retry-After` is within `max_retry_wait`. Default 2.
    pub fn retries(mut self, retries: u32) -> Config {
        self.retries = retries;
        self
    }

    /// The longest wait before a retry: backoff 0.25 s × 2ⁿ ±20 %, or the server's `Retry-After`.
    /// Default 30 s.
    pub fn max_retry_wait(mut self, wait: Duration) -> Config {
        self.max_retry_wait = wait;
        self
    }

    /// How far a signature's `created` may be from the clock. Default 300 s.
    pub fn max_clock_skew(mut self, skew: Duration) -> Config {
        self.max_clock_skew = skew;
        self
    }

    /// How long `status()` trusts the last verified answer when depot cannot be reached. Default
    /// 7 days.
    pub fn offline_grace(mut self, grace: Duration) -> Config {
        self.offline_grace = grace;
        self
    }

    /// Where `status()` keeps the last verified answer and license file, so that the grace
    /// survives a restart (created when first written). Default: memory only.
    pub fn state_dir(mut self, dir: impl Into<PathBuf>) -> Config {
        self.state_dir = Some(dir.into());
        self
    }

    /// Sent on every request. Default `depot-client-rust/0.1.0`.
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Config {
        self.user_agent = user_agent.into();
        self
    }

    /// What "now" is (tests). Default the system clock.
    pub fn clock(mut self, clock: impl Fn() -> SystemTime + Send + Sync + 'static) -> Config {
        self.clock = Arc::new(clock);
        self
    }

    /// The server's URL, without a trailing slash.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The product's id.
    pub fn product_id(&self) -> &str {
        &self.product_id
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("server", &self.server)
            .field("product_id", &self.product_id)
            .field("pinned", &self.jwks.is_some())
            .field("fetch_jwks", &self.fetch_jwks)
            .field("timeout", &self.timeout)
            .field("retries", &self.retries)
            .field("max_retry_wait", &self.max_retry_wait)
            .field("max_clock_skew", &self.max_clock_skew)
            .field("offline_grace", &self.offline_grace)
            .field("state_dir", &self.state_dir)
            .field("user_agent", &self.user_agent)
            .finish()
    }
}
