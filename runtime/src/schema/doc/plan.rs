//! [`Plan`]: a tool's output schema compiled, when it uses only common
//! keywords, into checks run on a [`Doc`] in place; it only ever confirms
//! that a document is valid.

use serde_json::Value;

use super::{Doc, Kind, Num};

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

const TYPE_NAMES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "integer", "string",
];

impl Plan {
    /// The plan of `schema`, when it uses only what a plan checks.
    pub(crate) fn compile(schema: &Value) -> Option<Plan> {
        Some(Plan {
            root: Rule::compile(schema, true)?,
        })
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
                        Value::Array(names) if !names.is_empty() => {
                            names.iter().map(Value::as_str).collect::<Option<_>>()?
                        }
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
                        rule.properties.push(Property {
                            name: name.clone(),
                            rule: Rule::compile(sub, false)?,
                        });
                    }
                    if rule.properties.len() > 64 {
                        return None;
                    }
                }
                "required" => {
                    required = value
                        .as_array()?
                        .iter()
                        .map(|n| n.as_str().map(str::to_owned))
                        .collect::<Option<_>>()?;
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
                    rule.strings = Some(
                        value
                            .as_array()?
                            .iter()
                            .map(|v| v.as_str().map(str::to_owned))
                            .collect::<Option<_>>()?,
                    );
                }
                "minimum" => rule.minimum = Some(bound(value)?),
                "maximum" => rule.maximum = Some(bound(value)?),
                "exclusiveMinimum" => rule.exclusive_minimum = Some(bound(value)?),
                "exclusiveMaximum" => rule.exclusive_maximum = Some(bound(value)?),
                "minLength" => rule.min_length = Some(value.as_u64()?),
                "maxLength" => rule.max_length = Some(value.as_u64()?),
                // Annotations: no effect on validity.
                "title" | "description" | "default" | "examples" | "$comment" | "deprecated"
                | "readOnly" | "writeOnly" => {}
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
                    let known = self
                        .properties
                        .iter()
                        .position(|p| same(p.name.as_bytes(), name));
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
                if !self
                    .other_required
                    .iter()
                    .all(|r| doc.members(at).any(|(_, name)| name == r))
                {
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
                    if self.min_length.is_some_and(|m| len < m)
                        || self.max_length.is_some_and(|m| len > m)
                    {
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
        (Num::F(f), Bound::Int(b)) => (b.abs() <= EXACT)
            .then(|| f.partial_cmp(&(b as f64)))
            .flatten(),
        (_, Bound::Int(b)) => Some(int(n)?.cmp(&b)),
        (_, Bound::Float(b)) => {
            let v = int(n)?;
            (v.abs() <= EXACT)
                .then(|| (v as f64).partial_cmp(&b))
                .flatten()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_same_exactly_when_their_bytes_are() {
        let name: Vec<u8> = (b'a'..=b'z').collect();
        for n in 0..=name.len() {
            let a = &name[..n];
            assert!(same(a, a), "{n} bytes");
            assert!(
                !same(a, &name[..n.saturating_sub(1)]) || n == 0,
                "{n} against one byte less"
            );
            // One byte different, at every position.
            for at in 0..n {
                let mut b = a.to_vec();
                b[at] = b'_';
                assert!(!same(a, &b), "{n} bytes, differing at {at}");
            }
        }
    }
}
