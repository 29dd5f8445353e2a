//! W3C trace context (`traceparent`, `tracestate`) read from and written
//! into a request's `_meta`, and read from HTTP headers.

use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::TraceContextExt;
use opentelemetry::Context;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use serde_json::{Map, Value};

/// `_meta` as a carrier: string members only.
struct Meta<'a>(&'a Map<String, Value>);

impl Extractor for Meta<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// `_meta` being written.
struct MetaMut<'a>(&'a mut Map<String, Value>);

impl Injector for MetaMut<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), Value::String(value));
    }
}

/// HTTP request headers as a carrier.
struct Headers<'a>(&'a http::HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

/// The context a valid `traceparent` carries, if it does.
fn valid(cx: Context) -> Option<Context> {
    cx.span().span_context().is_valid().then_some(cx)
}

/// The caller's context: from `_meta` when it carries a valid
/// `traceparent`, otherwise from the HTTP headers; `None` when neither
/// does (the span then starts a trace, or nests under the current one).
pub(crate) fn extract(meta: Option<&Value>, headers: Option<&http::HeaderMap>) -> Option<Context> {
    let propagator = TraceContextPropagator::new();
    let from_meta = meta
        .and_then(Value::as_object)
        .filter(|m| m.contains_key("traceparent"))
        .and_then(|m| valid(propagator.extract(&Meta(m))));
    from_meta.or_else(|| {
        headers
            .filter(|h| h.contains_key("traceparent"))
            .and_then(|h| valid(propagator.extract(&Headers(h))))
    })
}

/// Writes `cx` into `meta` (nothing when `cx` has no valid span).
pub(crate) fn inject(cx: &Context, meta: &mut Map<String, Value>) {
    if cx.span().span_context().is_valid() {
        TraceContextPropagator::new().inject_context(cx, &mut MetaMut(meta));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    #[test]
    fn meta_wins_over_the_header_and_a_bad_traceparent_is_ignored() {
        let mut headers = http::HeaderMap::new();
        headers.insert(
            "traceparent",
            "00-11111111111111111111111111111111-2222222222222222-01"
                .parse()
                .unwrap(),
        );
        let meta = json!({ "traceparent": PARENT, "tracestate": "vendor=1" });
        let cx = extract(Some(&meta), Some(&headers)).expect("valid");
        let span = cx.span().span_context().clone();
        assert_eq!(
            span.trace_id().to_string(),
            "0af7651916cd43dd8448eb211c80319c"
        );
        assert_eq!(span.span_id().to_string(), "b7ad6b7169203331");
        assert_eq!(span.trace_state().header(), "vendor=1");

        let bad = json!({ "traceparent": "00-zz-01" });
        let cx = extract(Some(&bad), Some(&headers)).expect("the header's");
        assert_eq!(
            cx.span().span_context().trace_id().to_string(),
            "11111111111111111111111111111111"
        );
        assert!(extract(Some(&bad), None).is_none());
        assert!(extract(Some(&json!("not an object")), None).is_none());
        assert!(extract(None, None).is_none());
    }

    #[test]
    fn what_is_injected_reads_back() {
        let cx = extract(Some(&json!({ "traceparent": PARENT })), None).unwrap();
        let mut meta = Map::new();
        meta.insert("progressToken".into(), json!(1));
        inject(&cx, &mut meta);
        assert_eq!(meta["traceparent"], json!(PARENT));
        assert_eq!(meta["progressToken"], json!(1));
        let mut untouched = Map::new();
        inject(&Context::new(), &mut untouched);
        assert!(untouched.is_empty());
    }
}
