//! [`Doc`]: a JSON document as its compact text plus a flat list of
//! nodes pointing into it, what the engine encodes a typed tool output
//! into. It is built straight from `Serialize`, with no map and no
//! hashing, writing the text as it goes; it is validated in place (by
//! the plan, or as its value), and its text is exactly
//! what `serde_json` writes for the `Value` that `serde_json::to_value`
//! would have built. Whatever it cannot hold the way that `Value` would
//! (non-string map keys, a key repeated in one object, integers beyond
//! 64 bits, a failing `Serialize`) is refused, and the caller takes the
//! `Value` path instead.
//!
//! The encoder from `Serialize` is in `builder`, the in-place check
//! against a schema in `plan`.

#![allow(
    unsafe_code,
    reason = "unchecked copies of already-checked UTF-8 into reserved room: measured at 24.8k -> 23.9k \
              instructions per stdio call (ca4edb6) and 25.6k -> 25.1k (fa23607); covered by scripts/miri.sh"
)]

use serde::ser::Serialize;
use serde_json::{Map, Number, Value};

use crate::jsonrpc::{push_digits, STRING_STOP};

mod builder;
mod plan;

use builder::{Builder, Open};
pub(crate) use plan::Plan;

/// A number as `serde_json` keeps it: non-negative integers unsigned,
/// negative ones signed, the rest finite floats.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Num {
    U(u64),
    I(i64),
    F(f64),
}

impl Num {
    fn number(self) -> Number {
        match self {
            Num::U(u) => Number::from(u),
            Num::I(i) => Number::from(i),
            // Only finite floats are kept (others become null).
            Num::F(f) => Number::from_f64(f).unwrap_or_else(|| Number::from(0u64)),
        }
    }

    /// Appends the number as `serde_json` writes it.
    fn write(self, out: &mut String) {
        match self {
            Num::U(u) => push_digits(out, u),
            Num::I(i) => {
                out.push('-');
                push_digits(out, i.unsigned_abs());
            }
            Num::F(f) => {
                use serde_json::ser::Formatter;
                // SAFETY: the formatter appends an ASCII number (digits,
                // `-`, `.`, `e`), so the string stays UTF-8.
                let bytes = unsafe { out.as_mut_vec() };
                let _ = serde_json::ser::CompactFormatter.write_f64(bytes, f);
            }
        }
    }
}

/// Where a string is: inside the JSON text between its quotes (when
/// it needed no escaping), or in the side buffer.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Span {
    start: u32,
    end: u32,
    side: bool,
}

impl Span {
    fn width(self) -> u32 {
        self.end - self.start
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Null,
    Bool(bool),
    Num(Num),
    Str(Span),
    Array,
    Object,
}

/// One node. Nodes are stored in document order (a container before
/// its members), so a container's members are the nodes from the next
/// one to `end`, each member's `end` pointing at its next sibling.
#[derive(Debug, Clone, Copy)]
struct Slot {
    kind: Kind,
    /// The member name when the node is a member of an object.
    key: Span,
    /// The index after this node's subtree.
    end: u32,
    /// Members of a container.
    len: u32,
}

/// A JSON document built for one use: encode, validate, send.
#[derive(Debug, Default, Clone)]
pub struct Doc {
    slots: Vec<Slot>,
    /// The compact JSON text.
    json: String,
    /// Strings that needed escaping, unescaped.
    side: String,
}

impl Doc {
    /// Encodes `value` as `serde_json::to_value` would; `None` when the
    /// document cannot hold it the same way (see the module docs).
    pub fn encode<T: Serialize + ?Sized>(value: &T) -> Option<Doc> {
        let (slots, json, open) = pool::take();
        let mut b = Builder {
            doc: Doc {
                slots,
                json,
                side: String::new(),
            },
            open,
            key: None,
        };
        let encoded = value.serialize(&mut b).is_ok();
        let Builder { doc, mut open, .. } = b;
        // Positions are kept as `u32`: larger documents are refused.
        let fits = [doc.slots.len(), doc.json.len(), doc.side.len()]
            .iter()
            .all(|&n| u32::try_from(n).is_ok());
        let complete = encoded && fits && !doc.slots.is_empty() && open.is_empty();
        open.clear();
        pool::give_open(open);
        // Nothing written, or a container left open: not a document.
        complete.then_some(doc)
    }

    /// The compact JSON text: what `serde_json` writes for [`Doc::to_value`].
    pub fn json(&self) -> &str {
        &self.json
    }

    /// Appends the JSON text escaped as the contents of a JSON string
    /// (a backslash before each `"`), when every quote in it is one
    /// around a string of the document (no string needed escaping);
    /// `false`, with nothing appended, otherwise.
    pub fn write_text(&self, out: &mut String) -> bool {
        if !self.side.is_empty() {
            return false;
        }
        let json = self.json.as_bytes();
        // SAFETY: `out` is UTF-8 again when this returns (see `set_len`).
        let out = unsafe { out.as_mut_vec() };
        // Room for the text, a backslash per quote, and the 16 bytes a
        // short piece's copy may write past its end.
        out.reserve(json.len() + 4 * self.slots.len() + 16);
        let (base, mut len, mut copied) = (out.as_mut_ptr(), out.len(), 0);
        // Pieces between quotes are mostly a few bytes: those are
        // copied as one fixed 16-byte move (no call to memcpy), the
        // bytes past the piece overwritten by what follows.
        let mut quote = |at: usize| {
            let n = at - copied;
            // SAFETY: `copied..at` lies in `json`; when 16 bytes are
            // read, `copied + 16 <= json.len()`. Writes stay within
            // the capacity reserved above: `len` grows by at most the
            // text and one backslash per quote, plus the 16-byte
            // slack.
            unsafe {
                let from = json.as_ptr().add(copied);
                if n <= 16 && copied + 16 <= json.len() {
                    // As one 16-byte value, so that it stays a move
                    // (the two copies would be merged into one call).
                    let piece = from.cast::<[u8; 16]>().read_unaligned();
                    base.add(len).cast::<[u8; 16]>().write_unaligned(piece);
                } else {
                    std::ptr::copy_nonoverlapping(from, base.add(len), n);
                }
                len += n;
                *base.add(len) = b'\\';
            }
            len += 1;
            copied = at;
        };
        // Slots are in document order, a member's name before its value.
        for slot in &self.slots {
            if slot.key.start > 0 {
                quote(slot.key.start as usize - 1);
                quote(slot.key.end as usize);
            }
            if let Kind::Str(span) = slot.kind {
                quote(span.start as usize - 1);
                quote(span.end as usize);
            }
        }
        // SAFETY: the first `len` bytes are the bytes before plus the
        // document's text (UTF-8) cut only at its ASCII quotes, with
        // ASCII backslashes between the pieces: UTF-8, and written.
        unsafe { out.set_len(len) };
        out.extend_from_slice(&json[copied..]);
        true
    }

    fn bytes(&self, span: Span) -> &[u8] {
        let buf = if span.side { &self.side } else { &self.json };
        buf.as_bytes()
            .get(span.start as usize..span.end as usize)
            .unwrap_or_default()
    }

    fn str(&self, span: Span) -> &str {
        let buf = if span.side { &self.side } else { &self.json };
        buf.get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }

    /// The members of the container at `at`: (index, name) pairs.
    fn members(&self, at: u32) -> Members<'_> {
        Members {
            doc: self,
            next: at + 1,
            end: self.slots[at as usize].end,
        }
    }

    /// The document as a `serde_json::Value`.
    pub fn to_value(&self) -> Value {
        if self.slots.is_empty() {
            return Value::Null;
        }
        self.value_at(0)
    }

    fn value_at(&self, at: u32) -> Value {
        let slot = self.slots[at as usize];
        match slot.kind {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(b),
            Kind::Num(n) => Value::Number(n.number()),
            Kind::Str(span) => Value::String(self.str(span).to_owned()),
            Kind::Array => Value::Array(self.members(at).map(|(i, _)| self.value_at(i)).collect()),
            Kind::Object => {
                let mut map = Map::with_capacity(slot.len as usize);
                for (i, key) in self.members(at) {
                    map.insert(key.to_owned(), self.value_at(i));
                }
                Value::Object(map)
            }
        }
    }

    /// Whether two members of the object at `at` have one name (a
    /// `Value` would keep only the last).
    fn has_repeated_key(&self, at: u32) -> bool {
        let len = self.slots[at as usize].len as usize;
        if len < 2 {
            return false;
        }
        if len <= 16 {
            // Pairwise: names of different lengths differ.
            let end = self.slots[at as usize].end;
            let mut i = at + 1;
            while i < end {
                let key = self.slots[i as usize].key;
                let mut j = self.slots[i as usize].end;
                while j < end {
                    let other = self.slots[j as usize].key;
                    if other.width() == key.width() && self.bytes(other) == self.bytes(key) {
                        return true;
                    }
                    j = self.slots[j as usize].end;
                }
                i = self.slots[i as usize].end;
            }
            return false;
        }
        let mut seen = std::collections::HashSet::with_capacity(len);
        !self.members(at).all(|(_, key)| seen.insert(key))
    }
}

impl Drop for Doc {
    fn drop(&mut self) {
        pool::give(
            std::mem::take(&mut self.slots),
            std::mem::take(&mut self.json),
        );
    }
}

mod pool {
    //! Buffers of dropped documents, kept per thread for the next one
    //! (a document per tool call: no allocation for it after the first).

    use std::cell::RefCell;

    use super::{Open, Slot};

    /// Buffers over this size are not kept.
    const KEEP: usize = 64 << 10;

    type Buffers = (Vec<Slot>, String, Vec<Open>);

    thread_local! {
        static FREE: RefCell<Buffers> = const { RefCell::new((Vec::new(), String::new(), Vec::new())) };
    }

    /// Empty buffers, with room from an earlier document when kept.
    pub(super) fn take() -> Buffers {
        let (mut slots, mut json, open) = FREE.with(|f| std::mem::take(&mut *f.borrow_mut()));
        if slots.capacity() == 0 {
            slots.reserve(32);
        }
        if json.capacity() == 0 {
            json.reserve(512);
        }
        (slots, json, open)
    }

    /// Keeps a document's buffers (emptied) for the next one.
    pub(super) fn give(mut slots: Vec<Slot>, mut json: String) {
        if slots.capacity() * std::mem::size_of::<Slot>() > KEEP || json.capacity() > KEEP {
            return;
        }
        slots.clear();
        json.clear();
        FREE.with(|f| {
            let mut free = f.borrow_mut();
            if free.0.capacity() < slots.capacity() {
                free.0 = slots;
            }
            if free.1.capacity() < json.capacity() {
                free.1 = json;
            }
        });
    }

    /// Keeps the builder's stack of open containers.
    pub(super) fn give_open(open: Vec<Open>) {
        if open.capacity() <= 64 {
            FREE.with(|f| f.borrow_mut().2 = open);
        }
    }
}

/// Members of a container: (node index, member name; empty in arrays).
struct Members<'a> {
    doc: &'a Doc,
    next: u32,
    end: u32,
}

impl<'a> Iterator for Members<'a> {
    type Item = (u32, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let at = self.next;
        let slot = &self.doc.slots[at as usize];
        self.next = slot.end;
        Some((at, self.doc.str(slot.key)))
    }
}

/// Appends `s` between quotes when it needs no escaping in JSON, in
/// one pass that checks and copies each byte (names and values are
/// mostly a few bytes: cheaper than a check, then a call to `memcpy`);
/// its span in `out`. `None`, with `out` as it was, when it needs
/// escaping.
fn push_plain(out: &mut String, s: &str) -> Option<Span> {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    let at = out.len();
    // SAFETY: the bytes are written into the capacity reserved above
    // (`at + bytes.len() + 2` at most), and the length is set only once
    // all are: the quotes and `s`, so `out` stays UTF-8. On `None`
    // nothing was added to the length.
    unsafe {
        let buf = out.as_mut_vec();
        let base = buf.as_mut_ptr();
        *base.add(at) = b'"';
        let mut len = at + 1;
        for &b in bytes {
            if STRING_STOP[usize::from(b)] {
                return None;
            }
            *base.add(len) = b;
            len += 1;
        }
        *base.add(len) = b'"';
        buf.set_len(len + 1);
        Some(Span {
            start: index(at + 1),
            end: index(len),
            side: false,
        })
    }
}

/// A position in the document's buffers as kept in its nodes. Larger
/// documents are refused when finished (see [`Doc::encode`]), so a
/// position cut short here is never used.
fn index(n: usize) -> u32 {
    n as u32
}

#[cfg(test)]
mod tests {
    #[test]
    fn plain_strings_are_copied_between_quotes_and_others_leave_the_text_as_it_was() {
        let mut out = String::from("head:");
        let span = super::push_plain(&mut out, "Oslo é😀").expect("plain");
        assert_eq!(out, "head:\"Oslo é😀\"");
        assert_eq!(&out[span.start as usize..span.end as usize], "Oslo é😀");
        assert!(super::push_plain(&mut out, "").is_some());
        assert_eq!(out, "head:\"Oslo é😀\"\"\"");
        // A byte that needs escaping, first, in the middle or last,
        // past the capacity the text had: nothing is appended.
        for s in [
            "\"x",
            "a long name with a quote \" inside",
            "tab\t",
            "back\\slash",
            "nul\u{0}",
        ] {
            let before = out.clone();
            assert!(super::push_plain(&mut out, s).is_none(), "{s:?}");
            assert_eq!(out, before);
        }
    }
}
