//! Newline framing without I/O, for every line reader (the polled stdin
//! of `stdio`, [`LineReader`](super::LineReader) over any byte stream):
//! the caller reads into [`Framer::spare`], reports the count with
//! [`Framer::filled`] and takes messages from [`Framer::next_message`]. At
//! most the limit plus one read chunk is ever buffered. Blank lines are
//! skipped, a `\r` before the newline is dropped, the newline is found a
//! word at a time and ASCII lines are taken without a UTF-8 pass.

use crate::jsonrpc::Unreadable;

/// Buffers above this size are released once empty.
const KEEP_BUFFER: usize = 1 << 20;

#[derive(Debug)]
pub(crate) struct Framer {
    /// `buf[start..end]` holds unread bytes; the rest is room for reads.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// `buf[start..scanned]` holds no newline.
    scanned: usize,
    max: usize,
    /// Inside a message over the limit (already reported), dropping it.
    skipping: bool,
    eof: bool,
}

/// The first `\n` in `bytes`.
fn newline(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    while let Some(word) = bytes.get(at..at + 8) {
        let w = u64::from_le_bytes(word.try_into().unwrap_or_default()) ^ (ONES * u64::from(b'\n'));
        if w.wrapping_sub(ONES) & !w & HIGH != 0 {
            break;
        }
        at += 8;
    }
    bytes[at..].iter().position(|&b| b == b'\n').map(|p| at + p)
}

impl Framer {
    pub(crate) fn new(max: usize) -> Self {
        Self {
            buf: Vec::new(),
            start: 0,
            end: 0,
            scanned: 0,
            max: max.max(1),
            skipping: false,
            eof: false,
        }
    }

    pub(crate) fn set_max(&mut self, max: usize) {
        self.max = max.max(1);
    }

    /// End of input was read and every message has been taken.
    pub(crate) fn at_end(&self) -> bool {
        self.eof && self.start == self.end
    }

    /// The next message (or placeholder) among the bytes read so far;
    /// at end of input, a last line without a newline counts too.
    /// Blank lines are skipped.
    pub(crate) fn next_message(&mut self) -> Option<String> {
        loop {
            let from = self.start.max(self.scanned);
            match newline(&self.buf[from..self.end]) {
                Some(at) => {
                    let newline = from + at;
                    let (line, skipped) = (self.start..newline, self.skipping);
                    self.start = newline + 1;
                    self.scanned = self.start;
                    self.skipping = false;
                    if skipped {
                        continue; // the end of a message already reported
                    }
                    if let Some(message) = self.take(line) {
                        return Some(message);
                    }
                }
                None => {
                    self.scanned = self.end;
                    if self.skipping {
                        self.start = self.end;
                        self.skipping &= !self.eof;
                        return None;
                    }
                    if self.end - self.start > self.max {
                        self.start = self.end;
                        self.skipping = !self.eof;
                        return Some(Unreadable::TooLarge { limit: self.max }.placeholder());
                    }
                    if self.eof && self.start < self.end {
                        let line = self.start..self.end;
                        self.start = self.end;
                        return self.take(line);
                    }
                    return None;
                }
            }
        }
    }

    /// One line's message: `None` when blank.
    fn take(&self, line: std::ops::Range<usize>) -> Option<String> {
        if line.len() > self.max {
            return Some(Unreadable::TooLarge { limit: self.max }.placeholder());
        }
        let mut bytes = &self.buf[line];
        if let [rest @ .., b'\r'] = bytes {
            bytes = rest;
        }
        let text = if bytes.is_ascii() {
            // SAFETY: ASCII bytes are UTF-8.
            #[allow(
                unsafe_code,
                reason = "skips a second pass over bytes just found to be ASCII, hence UTF-8"
            )]
            unsafe {
                std::str::from_utf8_unchecked(bytes)
            }
        } else {
            match std::str::from_utf8(bytes) {
                Ok(text) => text,
                Err(e) => {
                    return Some(
                        Unreadable::NotUtf8 {
                            offset: e.valid_up_to(),
                        }
                        .placeholder(),
                    )
                }
            }
        };
        (!text.trim().is_empty()).then(|| text.to_owned())
    }

    /// Room for the next read: small reads for small messages, bigger
    /// ones for big messages.
    pub(crate) fn spare(&mut self) -> &mut [u8] {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.scanned -= self.start;
            self.start = 0;
        }
        if self.end == 0 && self.buf.len() > KEEP_BUFFER {
            self.buf = Vec::new();
        }
        let chunk = if self.end > 65_536 { 65_536 } else { 8_192 };
        if self.buf.len() < self.end + chunk {
            self.buf.resize(self.end + chunk, 0);
        }
        &mut self.buf[self.end..self.end + chunk]
    }

    /// Records that `n` bytes were read into [`Framer::spare`]; `0`
    /// means end of input.
    pub(crate) fn filled(&mut self, n: usize) {
        self.end += n;
        if n == 0 {
            self.eof = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(framer: &mut Framer, bytes: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        for piece in bytes.chunks(5000) {
            let room = framer.spare();
            room[..piece.len()].copy_from_slice(piece);
            framer.filled(piece.len());
            out.extend(std::iter::from_fn(|| framer.next_message()));
        }
        out
    }

    #[test]
    fn lines_split_blank_lines_skip_and_a_last_line_counts() {
        let mut f = Framer::new(100);
        let mut got = feed(&mut f, b"a\r\n\n  \nb\nc");
        f.filled(0);
        got.extend(std::iter::from_fn(|| f.next_message()));
        assert_eq!(got, ["a", "b", "c"]);
        assert!(f.at_end());
    }

    #[test]
    fn a_message_over_the_limit_is_reported_once_and_never_buffered() {
        let mut f = Framer::new(10_000);
        let mut input = vec![b'x'; 1_000_000];
        input.extend_from_slice(b"\nok\n");
        let got = feed(&mut f, &input);
        assert_eq!(
            got,
            [
                Unreadable::TooLarge { limit: 10_000 }.placeholder(),
                "ok".to_owned()
            ]
        );
        assert!(f.buf.len() < 10_000 + 70_000, "buffered {}", f.buf.len());
    }

    #[test]
    fn invalid_utf8_is_reported_not_replaced() {
        let mut f = Framer::new(100);
        let got = feed(&mut f, b"{\"a\":\"\xff\"}\n\"ok\"\n");
        assert_eq!(
            got,
            [
                Unreadable::NotUtf8 { offset: 6 }.placeholder(),
                "\"ok\"".to_owned()
            ]
        );
    }

    #[test]
    fn newlines_are_found_at_every_offset() {
        for len in 0..40 {
            for at in 0..len {
                let mut bytes = vec![b'x'; len];
                bytes[at] = b'\n';
                assert_eq!(newline(&bytes), Some(at));
            }
            assert_eq!(newline(&vec![b'\x8a'; len]), None);
        }
    }

    #[test]
    fn pieces_of_any_size_frame_alike() {
        let input: &[u8] = b"a\r\n\n  \nb\n{\"x\":\"\xc3\xa9\"}\n\xe2\x80\xa8\n{\"a\":\"\xff\"}\n0123456789abcdefghij\nc";
        let whole = {
            let mut f = Framer::new(16);
            let mut got = feed(&mut f, input);
            f.filled(0);
            got.extend(std::iter::from_fn(|| f.next_message()));
            got
        };
        assert_eq!(whole.len(), 6, "{whole:?}");
        for piece in [1, 3, 7, 8, 64] {
            let mut f = Framer::new(16);
            let mut got = Vec::new();
            for chunk in input.chunks(piece) {
                let room = f.spare();
                room[..chunk.len()].copy_from_slice(chunk);
                f.filled(chunk.len());
                got.extend(std::iter::from_fn(|| f.next_message()));
            }
            f.filled(0);
            got.extend(std::iter::from_fn(|| f.next_message()));
            assert_eq!(got, whole, "pieces of {piece}");
            assert!(f.at_end());
        }
    }
}
