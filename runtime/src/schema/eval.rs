//! Checking an instance against a compiled schema. One walk serves both
//! questions: with no sink it stops at the first failure and builds
//! nothing (`is_valid`); with a sink it visits everything and records each
//! failing value with its instance pointer. Subschemas whose failures are
//! not the instance's own (the branches of `anyOf`, `oneOf`, `not`, `if`)
//! are always asked the first question.

use std::collections::HashSet;

use serde_json::Value;

use super::compile::{Bound, Compiled, Kw};
use super::json::{self, show, show_str};
use super::FieldError;

/// How many subschemas may be entered on one path before the walk gives up
/// (a schema that refers to itself without descending into the value).
const MAX_DEPTH: u32 = 512;

pub(super) fn is_valid(c: &Compiled, v: &Value) -> bool {
    Eval {
        c,
        depth: 0,
        sink: None,
    }
    .node(c.root, v)
}

pub(super) fn errors(c: &Compiled, v: &Value) -> Vec<FieldError> {
    let mut e = Eval {
        c,
        depth: 0,
        sink: Some(Sink {
            path: String::new(),
            out: Vec::new(),
        }),
    };
    e.node(c.root, v);
    e.sink.map(|s| s.out).unwrap_or_default()
}

struct Sink {
    path: String,
    out: Vec<FieldError>,
}

struct Eval<'c> {
    c: &'c Compiled,
    depth: u32,
    sink: Option<Sink>,
}

/// A step into a value: a member name or an item index.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

impl<'c> Eval<'c> {
    /// Records a failure at the current path (if recording); always `false`.
    fn fail(&mut self, message: impl FnOnce() -> String) -> bool {
        if let Some(sink) = &mut self.sink {
            sink.out.push(FieldError {
                path: sink.path.clone(),
                message: message(),
            });
        }
        false
    }

    /// Whether `v` satisfies node `id`, without recording anything.
    fn quietly(&mut self, id: usize, v: &Value) -> bool {
        let sink = self.sink.take();
        let ok = self.node(id, v);
        self.sink = sink;
        ok
    }

    /// Node `id` on `v`, which is one step below the current path.
    fn child(&mut self, id: usize, v: &Value, step: Step<'_>) -> bool {
        let Some(sink) = &mut self.sink else {
            return self.node(id, v);
        };
        let len = sink.path.len();
        match step {
            Step::Key(k) => json::push_token(&mut sink.path, k),
            Step::Index(i) => {
                use std::fmt::Write as _;
                let _ = write!(sink.path, "/{i}");
            }
        }
        let ok = self.node(id, v);
        if let Some(sink) = &mut self.sink {
            sink.path.truncate(len);
        }
        ok
    }

    fn node(&mut self, id: usize, v: &Value) -> bool {
        if self.depth >= MAX_DEPTH {
            return self
                .fail(|| format!("the schema nests more than {MAX_DEPTH} subschemas deep here"));
        }
        self.depth += 1;
        let c = self.c;
        let mut ok = true;
        for kw in &c.nodes[id].kw {
            if !self.keyword(kw, v, id) {
                ok = false;
                if self.sink.is_none() {
                    break;
                }
            }
        }
        self.depth -= 1;
        ok
    }

    fn keyword(&mut self, kw: &Kw, v: &Value, id: usize) -> bool {
        match (kw, v) {
            (Kw::False, _) => self.fail(|| format!("{} is not allowed here", show(v))),
            (Kw::Type(bits), _) => {
                json::type_bits(v, self.c.integral_floats) & bits != 0
                    || self
                        .fail(|| format!("{} is not of type {}", show(v), json::type_list(*bits)))
            }
            (Kw::Enum(values), _) => {
                values.iter().any(|e| json::equal(e, v))
                    || self.fail(|| {
                        format!(
                            "{} is not one of {}",
                            show(v),
                            show(&Value::Array(values.clone()))
                        )
                    })
            }
            (Kw::Const(c), _) => {
                json::equal(c, v)
                    || self.fail(|| format!("{} was expected, not {}", show(c), show(v)))
            }
            (Kw::Bound(bound, limit), Value::Number(n)) => {
                use std::cmp::Ordering::*;
                let order = json::compare(n, limit);
                let (ok, why) = match bound {
                    Bound::Min => (order != Some(Less), "less than the minimum of"),
                    Bound::Max => (order != Some(Greater), "greater than the maximum of"),
                    Bound::ExclusiveMin => (
                        order == Some(Greater),
                        "not greater than the exclusive minimum",
                    ),
                    Bound::ExclusiveMax => {
                        (order == Some(Less), "not less than the exclusive maximum")
                    }
                };
                ok || self.fail(|| format!("{n} is {why} {limit}"))
            }
            (Kw::MultipleOf(m), Value::Number(n)) => {
                json::is_multiple(n, m) || self.fail(|| format!("{n} is not a multiple of {m}"))
            }
            (Kw::MinLength(min), Value::String(s)) => {
                s.len() as u64 >= *min && s.chars().count() as u64 >= *min
                    || self.fail(|| format!("{} is shorter than {min} characters", show_str(s)))
            }
            (Kw::MaxLength(max), Value::String(s)) => {
                (s.len() as u64 <= *max || s.chars().count() as u64 <= *max)
                    || self.fail(|| format!("{} is longer than {max} characters", show_str(s)))
            }
            (Kw::Pattern(p), Value::String(s)) => {
                p.matches(s)
                    || self.fail(|| {
                        format!(
                            "{} does not match the pattern {}",
                            show_str(s),
                            show_str(&p.source)
                        )
                    })
            }
            (Kw::Format(f, name), Value::String(s)) => {
                f.accepts(s) || self.fail(|| format!("{} is not a \"{name}\"", show_str(s)))
            }
            (Kw::MinItems(min), Value::Array(a)) => {
                a.len() as u64 >= *min
                    || self.fail(|| format!("{} has fewer than {min} items", show(v)))
            }
            (Kw::MaxItems(max), Value::Array(a)) => {
                a.len() as u64 <= *max
                    || self.fail(|| format!("{} has more than {max} items", show(v)))
            }
            (Kw::UniqueItems, Value::Array(a)) => {
                unique(a) || self.fail(|| format!("{} has repeated items", show(v)))
            }
            (Kw::Items { from, node }, Value::Array(a)) => {
                let mut ok = true;
                for (i, item) in a.iter().enumerate().skip(*from) {
                    if !self.child(*node, item, Step::Index(i)) {
                        ok = false;
                        if self.sink.is_none() {
                            break;
                        }
                    }
                }
                ok
            }
            (Kw::Prefix(nodes), Value::Array(a)) => {
                let mut ok = true;
                for (i, (node, item)) in nodes.iter().zip(a).enumerate() {
                    if !self.child(*node, item, Step::Index(i)) {
                        ok = false;
                        if self.sink.is_none() {
                            break;
                        }
                    }
                }
                ok
            }
            (Kw::Contains { node, min, max }, Value::Array(a)) => {
                let mut matched = 0u64;
                for item in a {
                    if self.quietly(*node, item) {
                        matched += 1;
                    }
                }
                if matched < *min {
                    return self.fail(|| match min {
                        1 => format!("{} has no item that matches the \"contains\" schema", show(v)),
                        _ => format!("{} has {matched} items that match the \"contains\" schema, fewer than {min}", show(v)),
                    });
                }
                max.is_none_or(|max| matched <= max)
                    || self.fail(|| {
                        format!(
                        "{} has {matched} items that match the \"contains\" schema, more than {}",
                        show(v),
                        max.unwrap_or(0)
                    )
                    })
            }
            (Kw::MinProperties(min), Value::Object(o)) => {
                o.len() as u64 >= *min
                    || self.fail(|| format!("{} has fewer than {min} properties", show(v)))
            }
            (Kw::MaxProperties(max), Value::Object(o)) => {
                o.len() as u64 <= *max
                    || self.fail(|| format!("{} has more than {max} properties", show(v)))
            }
            (Kw::Required(names), Value::Object(o)) => {
                let mut ok = true;
                for name in names {
                    if !o.contains_key(name) {
                        ok = self
                            .fail(|| format!("required property {} is missing", show_str(name)));
                        if self.sink.is_none() {
                            break;
                        }
                    }
                }
                ok
            }
            (Kw::Properties(props), Value::Object(o)) => {
                let mut ok = true;
                for (name, node) in props {
                    if let Some(member) = o.get(name) {
                        if !self.child(*node, member, Step::Key(name)) {
                            ok = false;
                            if self.sink.is_none() {
                                break;
                            }
                        }
                    }
                }
                ok
            }
            (Kw::PatternProperties(patterns), Value::Object(o)) => {
                let mut ok = true;
                for (key, member) in o {
                    for (p, node) in patterns {
                        if p.matches(key) && !self.child(*node, member, Step::Key(key)) {
                            ok = false;
                            if self.sink.is_none() {
                                return false;
                            }
                        }
                    }
                }
                ok
            }
            (
                Kw::Additional {
                    node,
                    names,
                    patterns,
                },
                Value::Object(o),
            ) => {
                let extra = o.iter().filter(|(k, _)| {
                    !names.iter().any(|n| n == *k) && !patterns.iter().any(|p| p.matches(k))
                });
                self.members(*node, extra, "additional")
            }
            (Kw::PropertyNames(node), Value::Object(o)) => {
                let mut ok = true;
                for key in o.keys() {
                    if !self.child(*node, &Value::String(key.clone()), Step::Key(key)) {
                        ok = false;
                        if self.sink.is_none() {
                            break;
                        }
                    }
                }
                ok
            }
            (Kw::DependentRequired(deps), Value::Object(o)) => {
                let mut ok = true;
                for (name, needs) in deps.iter().filter(|(name, _)| o.contains_key(name)) {
                    for need in needs.iter().filter(|n| !o.contains_key(*n)) {
                        ok = self.fail(|| {
                            format!(
                                "property {} is required when {} is present",
                                show_str(need),
                                show_str(name)
                            )
                        });
                    }
                }
                ok
            }
            (Kw::DependentSchemas(deps), Value::Object(o)) => {
                let mut ok = true;
                for (_, node) in deps.iter().filter(|(name, _)| o.contains_key(name)) {
                    if !self.node(*node, v) {
                        ok = false;
                        if self.sink.is_none() {
                            break;
                        }
                    }
                }
                ok
            }
            (Kw::AllOf(nodes), _) => {
                let mut ok = true;
                for node in nodes {
                    if !self.node(*node, v) {
                        ok = false;
                        if self.sink.is_none() {
                            break;
                        }
                    }
                }
                ok
            }
            (Kw::AnyOf(nodes), _) => {
                nodes.iter().any(|n| self.quietly(*n, v))
                    || self.fail(|| {
                        format!("{} does not match any of the schemas in \"anyOf\"", show(v))
                    })
            }
            (Kw::OneOf(nodes), _) => {
                let matched = nodes
                    .iter()
                    .filter(|n| self.quietly(**n, v))
                    .take(2)
                    .count();
                match matched {
                    1 => true,
                    0 => self.fail(|| {
                        format!("{} does not match any of the schemas in \"oneOf\"", show(v))
                    }),
                    _ => self.fail(|| {
                        format!(
                            "{} matches more than one of the schemas in \"oneOf\"",
                            show(v)
                        )
                    }),
                }
            }
            (Kw::Not(node), _) => {
                !self.quietly(*node, v)
                    || self.fail(|| format!("{} must not match the schema in \"not\"", show(v)))
            }
            (
                Kw::If {
                    cond,
                    then,
                    otherwise,
                },
                _,
            ) => match (self.quietly(*cond, v), then, otherwise) {
                (true, Some(node), _) | (false, _, Some(node)) => self.node(*node, v),
                _ => true,
            },
            (Kw::Ref(slot), _) => self.node(self.c.refs[*slot], v),
            (Kw::UnevaluatedProperties(node), Value::Object(o)) => {
                let mut seen = HashSet::new();
                self.evaluated_properties(id, v, &mut seen, true);
                let extra = o.iter().filter(|(k, _)| !seen.contains(k.as_str()));
                self.members(*node, extra, "unevaluated")
            }
            (Kw::UnevaluatedItems(node), Value::Array(a)) => {
                let mut seen = vec![false; a.len()];
                self.evaluated_items(id, v, &mut seen, true);
                let mut ok = true;
                for (i, item) in a.iter().enumerate().filter(|(i, _)| !seen[*i]) {
                    if !self.child(*node, item, Step::Index(i)) {
                        ok = false;
                        if self.sink.is_none() {
                            break;
                        }
                    }
                }
                ok
            }
            // A keyword about another type of value.
            _ => true,
        }
    }

    /// `members` against node `id` (`additionalProperties`,
    /// `unevaluatedProperties`); under `false`, one failure naming them all.
    fn members<'v>(
        &mut self,
        id: usize,
        members: impl Iterator<Item = (&'v String, &'v Value)>,
        what: &str,
    ) -> bool {
        if self.c.nodes[id].is_false() {
            let names: Vec<&String> = members.map(|(k, _)| k).collect();
            if names.is_empty() {
                return true;
            }
            return self.fail(|| {
                let listed: Vec<String> = names.iter().take(8).map(|n| show_str(n)).collect();
                let more = if names.len() > 8 {
                    format!(" and {} more", names.len() - 8)
                } else {
                    String::new()
                };
                format!(
                    "{what} properties are not allowed ({}{more} unexpected)",
                    listed.join(", ")
                )
            });
        }
        let mut ok = true;
        for (key, member) in members {
            if !self.child(id, member, Step::Key(key)) {
                ok = false;
                if self.sink.is_none() {
                    break;
                }
            }
        }
        ok
    }

    /// Adds to `seen` the members of the object `v` that node `id` and the
    /// subschemas it applies in place evaluate successfully (`skip_own`:
    /// not counting the node's own `unevaluatedProperties`).
    fn evaluated_properties<'v>(
        &mut self,
        id: usize,
        v: &'v Value,
        seen: &mut HashSet<&'v str>,
        skip_own: bool,
    ) {
        let Value::Object(o) = v else { return };
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        let c = self.c;
        for kw in &c.nodes[id].kw {
            match kw {
                Kw::Properties(props) => seen.extend(
                    props
                        .iter()
                        .filter_map(|(n, _)| o.get_key_value(n).map(|(k, _)| k.as_str())),
                ),
                Kw::PatternProperties(patterns) => {
                    seen.extend(
                        o.keys()
                            .filter(|k| patterns.iter().any(|(p, _)| p.matches(k)))
                            .map(String::as_str),
                    );
                }
                Kw::Additional { .. } => seen.extend(o.keys().map(String::as_str)),
                Kw::UnevaluatedProperties(_) if !skip_own => {
                    seen.extend(o.keys().map(String::as_str))
                }
                _ => {
                    for sub in self.passing_in_place(kw, v) {
                        self.evaluated_properties(sub, v, seen, false);
                    }
                }
            }
        }
        self.depth -= 1;
    }

    /// Marks in `seen` the items of the array `v` that node `id` and the
    /// subschemas it applies in place evaluate successfully.
    fn evaluated_items(&mut self, id: usize, v: &Value, seen: &mut [bool], skip_own: bool) {
        let Value::Array(a) = v else { return };
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        let c = self.c;
        for kw in &c.nodes[id].kw {
            match kw {
                Kw::Prefix(nodes) => seen.iter_mut().take(nodes.len()).for_each(|s| *s = true),
                Kw::Items { .. } => seen.iter_mut().for_each(|s| *s = true),
                Kw::UnevaluatedItems(_) if !skip_own => seen.iter_mut().for_each(|s| *s = true),
                // Items `contains` matched count as evaluated (as the
                // validator used before counted them in 2019-09 too).
                Kw::Contains { node, .. } => {
                    for (i, item) in a.iter().enumerate() {
                        if !seen[i] && self.quietly(*node, item) {
                            seen[i] = true;
                        }
                    }
                }
                _ => {
                    for sub in self.passing_in_place(kw, v) {
                        self.evaluated_items(sub, v, seen, false);
                    }
                }
            }
        }
        self.depth -= 1;
    }

    /// The subschemas `kw` applies in place to `v` that `v` satisfies.
    fn passing_in_place(&mut self, kw: &Kw, v: &Value) -> Vec<usize> {
        let candidates: Vec<usize> = match kw {
            Kw::AllOf(nodes) | Kw::AnyOf(nodes) | Kw::OneOf(nodes) => nodes.clone(),
            Kw::Ref(slot) => vec![self.c.refs[*slot]],
            Kw::DependentSchemas(deps) => match v {
                Value::Object(o) => deps
                    .iter()
                    .filter(|(n, _)| o.contains_key(n))
                    .map(|(_, node)| *node)
                    .collect(),
                _ => Vec::new(),
            },
            Kw::If {
                cond,
                then,
                otherwise,
            } => {
                if self.quietly(*cond, v) {
                    std::iter::once(*cond).chain(*then).collect()
                } else {
                    otherwise.iter().copied().collect()
                }
            }
            _ => Vec::new(),
        };
        candidates
            .into_iter()
            .filter(|n| self.quietly(*n, v))
            .collect()
    }
}

/// Whether no two items are equal (numbers by value, objects unordered).
fn unique(items: &[Value]) -> bool {
    if items.len() <= 16 {
        return items
            .iter()
            .enumerate()
            .all(|(i, a)| items[i + 1..].iter().all(|b| !json::equal(a, b)));
    }
    // Larger arrays: a canonical text per item, so the check stays linear.
    let mut seen = HashSet::with_capacity(items.len());
    items.iter().all(|item| seen.insert(canonical(item)))
}

fn canonical(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(v, &mut out);
    out
}

fn write_canonical(v: &Value, out: &mut String) {
    match v {
        // Equal numbers alike: whole ones as integers, others in exponent form.
        Value::Number(n) if n.is_i64() || n.is_u64() => out.push_str(&n.to_string()),
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e30 => out.push_str(&(f as i128).to_string()),
            Some(f) => out.push_str(&format!("{f:e}")),
            None => out.push_str(&n.to_string()),
        },
        Value::Array(a) => {
            out.push('[');
            for item in a {
                write_canonical(item, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            out.push('{');
            for k in keys {
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(&o[k], out);
                out.push(',');
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}
