//! Requests to depot with the contract's timeouts and retries: backoff 0.25 s × 2ⁿ ±20 %, or the
//! server's `Retry-After`, never longer than `max_retry_wait`.

use std::io::Read;
use std::thread;
use std::time::Duration;

use crate::config::Config;
use crate::error::Error;
use crate::signature::SignedAnswer;
use crate::util::{random_fraction, retry_after};

/// No answer of depot's API is anywhere near this; a bigger one is not depot's.
const MAX_ANSWER_BYTES: u64 = 16 * 1024 * 1024;

/// An answer of the API: what is signed, and `Retry-After`.
#[derive(Debug)]
pub(crate) struct Answer {
    pub signed: SignedAnswer,
    pub retry_after: Option<Duration>,
    pub location: Option<String>,
}

pub(crate) struct Request<'a> {
    pub method: &'a str,
    pub url: &'a str,
    pub headers: &'a [(&'a str, &'a str)],
    /// A JSON body.
    pub json: Option<&'a str>,
}

/// Whether another attempt may follow this one, and after how long.
enum Attempt {
    Done(Answer),
    Retry {
        error: Error,
        wait: Option<Duration>,
        answer: Option<Answer>,
    },
}

pub(crate) fn agent(config: &Config) -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout(config.timeout)
        // A redirect of a signed API call is no answer of depot's: it is reported, not followed.
        .redirects(0)
        .user_agent(&config.user_agent)
        .build()
}

/// Sends the request, again after a failure that may pass. An answer of any status comes back
/// as it is, except a 5xx after the retries: unreachable.
pub(crate) fn send(
    agent: &ureq::Agent,
    config: &Config,
    request: &Request,
) -> Result<Answer, Error> {
    let mut attempt = 0;
    loop {
        let (error, wait, answer) = match once(agent, config, request) {
            Attempt::Done(answer) => return Ok(answer),
            Attempt::Retry {
                error,
                wait,
                answer,
            } => (error, wait, answer),
        };
        let wait = wait.unwrap_or_else(|| backoff(attempt));
        if attempt >= config.retries || wait > config.max_retry_wait {
            // A 429 that asks for too long a wait is depot's (signed) refusal: the caller reads it.
            return match answer {
                Some(answer) if answer.signed.status < 500 => Ok(answer),
                _ => Err(error),
            };
        }
        thread::sleep(wait);
        attempt += 1;
    }
}

fn once(agent: &ureq::Agent, config: &Config, request: &Request) -> Attempt {
    let mut call = agent.request(request.method, request.url);
    for (name, value) in request.headers {
        call = call.set(name, value);
    }
    let result = match request.json {
        Some(json) => call
            .set("content-type", "application/json")
            .send_string(json),
        None => call.call(),
    };
    let response = match result {
        Ok(response) | Err(ureq::Error::Status(_, response)) => response,
        Err(ureq::Error::Transport(transport)) => {
            return Attempt::Retry {
                // ureq's message names the URL.
                error: Error::Unreachable(transport.to_string()),
                wait: None,
                answer: None,
            };
        }
    };
    let answer = match read(response, config) {
        Ok(answer) => answer,
        Err(error) => {
            return Attempt::Retry {
                error,
                wait: None,
                answer: None,
            }
        }
    };
    let status = answer.signed.status;
    match status {
        429 => match answer.retry_after {
            Some(wait) => Attempt::Retry {
                error: Error::Unreachable(format!("{} answered 429", request.url)),
                wait: Some(wait),
                answer: Some(answer),
            },
            None => Attempt::Done(answer),
        },
        502..=504 => Attempt::Retry {
            error: Error::Unreachable(format!("{} answered {status}", request.url)),
            wait: answer.retry_after,
            answer: Some(answer),
        },
        500..=599 => Attempt::Retry {
            error: Error::Unreachable(format!("{} answered {status}", request.url)),
            // A 500 is not retried: the same request would fail the same way.
            wait: Some(Duration::MAX),
            answer: Some(answer),
        },
        _ => Attempt::Done(answer),
    }
}

fn read(response: ureq::Response, config: &Config) -> Result<Answer, Error> {
    let header = |name: &str| {
        let all = response.all(name);
        if all.is_empty() {
            None
        } else {
            Some(all.join(", "))
        }
    };
    let status = response.status();
    let content_type = header("content-type");
    let content_digest = header("content-digest");
    let signature_input = header("signature-input");
    let signature = header("signature");
    let location = header("location");
    let retry_after = response
        .header("retry-after")
        .and_then(|value| retry_after(value, (config.clock)()));
    let url = response.get_url().to_string();
    let mut body = Vec::new();
    response
        .into_reader()
        .take(MAX_ANSWER_BYTES + 1)
        .read_to_end(&mut body)
        .map_err(|error| Error::Unreachable(format!("{url}: reading the answer: {error}")))?;
    if body.len() as u64 > MAX_ANSWER_BYTES {
        return Err(Error::Unverifiable(format!(
            "{url}: the answer is larger than 16 MiB"
        )));
    }
    Ok(Answer {
        signed: SignedAnswer {
            status,
            content_type,
            content_digest,
            signature_input,
            signature,
            body,
        },
        retry_after,
        location,
    })
}

/// 0.25 s × 2ⁿ, ±20 %.
pub(crate) fn backoff(attempt: u32) -> Duration {
    let base = 0.25 * f64::from(1u32 << attempt.min(20));
    Duration::from_secs_f64(base * (0.8 + 0.4 * random_fraction()))
}
