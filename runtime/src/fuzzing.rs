//! Entry points of the fuzz targets (`fuzz/`) into parts of the HTTP
//! client that are not public: what a server the user may not trust feeds
//! them.

use crate::client::http::sse::SseParser;

/// What the client's Server-Sent Events parser made of a stream that came
/// in `chunks`, holding at most `max` bytes of one event: the events, the
/// last `id` and the last `retry`. `None` when an event passed the limit
/// (the client then fails the read).
pub fn sse(chunks: &[&[u8]], max: usize) -> Option<SseOutcome> {
    let mut parser = SseParser::new(max);
    for chunk in chunks {
        parser.feed(chunk).ok()?;
    }
    parser.finish();
    let mut events = Vec::new();
    while let Some(event) = parser.next_event() {
        events.push(event);
    }
    Some(SseOutcome {
        events,
        last_id: parser.last_id.clone(),
        retry: parser.retry,
    })
}

/// What [`sse`] read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseOutcome {
    /// Each event's `data`, in order.
    pub events: Vec<String>,
    /// The last `id` field.
    pub last_id: Option<String>,
    /// The last `retry` field, in milliseconds.
    pub retry: Option<u64>,
}
