//! Building a [`Doc`] from `Serialize` calls ([`Builder`]), writing its
//! text as it goes and refusing what the `Value` path would hold
//! differently (non-string keys, a key repeated in one object).

use std::fmt;

use serde::ser::{self, Impossible, Serialize};

use super::{index, push_plain, Doc, Kind, Num, Slot, Span};
use crate::jsonrpc::push_json_string;

/// Why a value is not encoded into a [`Doc`] (the caller falls back).
#[derive(Debug)]
pub(super) struct Refused;

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

/// A container being built.
pub(super) struct Open {
    at: u32,
    /// One bit per (length, first byte) of the member names so far: a
    /// name whose bit is set may repeat one, checked when closing.
    names: u64,
    maybe_repeated: bool,
}

/// Builds a [`Doc`] from `Serialize` calls, writing its text as it goes.
pub(super) struct Builder {
    pub(super) doc: Doc,
    /// Containers still open, innermost last.
    pub(super) open: Vec<Open>,
    /// The name of the member about to be written (already written).
    pub(super) key: Option<Span>,
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
        self.doc.slots.push(Slot {
            kind,
            key,
            end: at + 1,
            len: 0,
        });
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
        Span {
            start,
            end: index(self.doc.side.len()),
            side: true,
        }
    }

    fn str_value(&mut self, s: &str) -> Result<(), Refused> {
        let (at, key) = self.begin()?;
        let span = self.string(s);
        self.finish(at, key, Kind::Str(span));
        Ok(())
    }

    /// Writes a member name (and the comma before it) in the open object.
    fn key(&mut self, name: &str) -> Result<(), Refused> {
        let Some(open) = self.open.last_mut() else {
            return Err(Refused);
        };
        let parent = &self.doc.slots[open.at as usize];
        if parent.kind != Kind::Object || self.key.is_some() {
            return Err(Refused);
        }
        let first = parent.len == 0;
        let bit = 1u64
            << ((name.len() * 7 + usize::from(name.as_bytes().first().copied().unwrap_or(0))) % 64);
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
        self.doc
            .json
            .push(if kind == Kind::Object { '{' } else { '[' });
        self.finish(at, key, kind);
        self.open.push(Open {
            at,
            names: 0,
            maybe_repeated: false,
        });
        Ok(())
    }

    fn close(&mut self) -> Result<(), Refused> {
        let Open {
            at, maybe_repeated, ..
        } = self.open.pop().ok_or(Refused)?;
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
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Refused> {
        self.str_value(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Refused> {
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
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Variant<'a>, Refused> {
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
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Variant<'a>, Refused> {
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
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Refused> {
        self.key(key)?;
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Refused> {
        self.close()
    }
}

/// The content of a tuple or struct variant: `{"variant": [...]}` or
/// `{"variant": {...}}`; ending it closes both containers.
pub(super) struct Variant<'a>(&'a mut Builder);

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
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Refused> {
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
pub(super) struct KeyName<'a>(&'a mut Builder);

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
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Refused> {
        self.0.key(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Refused> {
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
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<NoKey, Refused> {
        Err(Refused)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<NoKey, Refused> {
        Err(Refused)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<NoKey, Refused> {
        Err(Refused)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<NoKey, Refused> {
        Err(Refused)
    }
}
