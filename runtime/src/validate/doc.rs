//! [`Doc`]: a JSON document as its compact text plus a flat list of
//! nodes pointing into it, what the engine encodes a typed tool output
//! into. It is built straight from `Serialize`, with no map and no
//! hashing, writing the text as it goes; it is validated in place (it
//! by the plan, or as its value), and its text is exactly
//! what `serde_json` writes for the `Value` that `serde_json::to_value`
//! would have built. Whatever it cannot hold the way that `Value` would
//! (non-string map keys, a key repeated in one object, integers beyond
//! 64 bits, a failing `Serialize`) is refused, and the caller takes the
//! `Value` path instead.

use std::fmt;

use serde::ser::{self, Impossible, Serialize};
use serde_json::{Map, Number, Value};

use crate::jsonrpc::{push_digits, push_json_string, STRING_STOP};

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
#[derive(Debug, Default)]
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
        let mut b = Builder { doc: Doc { slots, json, side: String::new() }, open, key: None };
        let encoded = value.serialize(&mut b).is_ok();
        let Builder { doc, mut open, .. } = b;
        // Positions are kept as `u32`: larger documents are refused.
        let fits = [doc.slots.len(), doc.json.len(), doc.side.len()].iter().all(|&n| u32::try_from(n).is_ok());
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
        buf.as_bytes().get(span.start as usize..span.end as usize).unwrap_or_default()
    }

    fn str(&self, span: Span) -> &str {
        let buf = if span.side { &self.side } else { &self.json };
        buf.get(span.start as usize..span.end as usize).unwrap_or("")
    }

    /// The members of the container at `at`: (index, name) pairs.
    fn members(&self, at: u32) -> Members<'_> {
        Members { doc: self, next: at + 1, end: self.slots[at as usize].end }
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
        pool::give(std::mem::take(&mut self.slots), std::mem::take(&mut self.json));
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
        Some(Span { start: index(at + 1), end: index(len), side: false })
    }
}

/// Why a value is not encoded into a [`Doc`] (the caller falls back).
#[derive(Debug)]
struct Refused;

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not encodable as a document")
    }
}

impl std::error::Error for Refused {}

impl ser::Error for Refused {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Refused
    }
}

/// A position in the document's buffers as kept in its nodes. Larger
/// documents are refused when finished (see [`Doc::encode`]), so a
/// position cut short here is never used.
fn index(n: usize) -> u32 {
    n as u32
}

/// A container being built.
struct Open {
    at: u32,
    /// One bit per (length, first byte) of the member names so far: a
    /// name whose bit is set may repeat one, checked when closing.
    names: u64,
    maybe_repeated: bool,
}

/// Builds a [`Doc`] from `Serialize` calls, writing its text as it goes.
struct Builder {
    doc: Doc,
    /// Containers still open, innermost last.
    open: Vec<Open>,
    /// The name of the member about to be written (already written).
    key: Option<Span>,
}

impl Builder {
    /// Starts a value: checks its place, writes the comma before an
    /// array element; its index and member name.
    fn begin(&mut self) -> Result<(u32, Span), Refused> {
        let at = index(self.doc.slots.len());
        let key = self.key.take();
        match self.open.last() {
            Some(parent) => {
                let parent = &mut self.doc.slots[parent.at as usize];
                // Object members have a name, array elements none.
                if (parent.kind == Kind::Object) != key.is_some() {
                    return Err(Refused);
                }
                if parent.kind == Kind::Array && parent.len > 0 {
                    self.doc.json.push(',');
                }
                parent.len += 1;
            }
            None if at != 0 || key.is_some() => return Err(Refused),
            None => {}
        }
        Ok((at, key.unwrap_or_default()))
    }

    fn finish(&mut self, at: u32, key: Span, kind: Kind) {
        self.doc.slots.push(Slot { kind, key, end: at + 1, len: 0 });
    }

    fn literal(&mut self, kind: Kind, text: &str) -> Result<(), Refused> {
        let (at, key) = self.begin()?;
        self.doc.json.push_str(text);
        self.finish(at, key, kind);
        Ok(())
    }

    fn number(&mut self, n: Num) -> Result<(), Refused> {
        let (at, key) = self.begin()?;
        n.write(&mut self.doc.json);
        self.finish(at, key, Kind::Num(n));
        Ok(())
    }

    fn int(&mut self, v: i64) -> Result<(), Refused> {
        self.number(if v < 0 { Num::I(v) } else { Num::U(v as u64) })
    }

    fn float(&mut self, v: f64) -> Result<(), Refused> {
        // As `serde_json::Value::from(f64)`: null unless finite.
        if v.is_finite() {
            self.number(Num::F(v))
        } else {
            self.literal(Kind::Null, "null")
        }
    }

    /// Writes a string (quoted) into the text; where it is.
    fn string(&mut self, s: &str) -> Span {
        if let Some(span) = push_plain(&mut self.doc.json, s) {
            return span;
        }
        push_json_string(&mut self.doc.json, s);
        let start = index(self.doc.side.len());
        self.doc.side.push_str(s);
        Span { start, end: index(self.doc.side.len()), side: true }
    }

    fn str_value(&mut self, s: &str) -> Result<(), Refused> {
        let (at, key) = self.begin()?;
        let span = self.string(s);
        self.finish(at, key, Kind::Str(span));
        Ok(())
    }

    /// Writes a member name (and the comma before it) in the open object.
    fn key(&mut self, name: &str) -> Result<(), Refused> {
        let Some(open) = self.open.last_mut() else { return Err(Refused) };
        let parent = &self.doc.slots[open.at as usize];
        if parent.kind != Kind::Object || self.key.is_some() {
            return Err(Refused);
        }
        let first = parent.len == 0;
        let bit = 1u64 << ((name.len() * 7 + usize::from(name.as_bytes().first().copied().unwrap_or(0))) % 64);
        open.maybe_repeated |= open.names & bit != 0;
        open.names |= bit;
        if !first {
            self.doc.json.push(',');
        }
        let span = self.string(name);
        self.doc.json.push(':');
        self.key = Some(span);
        Ok(())
    }

    fn open(&mut self, kind: Kind) -> Result<(), Refused> {
        let (at, key) = self.begin()?;
        self.doc.json.push(if kind == Kind::Object { '{' } else { '[' });
        self.finish(at, key, kind);
        self.open.push(Open { at, names: 0, maybe_repeated: false });
        Ok(())
    }

    fn close(&mut self) -> Result<(), Refused> {
        let Open { at, maybe_repeated, .. } = self.open.pop().ok_or(Refused)?;
        let end = index(self.doc.slots.len());
        let slot = &mut self.doc.slots[at as usize];
        slot.end = end;
        let object = slot.kind == Kind::Object;
        self.doc.json.push(if object { '}' } else { ']' });
        if self.key.is_some() || (object && maybe_repeated && self.doc.has_repeated_key(at)) {
            return Err(Refused);
        }
        Ok(())
    }

    /// `{"variant": …`: the object around a variant's content.
    fn variant(&mut self, variant: &str) -> Result<(), Refused> {
        self.open(Kind::Object)?;
        self.key(variant)
    }
}

impl<'a> ser::Serializer for &'a mut Builder {
    type Ok = ();
    type Error = Refused;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Variant<'a>;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Variant<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Refused> {
        self.literal(Kind::Bool(v), if v { "true" } else { "false" })
    }
    fn serialize_i8(self, v: i8) -> Result<(), Refused> {
        self.int(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), Refused> {
        self.int(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), Refused> {
        self.int(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<(), Refused> {
        self.int(v)
    }
    fn serialize_i128(self, v: i128) -> Result<(), Refused> {
        match (u64::try_from(v), i64::try_from(v)) {
            (Ok(u), _) => self.number(Num::U(u)),
            (_, Ok(i)) => self.int(i),
            _ => Err(Refused),
        }
    }
    fn serialize_u8(self, v: u8) -> Result<(), Refused> {
        self.number(Num::U(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<(), Refused> {
        self.number(Num::U(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<(), Refused> {
        self.number(Num::U(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<(), Refused> {
        self.number(Num::U(v))
    }
    fn serialize_u128(self, v: u128) -> Result<(), Refused> {
        self.number(Num::U(u64::try_from(v).map_err(|_| Refused)?))
    }
    fn serialize_f32(self, v: f32) -> Result<(), Refused> {
        // As `serde_json::Value::from(f32)`: the `f64` of the same value.
        self.float(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Refused> {
        self.float(v)
    }
    fn serialize_char(self, v: char) -> Result<(), Refused> {
        self.str_value(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Refused> {
        self.str_value(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Refused> {
        self.open(Kind::Array)?;
        for &b in v {
            self.number(Num::U(b.into()))?;
        }
        self.close()
    }
    fn serialize_none(self) -> Result<(), Refused> {
        self.literal(Kind::Null, "null")
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Refused> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Refused> {
        self.literal(Kind::Null, "null")
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Refused> {
        self.literal(Kind::Null, "null")
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), Refused> {
        self.str_value(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), Refused> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Refused> {
        self.variant(variant)?;
        value.serialize(&mut *self)?;
        self.close()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, Refused> {
        self.open(Kind::Array)?;
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, Refused> {
        self.open(Kind::Array)?;
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, Refused> {
        self.open(Kind::Array)?;
        Ok(self)
    }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, variant: &'static str, _: usize) -> Result<Variant<'a>, Refused> {
        self.variant(variant)?;
        self.open(Kind::Array)?;
        Ok(Variant(self))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self, Refused> {
        self.open(Kind::Object)?;
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Refused> {
        self.open(Kind::Object)?;
        Ok(self)
    }
    fn serialize_struct_variant(self, _: &'static str, _: u32, variant: &'static str, _: usize) -> Result<Variant<'a>, Refused> {
        self.variant(variant)?;
        self.open(Kind::Object)?;
        Ok(Variant(self))
    }
}

impl ser::SerializeSeq for &mut Builder {
    type Ok = ();
    type Error = Refused;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Refused> {
        self.close()
    }
}

impl ser::SerializeTuple for &mut Builder {
    type Ok = ();
    type Error = Refused;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Refused> {
        self.close()
    }
}

impl ser::SerializeTupleStruct for &mut Builder {
    type Ok = ();
    type Error = Refused;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Refused> {
        self.close()
    }
}

impl ser::SerializeMap for &mut Builder {
    type Ok = ();
    type Error = Refused;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Refused> {
        key.serialize(KeyName(self))
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        if self.key.is_none() {
            return Err(Refused);
        }
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Refused> {
        self.close()
    }
}

impl ser::SerializeStruct for &mut Builder {
    type Ok = ();
    type Error = Refused;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Refused> {
        self.key(key)?;
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Refused> {
        self.close()
    }
}

/// The content of a tuple or struct variant: `{"variant": [...]}` or
/// `{"variant": {...}}`; ending it closes both containers.
struct Variant<'a>(&'a mut Builder);

impl ser::SerializeTupleVariant for Variant<'_> {
    type Ok = ();
    type Error = Refused;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        value.serialize(&mut *self.0)
    }
    fn end(self) -> Result<(), Refused> {
        self.0.close()?;
        self.0.close()
    }
}

impl ser::SerializeStructVariant for Variant<'_> {
    type Ok = ();
    type Error = Refused;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Refused> {
        self.0.key(key)?;
        value.serialize(&mut *self.0)
    }
    fn end(self) -> Result<(), Refused> {
        self.0.close()?;
        self.0.close()
    }
}

/// A map key: only strings (and what serialises as one) are names as
/// they are; anything else is refused (`serde_json` would convert it).
struct KeyName<'a>(&'a mut Builder);

type NoKey = Impossible<(), Refused>;

impl ser::Serializer for KeyName<'_> {
    type Ok = ();
    type Error = Refused;
    type SerializeSeq = NoKey;
    type SerializeTuple = NoKey;
    type SerializeTupleStruct = NoKey;
    type SerializeTupleVariant = NoKey;
    type SerializeMap = NoKey;
    type SerializeStruct = NoKey;
    type SerializeStructVariant = NoKey;

    fn serialize_str(self, v: &str) -> Result<(), Refused> {
        self.0.key(v)
    }
    fn serialize_char(self, v: char) -> Result<(), Refused> {
        self.0.key(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), Refused> {
        self.0.key(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), Refused> {
        value.serialize(self)
    }
    fn serialize_bool(self, _: bool) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_i8(self, _: i8) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_i16(self, _: i16) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_i32(self, _: i32) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_i64(self, _: i64) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_u8(self, _: u8) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_u16(self, _: u16) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_u32(self, _: u32) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_u64(self, _: u64) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_f32(self, _: f32) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_f64(self, _: f64) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_none(self) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_unit(self) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Refused> {
        Err(Refused)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<NoKey, Refused> {
        Err(Refused)
    }
    fn serialize_tuple(self, _: usize) -> Result<NoKey, Refused> {
        Err(Refused)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<NoKey, Refused> {
        Err(Refused)
    }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<NoKey, Refused> {
        Err(Refused)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<NoKey, Refused> {
        Err(Refused)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<NoKey, Refused> {
        Err(Refused)
    }
    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<NoKey, Refused> {
        Err(Refused)
    }
}

/// A schema that uses only common keywords (`type`, `properties`,
/// `required`, `additionalProperties: false`, `items`, string `enum`,
/// numeric bounds, string lengths, annotations), checked directly on a
/// [`Doc`]. It only ever confirms that a document is valid: whatever it
/// cannot decide for certain (another keyword anywhere, a float where an
/// integer is wanted, a comparison past exact `f64`) counts as not
/// confirmed, and the caller checks the value.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    root: Rule,
}

/// The checks of one (sub)schema.
#[derive(Debug, Clone, Default)]
struct Rule {
    /// Allowed types, bits of [`TYPE_NAMES`]; `None`: any.
    types: Option<u8>,
    /// At most 64 properties, each with its bit in `required`.
    properties: Vec<Property>,
    /// The bits of the required properties.
    required: u64,
    /// Required names without a property schema (found by a pass).
    other_required: Vec<String>,
    /// `additionalProperties: false`.
    closed: bool,
    items: Option<Box<Rule>>,
    strings: Option<Vec<String>>,
    minimum: Option<Bound>,
    maximum: Option<Bound>,
    exclusive_minimum: Option<Bound>,
    exclusive_maximum: Option<Bound>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    /// Whether any of the four numeric bounds is set.
    bounded: bool,
}

#[derive(Debug, Clone)]
struct Property {
    name: String,
    rule: Rule,
}

/// A numeric bound as the schema gives it.
#[derive(Debug, Clone, Copy)]
enum Bound {
    Int(i128),
    Float(f64),
}

const TYPE_NAMES: [&str; 7] = ["null", "boolean", "object", "array", "number", "integer", "string"];

impl Plan {
    /// The plan of `schema`, when it uses only what a plan checks.
    pub(crate) fn compile(schema: &Value) -> Option<Plan> {
        Some(Plan { root: Rule::compile(schema, true)? })
    }

    /// Whether `doc` certainly satisfies the schema.
    pub(crate) fn accepts(&self, doc: &Doc) -> bool {
        !doc.slots.is_empty() && self.root.accepts(doc, 0)
    }
}

impl Rule {
    fn compile(schema: &Value, root: bool) -> Option<Rule> {
        let mut rule = Rule::default();
        let mut required = Vec::new();
        for (key, value) in schema.as_object()? {
            match key.as_str() {
                "type" => {
                    let names: Vec<&str> = match value {
                        Value::String(name) => vec![name.as_str()],
                        Value::Array(names) if !names.is_empty() => names.iter().map(Value::as_str).collect::<Option<_>>()?,
                        _ => return None,
                    };
                    let mut bits = 0u8;
                    for name in names {
                        bits |= 1 << TYPE_NAMES.iter().position(|t| *t == name)?;
                    }
                    rule.types = Some(bits);
                }
                "properties" => {
                    for (name, sub) in value.as_object()? {
                        rule.properties.push(Property { name: name.clone(), rule: Rule::compile(sub, false)? });
                    }
                    if rule.properties.len() > 64 {
                        return None;
                    }
                }
                "required" => {
                    required = value.as_array()?.iter().map(|n| n.as_str().map(str::to_owned)).collect::<Option<_>>()?;
                }
                "additionalProperties" => match value {
                    Value::Bool(false) => rule.closed = true,
                    Value::Bool(true) => {}
                    _ => return None,
                },
                "items" => match value {
                    Value::Object(_) => rule.items = Some(Box::new(Rule::compile(value, false)?)),
                    Value::Bool(true) => {}
                    _ => return None,
                },
                "enum" => {
                    rule.strings = Some(value.as_array()?.iter().map(|v| v.as_str().map(str::to_owned)).collect::<Option<_>>()?);
                }
                "minimum" => rule.minimum = Some(bound(value)?),
                "maximum" => rule.maximum = Some(bound(value)?),
                "exclusiveMinimum" => rule.exclusive_minimum = Some(bound(value)?),
                "exclusiveMaximum" => rule.exclusive_maximum = Some(bound(value)?),
                "minLength" => rule.min_length = Some(value.as_u64()?),
                "maxLength" => rule.max_length = Some(value.as_u64()?),
                // Annotations: no effect on validity.
                "title" | "description" | "default" | "examples" | "$comment" | "deprecated" | "readOnly" | "writeOnly" => {}
                // The dialect is already chosen.
                "$schema" if root => {}
                _ => return None,
            }
        }
        rule.bounded = rule.minimum.is_some()
            || rule.maximum.is_some()
            || rule.exclusive_minimum.is_some()
            || rule.exclusive_maximum.is_some();
        for name in required {
            match rule.properties.iter().position(|p| p.name == name) {
                Some(bit) => rule.required |= 1 << bit,
                None => rule.other_required.push(name),
            }
        }
        Some(rule)
    }

    fn accepts(&self, doc: &Doc, at: u32) -> bool {
        let slot = &doc.slots[at as usize];
        let type_bit = match slot.kind {
            Kind::Null => 1 << 0,
            Kind::Bool(_) => 1 << 1,
            Kind::Object => 1 << 2,
            Kind::Array => 1 << 3,
            // An integer value is both a number and an integer; a float
            // only a number (whether it is integral is left undecided).
            Kind::Num(Num::U(_) | Num::I(_)) => (1 << 4) | (1 << 5),
            Kind::Num(Num::F(_)) => 1 << 4,
            Kind::Str(_) => 1 << 6,
        };
        if self.types.is_some_and(|types| types & type_bit == 0) {
            return false;
        }
        match slot.kind {
            Kind::Object => {
                let mut found = 0u64;
                let mut i = at + 1;
                while i < slot.end {
                    let member = &doc.slots[i as usize];
                    let name = doc.bytes(member.key);
                    let known = self.properties.iter().position(|p| same(p.name.as_bytes(), name));
                    match known {
                        Some(k) => {
                            if !self.properties[k].rule.accepts(doc, i) {
                                return false;
                            }
                            found |= 1 << k;
                        }
                        None if self.closed => return false,
                        None => {}
                    }
                    i = member.end;
                }
                if found & self.required != self.required {
                    return false;
                }
                if !self.other_required.iter().all(|r| doc.members(at).any(|(_, name)| name == r)) {
                    return false;
                }
            }
            Kind::Array => {
                if let Some(items) = &self.items {
                    let mut i = at + 1;
                    while i < slot.end {
                        if !items.accepts(doc, i) {
                            return false;
                        }
                        i = doc.slots[i as usize].end;
                    }
                }
            }
            Kind::Str(span) => {
                if let Some(strings) = &self.strings {
                    let s = doc.bytes(span);
                    if !strings.iter().any(|e| same(e.as_bytes(), s)) {
                        return false;
                    }
                }
                if self.min_length.is_some() || self.max_length.is_some() {
                    let len = doc.str(span).chars().count() as u64;
                    if self.min_length.is_some_and(|m| len < m) || self.max_length.is_some_and(|m| len > m) {
                        return false;
                    }
                }
            }
            Kind::Num(n) if self.bounded => {
                use std::cmp::Ordering::{Greater, Less};
                let holds = |bound: Option<Bound>, ok: fn(std::cmp::Ordering) -> bool| {
                    bound.is_none_or(|b| compare(n, b).is_some_and(ok))
                };
                if !(holds(self.minimum, |o| o != Less)
                    && holds(self.maximum, |o| o != Greater)
                    && holds(self.exclusive_minimum, |o| o == Greater)
                    && holds(self.exclusive_maximum, |o| o == Less))
                {
                    return false;
                }
            }
            Kind::Num(_) | Kind::Null | Kind::Bool(_) => {}
        }
        // `enum` of strings holds nothing else.
        self.strings.is_none() || matches!(slot.kind, Kind::Str(_))
    }
}

/// Byte equality of short names, without a call to `memcmp` or a loop
/// over their bytes: a name of up to 16 bytes is compared as two words
/// (overlapping when it is shorter than two), one at each end.
fn same(a: &[u8], b: &[u8]) -> bool {
    fn word<const N: usize>(s: &[u8], at: usize) -> [u8; N] {
        let mut w = [0u8; N];
        w.copy_from_slice(&s[at..at + N]);
        w
    }
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4),
        8..=16 => word::<8>(a, 0) == word::<8>(b, 0) && word::<8>(a, n - 8) == word::<8>(b, n - 8),
        _ => a == b,
    }
}

fn bound(value: &Value) -> Option<Bound> {
    let Value::Number(n) = value else { return None };
    Some(match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => Bound::Int(i128::from(u)),
        (None, Some(i)) => Bound::Int(i128::from(i)),
        (None, None) => Bound::Float(n.as_f64()?),
    })
}

/// `n` against `bound`, when both are held exactly in the arithmetic
/// used (integers as integers; floats against integers within 2^53).
fn compare(n: Num, bound: Bound) -> Option<std::cmp::Ordering> {
    const EXACT: i128 = 1 << 53;
    let int = |n: Num| match n {
        Num::U(u) => Some(i128::from(u)),
        Num::I(i) => Some(i128::from(i)),
        Num::F(_) => None,
    };
    match (n, bound) {
        (Num::F(f), Bound::Float(b)) => f.partial_cmp(&b),
        (Num::F(f), Bound::Int(b)) => (b.abs() <= EXACT).then(|| f.partial_cmp(&(b as f64))).flatten(),
        (_, Bound::Int(b)) => Some(int(n)?.cmp(&b)),
        (_, Bound::Float(b)) => {
            let v = int(n)?;
            (v.abs() <= EXACT).then(|| (v as f64).partial_cmp(&b)).flatten()
        }
    }
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
        for s in ["\"x", "a long name with a quote \" inside", "tab\t", "back\\slash", "nul\u{0}"] {
            let before = out.clone();
            assert!(super::push_plain(&mut out, s).is_none(), "{s:?}");
            assert_eq!(out, before);
        }
    }

    #[test]
    fn names_are_the_same_exactly_when_their_bytes_are() {
        let name: Vec<u8> = (b'a'..=b'z').collect();
        for n in 0..=name.len() {
            let a = &name[..n];
            assert!(super::same(a, a), "{n} bytes");
            assert!(!super::same(a, &name[..n.saturating_sub(1)]) || n == 0, "{n} against one byte less");
            // One byte different, at every position.
            for at in 0..n {
                let mut b = a.to_vec();
                b[at] = b'_';
                assert!(!super::same(a, &b), "{n} bytes, differing at {at}");
            }
        }
    }
}
