//! Multi round-trip requests (2026-07-28, `basic/patterns/mrtr.mdx`): how
//! a handler's requests to the client become an `InputRequiredResult` and
//! how the client's retry resumes the work.
//!
//! The model is re-running: a retry runs the handler again with the
//! client's answers at hand. `Rounds` holds them for one run: the
//! `inputResponses` of the retry and the answers of earlier rounds, which
//! travel in `requestState`, sealed by `Sealer` (HMAC-SHA256 with the
//! server's key, bound to the method, the tool or prompt and a digest of
//! its arguments, the principal, and an expiry). A request whose answer is
//! missing (or unusable) is recorded and the handler's future waits for
//! ever; the engine then answers with every recorded request, so requests
//! made together (`join!`) go out in one round and sequential ones in
//! successive rounds.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use hmac::{Hmac, KeyInit, Mac};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::jsonrpc::{self, RpcError};
use crate::random::RandomError;
use crate::{base64url, unix_time};

type HmacSha256 = Hmac<Sha256>;

/// How long a `requestState` is accepted by default.
pub(crate) const DEFAULT_STATE_TTL: Duration = Duration::from_secs(15 * 60);

/// Seals and opens `requestState` with the server's key.
#[derive(Clone)]
pub(crate) struct Sealer {
    /// HMAC-SHA256 keyed once with the server's key; cloned per state.
    mac: HmacSha256,
    ttl: Duration,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sealer")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl Sealer {
    /// A sealer with `key` (replicas that share it accept each other's
    /// state), or a random key of this process; without a key, an error
    /// when the operating system's random source fails.
    pub(crate) fn new(key: Option<&[u8]>, ttl: Duration) -> Result<Self, RandomError> {
        let mac = match key {
            Some(key) => keyed(key),
            None => keyed(&random_key()?),
        };
        Ok(Self { mac, ttl })
    }

    /// `payload` with an expiry added, as `base64url(json).base64url(mac)`.
    pub(crate) fn seal(&self, mut payload: Map<String, Value>) -> String {
        payload.insert(
            "exp".into(),
            Value::from(unix_time::now().saturating_add(self.ttl.as_secs())),
        );
        let body = base64url::encode(jsonrpc::json_text(&Value::Object(payload)).as_bytes());
        let mac = self
            .mac
            .clone()
            .chain_update(body.as_bytes())
            .finalize()
            .into_bytes();
        format!("{body}.{}", base64url::encode(mac))
    }

    /// The payload of a state this server sealed and that has not expired.
    pub(crate) fn open(&self, state: &str) -> Result<Map<String, Value>, &'static str> {
        let (body, mac) = state
            .split_once('.')
            .ok_or("it is not a state this server issued")?;
        let mac = base64url::decode(mac).ok_or("it is not a state this server issued")?;
        // `verify_slice` compares in constant time.
        if self
            .mac
            .clone()
            .chain_update(body.as_bytes())
            .verify_slice(&mac)
            .is_err()
        {
            // Tampered with, or sealed by a replica with another key.
            return Err("its integrity check failed (replicas behind one endpoint must share one request-state key)");
        }
        let bytes = base64url::decode(body).ok_or("it is not a state this server issued")?;
        let Ok(Value::Object(payload)) = serde_json::from_slice::<Value>(&bytes) else {
            return Err("it is not a state this server issued");
        };
        match payload.get("exp").and_then(Value::as_u64) {
            Some(exp) if exp >= unix_time::now() => Ok(payload),
            _ => Err("it has expired; send the request again without requestState"),
        }
    }
}

/// What a retry of a request brings back (stateless era): the client's
/// `inputResponses` and the `requestState` of the previous round, both
/// absent on a first try.
#[derive(Debug, Default)]
pub(crate) struct Retry {
    pub(crate) input_responses: Option<Value>,
    pub(crate) request_state: Option<Value>,
}

impl Retry {
    /// The retry members of a request's `params`, copied.
    pub(crate) fn of(params: Option<&Value>) -> Self {
        let member = |name: &str| params.and_then(|p| p.get(name)).cloned();
        Self {
            input_responses: member("inputResponses"),
            request_state: member("requestState"),
        }
    }

    /// Whether this is a first try.
    pub(crate) fn is_first(&self) -> bool {
        self.input_responses.is_none() && self.request_state.is_none()
    }
}

/// The client's answers for one run of a handler, and the requests the
/// run made that have no answer yet.
#[derive(Debug)]
pub(crate) struct Rounds {
    /// What the state is bound to (method, name, argument digest, principal).
    binding: Binding,
    /// Answers by key: earlier rounds' (from the state), then the retry's.
    answers: Map<String, Value>,
    /// Answers the run used: what the next state carries.
    used: Mutex<Map<String, Value>>,
    /// Requests without an answer, by key.
    requests: Mutex<Map<String, Value>>,
    /// Requests made so far (for keys the handler did not choose).
    asked: AtomicUsize,
    /// Whether the request came with a verified `requestState`.
    resumed: bool,
}

impl Rounds {
    /// The rounds of a request from its `inputResponses` and
    /// `requestState` members; `-32602` when either is malformed or the
    /// state fails verification (tampered, expired, another request's).
    pub(crate) fn start(sealer: &Sealer, binding: Binding, retry: Retry) -> Result<Self, RpcError> {
        let Retry {
            input_responses,
            request_state,
        } = retry;
        let mut answers = Map::new();
        let resumed = match request_state {
            None => false,
            Some(Value::String(state)) => {
                let payload = sealer.open(&state).map_err(|why| {
                    RpcError::invalid_params(format!("requestState rejected: {why}"))
                })?;
                if payload.get("bind") != Some(binding.value()) {
                    return Err(RpcError::invalid_params(
                        "requestState rejected: it was issued for another request (method, name, arguments or caller differ)",
                    ));
                }
                if let Some(Value::Object(earlier)) = payload.get("answers") {
                    answers.extend(earlier.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
                true
            }
            Some(other) => {
                return Err(RpcError::invalid_params(format!(
                    "\"requestState\" must be a string, got {}",
                    jsonrpc::kind(&other)
                )))
            }
        };
        match input_responses {
            None => {}
            Some(Value::Object(given)) => answers.extend(given),
            Some(other) => {
                return Err(RpcError::invalid_params(format!(
                    "\"inputResponses\" must be an object of results by request key, got {}",
                    jsonrpc::kind(&other)
                )))
            }
        }
        Ok(Self {
            binding,
            answers,
            used: Mutex::default(),
            requests: Mutex::default(),
            asked: AtomicUsize::new(0),
            resumed,
        })
    }

    /// The key of the next request when the handler names none
    /// (`elicitation_1`, `sampling_2`…): stable while the handler makes
    /// the same requests in the same order.
    pub(crate) fn auto_key(&self, prefix: &str) -> String {
        format!(
            "{prefix}_{}",
            self.asked.fetch_add(1, Ordering::Relaxed) + 1
        )
    }

    /// The client's answer to the request `key`, if it sent one.
    pub(crate) fn answer(&self, key: &str) -> Option<&Value> {
        self.answers.get(key)
    }

    /// Marks the answer to `key` as used (carried into the next state).
    pub(crate) fn use_answer(&self, key: &str, answer: &Value) {
        lock(&self.used).insert(key.to_owned(), answer.clone());
    }

    /// Records a request the client must answer.
    pub(crate) fn request(&self, key: String, method: &str, params: Value) {
        lock(&self.requests).insert(key, json!({ "method": method, "params": params }));
    }

    /// Whether the run made requests that have no answer yet.
    pub(crate) fn needs_input(&self) -> bool {
        !lock(&self.requests).is_empty()
    }

    /// Whether the request came with a verified `requestState`.
    pub(crate) fn resumed(&self) -> bool {
        self.resumed
    }

    /// The `InputRequiredResult` asking for the recorded requests, with the
    /// state that carries the answers used so far.
    pub(crate) fn input_required(&self, sealer: &Sealer) -> Value {
        let requests = std::mem::take(&mut *lock(&self.requests));
        let mut payload = Map::new();
        payload.insert("bind".into(), self.binding.value().clone());
        payload.insert("answers".into(), Value::Object(lock(&self.used).clone()));
        json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": sealer.seal(payload),
        })
    }
}

/// What a state is bound to: the method, the tool, prompt or URI, a
/// digest of the arguments and the authenticated caller. The digest is
/// computed only when a state is checked or issued, not for every
/// stateless request; until then the arguments are kept as their JSON
/// text (what is digested), which is cheaper to make than a copy.
#[derive(Debug)]
pub(crate) struct Binding {
    method: String,
    name: String,
    arguments: String,
    principal: Option<String>,
    value: std::sync::OnceLock<Value>,
}

impl Binding {
    pub(crate) fn new(
        method: &str,
        name: &str,
        arguments: &Value,
        principal: Option<&str>,
    ) -> Self {
        Self {
            method: method.to_owned(),
            name: name.to_owned(),
            arguments: jsonrpc::json_text(arguments),
            principal: principal.map(str::to_owned),
            value: std::sync::OnceLock::new(),
        }
    }

    /// `[method, name, base64url(sha256(arguments)), principal]`.
    fn value(&self) -> &Value {
        self.value.get_or_init(|| {
            let digest = Sha256::digest(self.arguments.as_bytes());
            json!([
                self.method,
                self.name,
                base64url::encode(digest),
                self.principal
            ])
        })
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// 32 random bytes: the key of a server that was given none.
fn random_key() -> Result<[u8; 32], RandomError> {
    let mut key = [0u8; 32];
    crate::random::fill(&mut key)?;
    Ok(key)
}

/// HMAC-SHA256 keyed with `key` (RFC 2104: a key of any length).
fn keyed(key: &[u8]) -> HmacSha256 {
    match <HmacSha256 as KeyInit>::new_from_slice(key) {
        Ok(mac) => mac,
        // HMAC hashes a key longer than its block and pads a shorter one.
        Err(_) => unreachable!("HMAC-SHA256 takes a key of any length"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hmac_sha256(key: &[u8], message: &[u8]) -> Vec<u8> {
        keyed(key)
            .chain_update(message)
            .finalize()
            .into_bytes()
            .to_vec()
    }

    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn without_a_key_a_failing_random_source_is_an_error() {
        use crate::random::fail::with_failing_source;
        let err = with_failing_source(|| Sealer::new(None, DEFAULT_STATE_TTL)).unwrap_err();
        assert!(err.to_string().contains("random source failed"), "{err}");
        assert!(
            with_failing_source(|| Sealer::new(Some(b"k"), DEFAULT_STATE_TTL)).is_ok(),
            "a given key needs no randomness"
        );
    }

    #[test]
    fn a_sealed_state_opens_only_unchanged_and_with_the_same_key() {
        let sealer = Sealer::new(Some(b"replica key"), DEFAULT_STATE_TTL).unwrap();
        let mut payload = Map::new();
        payload.insert("answers".into(), json!({"a": 1}));
        let state = sealer.seal(payload);
        assert_eq!(sealer.open(&state).unwrap()["answers"], json!({"a": 1}));
        assert!(
            Sealer::new(Some(b"replica key"), DEFAULT_STATE_TTL)
                .unwrap()
                .open(&state)
                .is_ok(),
            "replicas share the key"
        );
        assert!(Sealer::new(Some(b"other key"), DEFAULT_STATE_TTL)
            .unwrap()
            .open(&state)
            .is_err());
        assert!(sealer.open(&format!("{state}-TAMPERED")).is_err());
        let (body, mac) = state.split_once('.').unwrap();
        let forged = base64url::encode(br#"{"answers":{"a":2},"exp":99999999999}"#);
        assert!(sealer.open(&format!("{forged}.{mac}")).is_err());
        assert!(sealer.open(body).is_err());
        let expired = Sealer::new(Some(b"replica key"), Duration::ZERO).unwrap();
        let mut old = Map::new();
        old.insert("exp".into(), json!(1));
        let body = base64url::encode(jsonrpc::json_text(&Value::Object(old)).as_bytes());
        let state = format!(
            "{body}.{}",
            base64url::encode(hmac_sha256(b"replica key", body.as_bytes()))
        );
        assert_eq!(
            expired.open(&state).unwrap_err(),
            "it has expired; send the request again without requestState"
        );
    }

    fn retry(input_responses: Option<Value>, request_state: Option<Value>) -> Retry {
        Retry {
            input_responses,
            request_state,
        }
    }

    #[test]
    fn rounds_carry_used_answers_and_check_the_binding() {
        let sealer = Sealer::new(None, DEFAULT_STATE_TTL).unwrap();
        let bind = || Binding::new("tools/call", "t", &json!({}), None);
        let first = Rounds::start(
            &sealer,
            bind(),
            retry(Some(json!({"a": 1, "extra": 2})), None),
        )
        .unwrap();
        assert!(!first.resumed());
        first.use_answer("a", first.answer("a").unwrap());
        first.request("b".into(), "roots/list", json!({}));
        assert!(first.needs_input());
        let result = first.input_required(&sealer);
        assert_eq!(result["inputRequests"]["b"]["method"], "roots/list");
        let state = result["requestState"].clone();
        let second = Rounds::start(
            &sealer,
            bind(),
            retry(Some(json!({"b": {"roots": []}})), Some(state.clone())),
        )
        .unwrap();
        assert!(second.resumed());
        assert_eq!(
            second.answer("a"),
            Some(&json!(1)),
            "earlier answers come back from the state"
        );
        assert_eq!(
            second.answer("extra"),
            None,
            "unused answers are not carried"
        );
        let other = Binding::new("tools/call", "t", &json!({"x": 1}), None);
        assert_eq!(
            Rounds::start(&sealer, other, retry(None, Some(state)))
                .unwrap_err()
                .code,
            -32602
        );
        assert_eq!(
            Rounds::start(&sealer, bind(), retry(Some(Value::Null), None))
                .unwrap_err()
                .code,
            -32602
        );
    }
}
