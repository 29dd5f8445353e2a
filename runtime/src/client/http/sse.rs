//! [`SseParser`]: an incremental Server-Sent Events parser for the HTTP
//! client. It takes the body's chunks as they come, in any split, and
//! yields the `data` of each event (lines joined by newlines; comments,
//! `event` and unknown fields ignored; CRLF, LF or CR ending a line; a
//! leading BOM dropped), and keeps the last `id` and `retry` for
//! resumption. It never holds more than `max` bytes of one event: a larger
//! one fails the read (the client's message size limit, a guard against a
//! server streaming one endless event).
//!
//! Why not a crate (issue 32 asked for one, e.g. `sse-stream`, "or the
//! reason not"): neither `sse-stream` 0.3 nor `eventsource-stream` 0.2.3
//! bounds the size of an event: both buffer until a blank line comes, so
//! the limit would have to be rebuilt around them by counting the bytes
//! fed between two events, which is most of this parser again. Both decode
//! a `futures` `Stream` of body frames rather than the chunks the client
//! already reads, and they add crates the runtime does not otherwise build
//! (`sse-stream`: `futures-util`, `simdutf8`, `thiserror`,
//! `pin-project-lite`; `eventsource-stream`: `nom` 7, `futures-core`, not
//! released since 2022). This parser is about 120 lines, tested below in
//! every chunking and at the limit.

use std::collections::VecDeque;

/// An incremental Server-Sent Events parser: `data:` lines of an event
/// joined by newlines, comments and other fields ignored, any of CRLF, LF
/// or CR ending a line. Holds at most `max` bytes of one event.
pub(crate) struct SseParser {
    line: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    /// The previous chunk ended with CR: a LF starting the next one belongs to it.
    after_cr: bool,
    first_line: bool,
    events: VecDeque<String>,
    max: usize,
    pub(crate) ended: bool,
    /// The last `id` field seen (what `Last-Event-ID` resumes from).
    pub(crate) last_id: Option<String>,
    /// The last `retry` field: how long to wait before reconnecting, in ms.
    pub(crate) retry: Option<u64>,
}

impl SseParser {
    pub(crate) fn new(max: usize) -> Self {
        Self {
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            after_cr: false,
            first_line: true,
            events: VecDeque::new(),
            max,
            ended: false,
            last_id: None,
            retry: None,
        }
    }

    pub(crate) fn next_event(&mut self) -> Option<String> {
        self.events.pop_front()
    }

    /// Takes a chunk of the stream; `Err` once an event passes the limit.
    pub(crate) fn feed(&mut self, mut chunk: &[u8]) -> Result<(), ()> {
        if self.after_cr {
            self.after_cr = false;
            if let [b'\n', rest @ ..] = chunk {
                chunk = rest;
            }
        }
        while let Some(at) = chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&chunk[..at]);
            self.end_line()?;
            let crlf = chunk[at] == b'\r' && chunk.get(at + 1) == Some(&b'\n');
            if chunk[at] == b'\r' && at + 1 == chunk.len() {
                self.after_cr = true;
            }
            chunk = &chunk[at + if crlf { 2 } else { 1 }..];
        }
        self.line.extend_from_slice(chunk);
        if self.line.len() + self.data.len() > self.max {
            return Err(());
        }
        Ok(())
    }

    /// The stream ended: a last event without its blank line counts too.
    pub(crate) fn finish(&mut self) {
        if !self.line.is_empty() {
            let _ = self.end_line();
        }
        self.dispatch();
        self.ended = true;
    }

    fn dispatch(&mut self) {
        if self.has_data {
            if self.data.last() == Some(&b'\n') {
                self.data.pop();
            }
            let data = std::mem::take(&mut self.data);
            self.events.push_back(
                String::from_utf8(data)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            );
        }
        self.data.clear();
        self.has_data = false;
    }

    fn end_line(&mut self) -> Result<(), ()> {
        let mut line = std::mem::take(&mut self.line);
        if std::mem::take(&mut self.first_line) {
            if let [0xEF, 0xBB, 0xBF, ..] = line[..] {
                line.drain(..3);
            }
        }
        if line.is_empty() {
            self.dispatch();
        } else if line[0] != b':' {
            let (field, value) = match line.iter().position(|&b| b == b':') {
                Some(at) => {
                    let value = &line[at + 1..];
                    (&line[..at], value.strip_prefix(b" ").unwrap_or(value))
                }
                None => (&line[..], &[][..]),
            };
            if field == b"data" {
                if self.data.len() + value.len() + 1 > self.max {
                    return Err(());
                }
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
                self.has_data = true;
            }
            if field == b"id" && !value.contains(&0) {
                self.last_id = Some(String::from_utf8_lossy(value).into_owned());
            }
            if field == b"retry" && !value.is_empty() && value.iter().all(u8::is_ascii_digit) {
                self.retry = std::str::from_utf8(value).ok().and_then(|v| v.parse().ok());
            }
            // `event` and unknown fields carry nothing here.
        }
        // Reuse the allocation of ordinary lines.
        if line.capacity() <= 1 << 16 {
            line.clear();
            self.line = line;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(parser: &mut SseParser) -> Vec<String> {
        std::iter::from_fn(|| parser.next_event()).collect()
    }

    #[test]
    fn sse_events_split_on_any_line_ending_and_in_any_chunking() {
        let stream = "\u{feff}: keep-alive\r\n\r\nevent: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nid: 7\ndata:x\n\ndata\n\n\rdata: last";
        let want = ["{\"a\":\n1}", "x", "", "last"];
        for size in [1, 2, 3, 5, 7, 64] {
            let mut parser = SseParser::new(1 << 20);
            let mut got = Vec::new();
            for piece in stream.as_bytes().chunks(size) {
                parser.feed(piece).unwrap();
                got.extend(events(&mut parser));
            }
            parser.finish();
            got.extend(events(&mut parser));
            assert_eq!(got, want, "chunks of {size}");
        }
    }

    #[test]
    fn an_sse_event_over_the_limit_fails() {
        let mut parser = SseParser::new(10);
        assert!(parser.feed(b"data: 12345\n\n").is_ok());
        assert_eq!(events(&mut parser), ["12345"]);
        assert!(parser.feed(b"data: 123456789012").is_err());
        let mut parser = SseParser::new(10);
        assert!(parser.feed(b"data: 123456\ndata: 123456\n").is_err());
    }
}
