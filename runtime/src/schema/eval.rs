//! Checking an instance against a compiled schema. One walk serves both
//! questions: with no sink it stops at the first failure and builds
//! nothing (`is_valid`); with a sink it visits everything and records each
//! failing value with its instance pointer. Subschemas whose failures are
//! not the instance's own (the branches of `anyOf`, `oneOf`, `not`, `if`)
//! are always asked the first question.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::compile::{Bound, Compiled, Kw, Lookup, Members};
use super::json::{self, show, show_list, show_str};
use super::FieldError;

/// How many subschemas may be entered on one path before the walk gives up
/// (a schema that refers to itself without descending into the value).
const MAX_DEPTH: u32 = 512;

pub(super) fn is_valid(c: &Compiled, root: usize, v: &Value) -> bool {
    if c.dynamic.is_some() {
        Eval::<Vec<u32>>::new(c, None).node(root, v)
    } else {
        Eval::<NoScope>::new(c, None).node(root, v)
    }
}

pub(super) fn errors(c: &Compiled, root: usize, v: &Value) -> Vec<FieldError> {
    let sink = Some(Sink {
        path: String::new(),
        out: Vec::new(),
    });
    let out = if c.dynamic.is_some() {
        let mut e = Eval::<Vec<u32>>::new(c, sink);
        e.node(root, v);
        e.sink
    } else {
        let mut e = Eval::<NoScope>::new(c, sink);
        e.node(root, v);
        e.sink
    };
    out.map(|s| s.out).unwrap_or_default()
}

struct Sink {
    path: String,
    out: Vec<FieldError>,
}

/// One evaluation. The dynamic scope (the schema resources entered,
/// outermost first) is a `Vec<u32>` for schemas with dynamic references
/// and [`NoScope`], which holds and does nothing, for the others: they pay
/// nothing for it.
struct Eval<'c, S: Scope> {
    c: &'c Compiled,
    depth: u32,
    sink: Option<Sink>,
    scope: S,
}

/// The dynamic scope of an evaluation.
trait Scope: Default {
    /// Whether a scope is kept at all.
    const KEPT: bool;
    /// Enters resource `r` unless it is the current one; whether it did.
    fn enter(&mut self, r: u32) -> bool;
    fn leave(&mut self);
    /// The resources entered, outermost first.
    fn resources(&self) -> &[u32];
}

/// No dynamic scope (the schema has no dynamic references).
#[derive(Default)]
struct NoScope;

impl Scope for NoScope {
    const KEPT: bool = false;
    fn enter(&mut self, _: u32) -> bool {
        false
    }
    fn leave(&mut self) {}
    fn resources(&self) -> &[u32] {
        &[]
    }
}

impl Scope for Vec<u32> {
    const KEPT: bool = true;
    fn enter(&mut self, r: u32) -> bool {
        if self.last() == Some(&r) {
            return false;
        }
        self.push(r);
        true
    }
    fn leave(&mut self) {
        self.pop();
    }
    fn resources(&self) -> &[u32] {
        self
    }
}

/// A step into a value: a member name or an item index.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

impl<'c, S: Scope> Eval<'c, S> {
    fn new(c: &'c Compiled, sink: Option<Sink>) -> Self {
        Eval {
            c,
            depth: 0,
            sink,
            scope: S::default(),
        }
    }

    /// Enters the schema resource of node `id` (if it is not the current
    /// one); whether it was pushed on the dynamic scope.
    #[inline]
    fn enter(&mut self, id: usize) -> bool {
        if !S::KEPT {
            return false;
        }
        match &self.c.dynamic {
            Some(d) => self.scope.enter(d.resource_of[id]),
            None => false,
        }
    }

    /// The node a `$dynamicRef` or `$recursiveRef` in slot `slot` names
    /// here: its static target, unless it is a dynamic anchor and an
    /// outer resource of the dynamic scope has one of the same name.
    fn dynamic_target(&self, slot: usize) -> usize {
        let fixed = self.c.refs[slot];
        let Some(d) = &self.c.dynamic else {
            return fixed;
        };
        let found = match d.lookups.get(&slot) {
            Some(Lookup::Anchor(name)) => d
                .anchors
                .get(name)
                .and_then(|by| self.scope.resources().iter().find_map(|r| by.get(r))),
            Some(Lookup::Recursive) => self
                .scope
                .resources()
                .iter()
                .find_map(|r| d.recursive.get(r)),
            None => None,
        };
        found.copied().unwrap_or(fixed)
    }

    /// Records a failure at the current path (if recording); always
    /// `false`. The message is built out of line: the checks stay small.
    #[inline]
    fn fail<F: FnOnce() -> String>(&mut self, message: F) -> bool {
        if let Some(sink) = &mut self.sink {
            record(sink, message);
        }
        false
    }

    /// A count bound on an array's items or an object's properties: `ok`,
    /// or "`v` has fewer/more than `bound` `noun`" recorded.
    #[inline]
    fn count(&mut self, ok: bool, v: &Value, relation: &str, bound: u64, noun: &str) -> bool {
        ok || self.fail(|| format!("{} has {relation} than {bound} {noun}", show(v)))
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
        let entered = self.enter(id);
        let c = self.c;
        let ok = self.every(&c.nodes[id].kw, |e, kw| e.keyword(kw, v, id));
        if entered {
            self.scope.leave();
        }
        self.depth -= 1;
        ok
    }

    /// Whether `check` holds for every one of `items`: it stops at the
    /// first failure unless failures are being recorded.
    #[inline]
    fn every<T>(
        &mut self,
        items: impl IntoIterator<Item = T>,
        mut check: impl FnMut(&mut Self, T) -> bool,
    ) -> bool {
        let mut ok = true;
        for item in items {
            if !check(self, item) {
                ok = false;
                if self.sink.is_none() {
                    break;
                }
            }
        }
        ok
    }

    /// The common keywords when they hold, in a few instructions; anything
    /// else (another keyword, a failure to report) takes [`Eval::check`].
    #[inline]
    fn keyword(&mut self, kw: &Kw, v: &Value, id: usize) -> bool {
        let holds = match (kw, v) {
            (Kw::Type(bits), _) => json::has_type(v, *bits, self.c.integral_floats()),
            (Kw::Enum(values), Value::String(s)) => values
                .iter()
                .any(|e| e.as_str().is_some_and(|e| json::same(e, s))),
            (Kw::MinLength(min), Value::String(s)) => at_least(s, *min),
            (Kw::MaxLength(max), Value::String(s)) => at_most(s, *max),
            (Kw::Members(m), Value::Object(o)) => return self.members(m, o),
            _ => false,
        };
        holds || self.check(kw, v, id)
    }

    /// Every keyword in full, reporting what fails.
    #[inline(never)]
    fn check(&mut self, kw: &Kw, v: &Value, id: usize) -> bool {
        match (kw, v) {
            (Kw::False, _) => self.fail(|| format!("{} is not allowed here", show(v))),
            (Kw::Type(bits), _) => {
                json::has_type(v, *bits, self.c.integral_floats())
                    || self
                        .fail(|| format!("{} is not of type {}", show(v), json::type_list(*bits)))
            }
            (Kw::Enum(values), _) => {
                let found = match v {
                    Value::String(s) => values.iter().any(|e| e.as_str() == Some(s)),
                    _ => values.iter().any(|e| json::equal(e, v)),
                };
                found || self.fail(|| format!("{} is not one of {}", show(v), show_list(values)))
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
                at_least(s, *min)
                    || self.fail(|| format!("{} is shorter than {min} characters", show_str(s)))
            }
            (Kw::MaxLength(max), Value::String(s)) => {
                at_most(s, *max)
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
                self.count(a.len() as u64 >= *min, v, "fewer", *min, "items")
            }
            (Kw::MaxItems(max), Value::Array(a)) => {
                self.count(a.len() as u64 <= *max, v, "more", *max, "items")
            }
            (Kw::UniqueItems, Value::Array(a)) => {
                unique(a) || self.fail(|| format!("{} has repeated items", show(v)))
            }
            (Kw::Items { from, node }, Value::Array(a)) => self
                .every(a.iter().enumerate().skip(*from), |e, (i, item)| {
                    e.child(*node, item, Step::Index(i))
                }),
            (Kw::Prefix(nodes), Value::Array(a)) => self
                .every(nodes.iter().zip(a).enumerate(), |e, (i, (node, item))| {
                    e.child(*node, item, Step::Index(i))
                }),
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
                self.count(o.len() as u64 >= *min, v, "fewer", *min, "properties")
            }
            (Kw::MaxProperties(max), Value::Object(o)) => {
                self.count(o.len() as u64 <= *max, v, "more", *max, "properties")
            }
            (Kw::PropertyNames(node), Value::Object(o)) => self.every(o.keys(), |e, key| {
                e.child(*node, &Value::String(key.clone()), Step::Key(key))
            }),
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
            (Kw::DependentSchemas(deps), Value::Object(o)) => self.every(
                deps.iter().filter(|(name, _)| o.contains_key(name)),
                |e, (_, node)| e.node(*node, v),
            ),
            (Kw::AllOf(nodes), _) => self.every(nodes, |e, node| e.node(*node, v)),
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
            (Kw::DynamicRef(slot), _) => self.node(self.dynamic_target(*slot), v),
            (Kw::UnevaluatedProperties(node), Value::Object(o)) => {
                let seen = self.evaluated_properties(id, o, v);
                let extra = o.iter().filter(|(k, _)| !seen.contains(k.as_str()));
                self.others(*node, extra, "unevaluated")
            }
            (Kw::UnevaluatedItems(node), Value::Array(a)) => {
                let seen = self.evaluated_items(id, a, v);
                self.every(
                    a.iter().enumerate().filter(|(i, _)| !seen[*i]),
                    |e, (i, item)| e.child(*node, item, Step::Index(i)),
                )
            }
            // A keyword about another type of value.
            _ => true,
        }
    }

    /// `members` against node `id` (`additionalProperties`,
    /// `unevaluatedProperties`); under `false`, one failure naming them all.
    fn others<'v>(
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
                use std::fmt::Write as _;
                let mut text = format!("{what} properties are not allowed (");
                for (i, n) in names.iter().take(8).enumerate() {
                    let _ = write!(text, "{}{}", if i > 0 { ", " } else { "" }, show_str(n));
                }
                if names.len() > 8 {
                    let _ = write!(text, " and {} more", names.len() - 8);
                }
                text.push_str(" unexpected)");
                text
            });
        }
        self.every(members, |e, (key, member)| {
            e.child(id, member, Step::Key(key))
        })
    }

    /// One pass over the members of `o`: each named one against its
    /// `properties` schema, each against the `patternProperties` it
    /// matches, the others against `additionalProperties`; and whether all
    /// required names were seen.
    fn members(&mut self, m: &Members, o: &Map<String, Value>) -> bool {
        let mut ok = true;
        // When recording, missing names come first (they are what a
        // caller fixes first); otherwise they are counted on the way.
        if self.sink.is_some() && m.required > 0 {
            for n in m.named.iter().filter(|n| n.required && !has(o, &n.name)) {
                ok = self.fail(|| format!("required property {} is missing", show_str(&n.name)));
            }
        }
        let mut required = 0;
        let mut unnamed = 0;
        for (key, member) in o {
            let mut known = false;
            if let Some(named) = m.find(key) {
                required += usize::from(named.required);
                known = named.node.is_some();
                if let Some(node) = named.node {
                    if !self.child(node, member, Step::Key(key)) {
                        ok = false;
                        if self.sink.is_none() {
                            return false;
                        }
                    }
                }
            }
            for (p, node) in &m.patterns {
                if p.matches(key) {
                    known = true;
                    if !self.child(*node, member, Step::Key(key)) {
                        ok = false;
                        if self.sink.is_none() {
                            return false;
                        }
                    }
                }
            }
            if !known {
                unnamed += 1;
            }
        }
        if required < m.required && self.sink.is_none() {
            return false;
        }
        if let (Some(node), true) = (m.additional, unnamed > 0) {
            let extra = o.iter().filter(|(k, _)| !m.covers(k));
            ok &= self.others(node, extra, "additional");
        }
        ok
    }

    /// Calls `mark` with every keyword of node `id` and of the subschemas
    /// it applies in place that `v` satisfies (with whether the keyword is
    /// the node's own): what `unevaluated*` reads annotations from.
    fn in_place(
        &mut self,
        id: usize,
        v: &Value,
        own: bool,
        mark: &mut dyn FnMut(&mut Self, &Kw, bool),
    ) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        let entered = self.enter(id);
        let c = self.c;
        for kw in &c.nodes[id].kw {
            mark(self, kw, own);
            for sub in self.passing_in_place(kw, v) {
                self.in_place(sub, v, false, mark);
            }
        }
        if entered {
            self.scope.leave();
        }
        self.depth -= 1;
    }

    /// The members of the object `v` that node `id` and the subschemas it
    /// applies in place evaluate successfully (not counting the node's own
    /// `unevaluatedProperties`).
    fn evaluated_properties<'v>(
        &mut self,
        id: usize,
        o: &'v Map<String, Value>,
        v: &Value,
    ) -> HashSet<&'v str> {
        let mut seen = HashSet::new();
        self.in_place(id, v, true, &mut |_, kw, own| match kw {
            Kw::Members(m) => {
                let evaluated = |k: &&String| m.additional.is_some() || m.covers(k);
                seen.extend(o.keys().filter(evaluated).map(String::as_str));
            }
            Kw::UnevaluatedProperties(_) if !own => seen.extend(o.keys().map(String::as_str)),
            _ => {}
        });
        seen
    }

    /// Which items of the array `v` node `id` and the subschemas it applies
    /// in place evaluate successfully.
    fn evaluated_items(&mut self, id: usize, a: &[Value], v: &Value) -> Vec<bool> {
        let mut seen = vec![false; a.len()];
        self.in_place(id, v, true, &mut |e, kw, own| match kw {
            Kw::Prefix(nodes) => seen.iter_mut().take(nodes.len()).for_each(|s| *s = true),
            Kw::Items { .. } => seen.iter_mut().for_each(|s| *s = true),
            Kw::UnevaluatedItems(_) if !own => seen.iter_mut().for_each(|s| *s = true),
            // Items `contains` matched count as evaluated (as the validator
            // used before counted them in 2019-09 too).
            Kw::Contains { node, .. } => {
                for (i, item) in a.iter().enumerate() {
                    if !seen[i] && e.quietly(*node, item) {
                        seen[i] = true;
                    }
                }
            }
            _ => {}
        });
        seen
    }

    /// The subschemas `kw` applies in place to `v` that `v` satisfies.
    fn passing_in_place(&mut self, kw: &Kw, v: &Value) -> Vec<usize> {
        let candidates: Vec<usize> = match kw {
            Kw::AllOf(nodes) | Kw::AnyOf(nodes) | Kw::OneOf(nodes) => nodes.clone(),
            Kw::Ref(slot) => vec![self.c.refs[*slot]],
            Kw::DynamicRef(slot) => vec![self.dynamic_target(*slot)],
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

/// Whether `s` has at least `n` characters (counted only when its length
/// in bytes leaves it open).
fn at_least(s: &str, n: u64) -> bool {
    let bytes = s.len() as u64;
    bytes >= n.saturating_mul(4) || (bytes >= n && s.chars().count() as u64 >= n)
}

/// Whether `s` has at most `n` characters.
fn at_most(s: &str, n: u64) -> bool {
    s.len() as u64 <= n || s.chars().count() as u64 <= n
}

#[cold]
#[inline(never)]
fn record<F: FnOnce() -> String>(sink: &mut Sink, message: F) {
    sink.out.push(FieldError {
        path: sink.path.clone(),
        message: message(),
    });
}

/// Whether `o` has a member `name`; small objects are scanned rather than
/// hashed.
fn has(o: &Map<String, Value>, name: &str) -> bool {
    if o.len() <= 8 {
        o.keys().any(|k| json::same(k, name))
    } else {
        o.contains_key(name)
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
