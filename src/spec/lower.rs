//! Lowers the definitions of an MCP schema (draft-07 `definitions` or
//! 2020-12 `$defs`, one mechanism for both) into the IR of [`super::ir`].
//!
//! Rules, none keyed by a definition's name:
//! - an object schema becomes a struct; `const` properties are not fields;
//! - `anyOf`/`oneOf` becomes a union whose variants wrap each member's own
//!   type, told apart by a constant property when all object members have
//!   one with distinct values;
//! - `allOf` merges its members' properties into one struct;
//! - `type: [T, "null"]` is nullable `T`; other `type` lists are unions;
//! - a `$ref` definition is an alias; `enum` of strings is an enum;
//! - inline objects, unions and enums get `<Parent><Property>` names, and
//!   inline schemas of one shape (descriptions aside) share one type.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};

use super::ir::*;
use crate::error::{pointer_token, Error, Result};
use crate::naming::{self, Scope};

/// A member's declared properties: name, constant (if any), required.
type MemberView = Vec<(String, Option<ConstValue>, bool)>;

/// The definitions of one schema document and how its `$ref`s name them.
pub(super) struct Lowerer<'a> {
    defs: &'a Map<String, Value>,
    /// `/definitions` or `/$defs`.
    defs_pointer: &'static str,
    types: Types,
    scope: Scope,
    /// Canonical shape (descriptions removed) → the type already made for it.
    shapes: HashMap<String, String>,
    /// Inline type → the names its uses suggested (to rename shared shapes).
    hints: BTreeMap<String, Vec<String>>,
    /// Definition name → Rust type name.
    def_names: BTreeMap<String, String>,
}

impl<'a> Lowerer<'a> {
    pub(super) fn new(defs: &'a Map<String, Value>, defs_pointer: &'static str) -> Self {
        let mut scope = Scope::new();
        let mut def_names = BTreeMap::new();
        for name in defs.keys() {
            let rust = scope.unique(&naming::type_name(name));
            def_names.insert(name.clone(), rust);
        }
        Self {
            defs,
            defs_pointer,
            types: Types::new(),
            scope,
            shapes: HashMap::new(),
            hints: BTreeMap::new(),
            def_names,
        }
    }

    /// Lowers every definition; returns all named types.
    pub(super) fn run(mut self) -> Result<Types> {
        let mut names: Vec<&String> = self.defs.keys().collect();
        names.sort();
        // Definitions claim their shapes first, so an inline schema that
        // repeats a definition reuses the definition's type.
        for name in &names {
            let schema = &self.defs[name.as_str()];
            let key = canonical(schema);
            self.shapes
                .entry(key)
                .or_insert_with(|| self.def_names[name.as_str()].clone());
        }
        for name in names {
            let schema = &self.defs[name.as_str()];
            let pointer = format!("{}/{}", self.defs_pointer, pointer_token(name));
            let rust = self.def_names[name.as_str()].clone();
            let kind = self.lower_definition(&rust, schema, &pointer)?;
            self.types.insert(
                rust.clone(),
                TypeDef {
                    name: rust,
                    doc: description(schema),
                    pointer,
                    definition: true,
                    kind,
                },
            );
        }
        self.name_shared_shapes();
        Ok(self.types)
    }

    /// An inline type used in several places is named after what the names
    /// of its uses share (`InitializedNotificationParams` and
    /// `ToolListChangedNotificationParams` → `NotificationParams`), when
    /// that is at least two words and free.
    fn name_shared_shapes(&mut self) {
        let mut renames = BTreeMap::new();
        for (name, hints) in &self.hints {
            let is_def = self.def_names.values().any(|d| d == name);
            let mut distinct: Vec<&String> = hints.iter().collect();
            distinct.sort();
            distinct.dedup();
            if is_def || distinct.len() < 2 {
                continue;
            }
            let segs: Vec<Vec<String>> = distinct.iter().map(|h| segments(h)).collect();
            let min = segs.iter().map(Vec::len).min().unwrap_or(0);
            let mut common = 0;
            while common < min
                && segs
                    .iter()
                    .all(|s| s[s.len() - 1 - common] == segs[0][segs[0].len() - 1 - common])
            {
                common += 1;
            }
            if common < 2 {
                continue;
            }
            let shared = segs[0][segs[0].len() - common..].concat();
            if !self.scope.contains(&shared) {
                self.scope.reserve(&shared);
                renames.insert(name.clone(), shared);
            }
        }
        if renames.is_empty() {
            return;
        }
        let types = std::mem::take(&mut self.types);
        for (_, mut def) in types {
            if let Some(new) = renames.get(&def.name) {
                def.name = new.clone();
            }
            rename_in_kind(&mut def.kind, &renames);
            self.types.insert(def.name.clone(), def);
        }
    }

    fn lower_definition(&mut self, name: &str, schema: &Value, pointer: &str) -> Result<Kind> {
        let Some(obj) = schema.as_object() else {
            return Ok(Kind::Alias(Ty::Any));
        };
        if let Some(members) = union_members(obj) {
            if nullable_member(members).is_none() {
                return Ok(Kind::Union(self.lower_union(
                    name,
                    members,
                    union_keyword(obj),
                    pointer,
                )?));
            }
        }
        if let Some(parts) = obj.get("allOf").and_then(Value::as_array) {
            return Ok(Kind::Struct(self.lower_all_of(name, parts, pointer)?));
        }
        if let Some(values) = string_enum(obj) {
            return Ok(Kind::Enum(values));
        }
        if let Some(types) = obj.get("type").and_then(Value::as_array) {
            let non_null: Vec<&Value> = types
                .iter()
                .filter(|t| t.as_str() != Some("null"))
                .collect();
            if non_null.len() > 1 {
                return Ok(Kind::Union(self.primitive_union(types, pointer)?));
            }
        }
        if is_object_with_properties(obj) {
            return Ok(Kind::Struct(self.lower_struct(name, obj, pointer)?));
        }
        Ok(Kind::Alias(self.lower_ty(
            schema,
            &format!("{name}Entry"),
            pointer,
        )?))
    }

    /// The type of a schema used in place (a property, items, a member).
    /// `hint` names any type that has to be made for it.
    fn lower_ty(&mut self, schema: &Value, hint: &str, pointer: &str) -> Result<Ty> {
        let obj = match schema {
            Value::Bool(_) => return Ok(Ty::Any),
            Value::Object(o) => o,
            _ => {
                return Err(
                    Error::new("a schema must be an object or a boolean").at_pointer(pointer)
                )
            }
        };
        if let Some(r) = obj.get("$ref") {
            return self.reference(r, pointer).map(Ty::Named);
        }
        if let Some(members) = union_members(obj) {
            if let Some(inner) = nullable_member(members) {
                let p = format!("{pointer}/{}", union_keyword(obj));
                return Ok(Ty::Nullable(Box::new(self.lower_ty(inner, hint, &p)?)));
            }
            let keyword = union_keyword(obj);
            return self.inline(schema, hint, pointer, |l, name| {
                Ok(Kind::Union(l.lower_union(name, members, keyword, pointer)?))
            });
        }
        if let Some(parts) = obj.get("allOf").and_then(Value::as_array) {
            return self.inline(schema, hint, pointer, |l, name| {
                Ok(Kind::Struct(l.lower_all_of(name, parts, pointer)?))
            });
        }
        if let Some(values) = string_enum(obj) {
            return self.inline(schema, hint, pointer, |_, _| Ok(Kind::Enum(values)));
        }
        if let Some(c) = obj.get("const") {
            return Ok(match c {
                Value::String(_) => Ty::String,
                Value::Number(n) if n.is_i64() || n.is_u64() => Ty::Integer,
                Value::Number(_) => Ty::Number,
                Value::Bool(_) => Ty::Bool,
                _ => Ty::Any,
            });
        }
        match obj.get("type") {
            Some(Value::Array(types)) => {
                let non_null: Vec<&Value> = types
                    .iter()
                    .filter(|t| t.as_str() != Some("null"))
                    .collect();
                let nullable = non_null.len() < types.len();
                if non_null.len() == 1 {
                    let mut single = obj.clone();
                    single.insert("type".into(), non_null[0].clone());
                    let inner = self.lower_ty(&Value::Object(single), hint, pointer)?;
                    return Ok(if nullable {
                        Ty::Nullable(Box::new(inner))
                    } else {
                        inner
                    });
                }
                self.inline(schema, hint, pointer, |l, _| {
                    Ok(Kind::Union(l.primitive_union(types, pointer)?))
                })
            }
            Some(Value::String(t)) => self.lower_typed(obj, t, schema, hint, pointer),
            None if obj.contains_key("properties") => {
                self.lower_typed(obj, "object", schema, hint, pointer)
            }
            None => Ok(Ty::Any),
            Some(_) => {
                Err(Error::new("`type` must be a string or an array of strings")
                    .at_pointer(pointer))
            }
        }
    }

    fn lower_typed(
        &mut self,
        obj: &Map<String, Value>,
        t: &str,
        schema: &Value,
        hint: &str,
        pointer: &str,
    ) -> Result<Ty> {
        Ok(match t {
            "string" => Ty::String,
            "integer" => Ty::Integer,
            "number" => Ty::Number,
            "boolean" => Ty::Bool,
            "null" => Ty::Null,
            "array" => {
                let items = obj.get("items").cloned().unwrap_or(Value::Bool(true));
                Ty::Array(Box::new(self.lower_ty(&items, hint, &format!("{pointer}/items"))?))
            }
            "object" if is_object_with_properties(obj) => {
                return self.inline(schema, hint, pointer, |l, name| Ok(Kind::Struct(l.lower_struct(name, obj, pointer)?)));
            }
            "object" => match obj.get("additionalProperties") {
                Some(ap) if !is_any_schema(ap) && ap != &Value::Bool(false) => {
                    let p = format!("{pointer}/additionalProperties");
                    Ty::Map(Box::new(self.lower_ty(ap, &format!("{hint}Value"), &p)?))
                }
                _ => Ty::Object,
            },
            other => {
                return Err(Error::new(format!("unknown type `{other}`"))
                    .at_pointer(format!("{pointer}/type"))
                    .with_hint("JSON Schema types are string, integer, number, boolean, null, array and object"))
            }
        })
    }

    /// Makes (or reuses) a named type for an inline schema.
    fn inline(
        &mut self,
        schema: &Value,
        hint: &str,
        pointer: &str,
        make: impl FnOnce(&mut Self, &str) -> Result<Kind>,
    ) -> Result<Ty> {
        // A definition's shape is reused only for a use of the same kind
        // (`…Params` for `…Params`), not by a look-alike of another kind:
        // those share a type of their own, keyed by their kind.
        let mut key = canonical(schema);
        if let Some(existing) = self.shapes.get(&key) {
            let is_def = self.def_names.values().any(|d| d == existing);
            if !is_def || segments(existing).last() == segments(hint).last() {
                let existing = existing.clone();
                self.hints
                    .entry(existing.clone())
                    .or_default()
                    .push(hint.to_owned());
                return Ok(Ty::Named(existing));
            }
            key = format!(
                "{key}#{}",
                segments(hint).last().cloned().unwrap_or_default()
            );
            if let Some(existing) = self.shapes.get(&key).cloned() {
                self.hints
                    .entry(existing.clone())
                    .or_default()
                    .push(hint.to_owned());
                return Ok(Ty::Named(existing));
            }
        }
        let name = self.scope.unique(hint);
        self.hints
            .entry(name.clone())
            .or_default()
            .push(hint.to_owned());
        self.shapes.insert(key, name.clone());
        let kind = make(self, &name)?;
        self.types.insert(
            name.clone(),
            TypeDef {
                name: name.clone(),
                doc: description(schema),
                pointer: pointer.to_owned(),
                definition: false,
                kind,
            },
        );
        Ok(Ty::Named(name))
    }

    fn reference(&self, r: &Value, pointer: &str) -> Result<String> {
        let target = r.as_str().unwrap_or_default();
        let name = target
            .strip_prefix("#/definitions/")
            .or_else(|| target.strip_prefix("#/$defs/"))
            .ok_or_else(|| {
                Error::new(format!("unsupported `$ref` {target:?}"))
                    .at_pointer(format!("{pointer}/$ref"))
                    .with_hint("protocol schemas refer to their own definitions as #/definitions/NAME or #/$defs/NAME")
            })?;
        let name = name.replace("~1", "/").replace("~0", "~");
        self.def_names.get(&name).cloned().ok_or_else(|| {
            Error::new(format!(
                "`$ref` to {target:?}, which is not a definition of this schema"
            ))
            .at_pointer(format!("{pointer}/$ref"))
        })
    }

    fn lower_struct(
        &mut self,
        name: &str,
        obj: &Map<String, Value>,
        pointer: &str,
    ) -> Result<Struct> {
        let required = required_set(obj);
        let mut properties = Vec::new();
        if let Some(props) = obj.get("properties").and_then(Value::as_object) {
            for (wire, schema) in props {
                let p = format!("{pointer}/properties/{}", pointer_token(wire));
                properties.push(self.lower_property(
                    name,
                    wire,
                    schema,
                    required.contains(wire),
                    &p,
                )?);
            }
        }
        let additional = self.lower_additional(name, obj, pointer)?;
        Ok(Struct {
            properties,
            additional,
        })
    }

    fn lower_property(
        &mut self,
        parent: &str,
        wire: &str,
        schema: &Value,
        required: bool,
        pointer: &str,
    ) -> Result<Property> {
        let value = match schema.get("const").map(const_value) {
            Some(Some(c)) => PropValue::Const(c),
            Some(None) => {
                return Err(
                    Error::new("only string, integer and boolean constants are supported")
                        .at_pointer(format!("{pointer}/const")),
                )
            }
            None => {
                let hint = format!("{parent}{}", naming::pascal(wire));
                PropValue::Ty(self.lower_ty(schema, &hint, pointer)?)
            }
        };
        Ok(Property {
            wire: wire.to_owned(),
            doc: description(schema),
            required,
            value,
        })
    }

    fn lower_additional(
        &mut self,
        name: &str,
        obj: &Map<String, Value>,
        pointer: &str,
    ) -> Result<Additional> {
        Ok(match obj.get("additionalProperties") {
            Some(Value::Bool(false)) => Additional::Closed,
            Some(ap) if !is_any_schema(ap) => {
                let p = format!("{pointer}/additionalProperties");
                Additional::Typed(self.lower_ty(ap, &format!("{name}Value"), &p)?)
            }
            _ => Additional::Any,
        })
    }

    /// `allOf`: the members' properties in order (a later member's
    /// declaration of a property replaces an earlier one in place), all of
    /// their required properties, and the strictest additional rule.
    fn lower_all_of(&mut self, name: &str, parts: &[Value], pointer: &str) -> Result<Struct> {
        let mut merged = Struct {
            properties: Vec::new(),
            additional: Additional::Any,
        };
        for (i, part) in parts.iter().enumerate() {
            let p = format!("{pointer}/allOf/{i}");
            let (schema, at) = self.resolve(part, &p)?;
            let obj = schema.as_object().cloned().unwrap_or_default();
            let piece = if let Some(inner) = obj.get("allOf").and_then(Value::as_array) {
                self.lower_all_of(name, inner, &at)?
            } else {
                self.lower_struct(name, &obj, &at)?
            };
            for prop in piece.properties {
                match merged.properties.iter_mut().find(|q| q.wire == prop.wire) {
                    Some(existing) => {
                        let required = existing.required || prop.required;
                        let doc = prop.doc.clone().or_else(|| existing.doc.clone());
                        *existing = Property {
                            required,
                            doc,
                            ..prop
                        };
                    }
                    None => merged.properties.push(prop),
                }
            }
            // A member that only repeats `required` names marks them.
            for r in required_set(&obj) {
                if let Some(q) = merged.properties.iter_mut().find(|q| q.wire == r) {
                    q.required = true;
                }
            }
            merged.additional = match (merged.additional, piece.additional) {
                (Additional::Closed, _) | (_, Additional::Closed) => Additional::Closed,
                (Additional::Typed(t), _) | (_, Additional::Typed(t)) => Additional::Typed(t),
                _ => Additional::Any,
            };
        }
        Ok(merged)
    }

    /// Follows a `$ref` to the schema it names (and that schema's pointer).
    fn resolve(&self, schema: &'a Value, pointer: &str) -> Result<(&'a Value, String)> {
        let mut current = schema;
        let mut at = pointer.to_owned();
        for _ in 0..32 {
            match current.get("$ref") {
                Some(r) => {
                    let target = r.as_str().unwrap_or_default();
                    let name = target
                        .strip_prefix("#/definitions/")
                        .or_else(|| target.strip_prefix("#/$defs/"))
                        .map(|n| n.replace("~1", "/").replace("~0", "~"))
                        .ok_or_else(|| {
                            Error::new(format!("unsupported `$ref` {target:?}"))
                                .at_pointer(format!("{at}/$ref"))
                        })?;
                    current = self.defs.get(&name).ok_or_else(|| {
                        Error::new(format!(
                            "`$ref` to {target:?}, which is not a definition of this schema"
                        ))
                        .at_pointer(format!("{at}/$ref"))
                    })?;
                    at = format!("{}/{}", self.defs_pointer, pointer_token(&name));
                }
                None => return Ok((current, at)),
            }
        }
        Err(Error::new("`$ref` chain does not end").at_pointer(pointer))
    }

    /// The declared properties of a member (following `$ref` and `allOf`),
    /// with their constants and whether each is required.
    fn member_view(&self, schema: &'a Value, pointer: &str) -> Result<Option<MemberView>> {
        let (schema, at) = self.resolve(schema, pointer)?;
        let Some(obj) = schema.as_object() else {
            return Ok(None);
        };
        if let Some(parts) = obj.get("allOf").and_then(Value::as_array) {
            let mut out: MemberView = Vec::new();
            for (i, part) in parts.iter().enumerate() {
                if let Some(view) = self.member_view(part, &format!("{at}/allOf/{i}"))? {
                    for (name, c, req) in view {
                        match out.iter_mut().find(|(n, _, _)| *n == name) {
                            Some(slot) => *slot = (name, c.or(slot.1.clone()), req || slot.2),
                            None => out.push((name, c, req)),
                        }
                    }
                }
            }
            return Ok(Some(out));
        }
        if !is_object_with_properties(obj) {
            return Ok(None);
        }
        let required = required_set(obj);
        let props = obj
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        Ok(Some(
            props
                .iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.get("const").and_then(const_value),
                        required.contains(k),
                    )
                })
                .collect(),
        ))
    }

    fn lower_union(
        &mut self,
        name: &str,
        members: &[Value],
        keyword: &str,
        pointer: &str,
    ) -> Result<Union> {
        struct Draft {
            ty: Ty,
            source: String,
            view: Option<MemberView>,
        }
        let mut drafts: Vec<Draft> = Vec::new();
        for (i, member) in members.iter().enumerate() {
            let p = format!("{pointer}/{keyword}/{i}");
            let view = self.member_view(member, &p)?;
            if let Some(r) = member.get("$ref") {
                let target = self.reference(r, &p)?;
                drafts.push(Draft {
                    ty: Ty::Named(target.clone()),
                    source: target,
                    view,
                });
                continue;
            }
            if let Some(types) = member.get("type").and_then(Value::as_array) {
                for v in self.primitive_union(types, &p)?.variants {
                    drafts.push(Draft {
                        ty: v.ty,
                        source: v.name,
                        view: None,
                    });
                }
                continue;
            }
            let ty = self.lower_ty(member, &format!("{name}Member"), &p)?;
            let source = match &ty {
                Ty::Named(n) => n.clone(),
                other => primitive_name(other).to_owned(),
            };
            drafts.push(Draft { ty, source, view });
        }

        // The discriminator: a property every object member fixes to a
        // distinct constant. Members where it is optional may number one
        // at most (that member is taken when the property is absent).
        let objects: Vec<&MemberView> = drafts.iter().filter_map(|d| d.view.as_ref()).collect();
        let mut discriminator = None;
        if objects.len() >= 2 {
            let mut candidates: Vec<(bool, String)> = Vec::new();
            for (prop, c, _) in objects[0] {
                if c.is_none() {
                    continue;
                }
                let mut values = Vec::new();
                let mut optional = 0;
                let mut ok = true;
                for view in &objects {
                    match view.iter().find(|(n, _, _)| n == prop) {
                        Some((_, Some(v), req)) => {
                            if values.contains(v) {
                                ok = false;
                            }
                            values.push(v.clone());
                            if !req {
                                optional += 1;
                            }
                        }
                        _ => ok = false,
                    }
                }
                if ok && optional <= 1 {
                    candidates.push((optional == 1, prop.clone()));
                }
            }
            candidates.sort();
            discriminator = candidates.into_iter().next().map(|(_, p)| p);
        }

        let tags: Vec<Option<(ConstValue, bool)>> = drafts
            .iter()
            .map(|d| {
                let prop = discriminator.as_ref()?;
                let view = d.view.as_ref()?;
                view.iter()
                    .find(|(n, _, _)| n == prop)
                    .and_then(|(_, c, req)| c.clone().map(|c| (c, *req)))
            })
            .collect();
        let names = variant_names(
            &drafts.iter().map(|d| d.source.as_str()).collect::<Vec<_>>(),
            &tags,
        );
        let variants = drafts
            .into_iter()
            .zip(tags)
            .zip(names)
            .map(|((d, tag), name)| {
                let view = d.view.unwrap_or_default();
                Variant {
                    name,
                    ty: d.ty,
                    tag,
                    required: view
                        .iter()
                        .filter(|(_, _, r)| *r)
                        .map(|(n, _, _)| n.clone())
                        .collect(),
                    properties: view.into_iter().map(|(n, _, _)| n).collect(),
                }
            })
            .collect();
        Ok(Union {
            variants,
            discriminator,
        })
    }

    /// A union of JSON kinds (`type: ["string", "integer"]`).
    fn primitive_union(&mut self, types: &[Value], pointer: &str) -> Result<Union> {
        let mut variants = Vec::new();
        for t in types {
            let ty = match t.as_str() {
                Some("string") => Ty::String,
                Some("integer") => Ty::Integer,
                Some("number") => Ty::Number,
                Some("boolean") => Ty::Bool,
                Some("null") => Ty::Null,
                Some("array") => Ty::Array(Box::new(Ty::Any)),
                Some("object") => Ty::Object,
                _ => {
                    return Err(Error::new(format!("unknown type {t}"))
                        .at_pointer(format!("{pointer}/type")))
                }
            };
            variants.push(Variant {
                name: primitive_name(&ty).to_owned(),
                ty,
                tag: None,
                properties: Vec::new(),
                required: Vec::new(),
            });
        }
        Ok(Union {
            variants,
            discriminator: None,
        })
    }
}

fn rename_in_ty(ty: &mut Ty, renames: &BTreeMap<String, String>) {
    match ty {
        Ty::Named(n) => {
            if let Some(new) = renames.get(n) {
                *n = new.clone();
            }
        }
        Ty::Array(t) | Ty::Map(t) | Ty::Nullable(t) => rename_in_ty(t, renames),
        _ => {}
    }
}

fn rename_in_kind(kind: &mut Kind, renames: &BTreeMap<String, String>) {
    match kind {
        Kind::Struct(s) => {
            for p in &mut s.properties {
                if let PropValue::Ty(t) = &mut p.value {
                    rename_in_ty(t, renames);
                }
            }
            if let Additional::Typed(t) = &mut s.additional {
                rename_in_ty(t, renames);
            }
        }
        Kind::Union(u) => {
            for v in &mut u.variants {
                rename_in_ty(&mut v.ty, renames);
            }
        }
        Kind::Alias(t) => rename_in_ty(t, renames),
        Kind::Enum(_) => {}
    }
}

/// The variant name of a member that is not a named type.
fn primitive_name(ty: &Ty) -> &'static str {
    match ty {
        Ty::String => "String",
        Ty::Integer => "Integer",
        Ty::Number => "Number",
        Ty::Bool => "Boolean",
        Ty::Null => "Null",
        Ty::Array(_) => "Array",
        Ty::Map(_) | Ty::Object => "Object",
        Ty::Nullable(_) => "Nullable",
        _ => "Value",
    }
}

/// Splits a type name into its capitalised segments, keeping acronyms
/// whole: `JSONRPCResultResponse` → `JSONRPC`, `Result`, `Response`.
fn segments(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if i > 0 && c.is_uppercase() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower) {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Names a union's variants after their types, without the words all the
/// named members share (`ClientRequest`: `CallToolRequest` → `CallTool`;
/// `ElicitRequestParams`: `ElicitRequestURLParams` → `URL`). Where that
/// leaves a name empty or ambiguous, discriminator values name them
/// (`ContentBlock`: `"text"` → `Text`); failing that, the full type names.
fn variant_names(sources: &[&str], tags: &[Option<(ConstValue, bool)>]) -> Vec<String> {
    let primitive = [
        "String", "Integer", "Number", "Boolean", "Null", "Array", "Object",
    ];
    let named: Vec<usize> = (0..sources.len())
        .filter(|&i| !primitive.contains(&sources[i]))
        .collect();
    let segs: Vec<Vec<String>> = sources.iter().map(|s| segments(s)).collect();
    let valid = |names: &[String]| {
        let mut seen = std::collections::BTreeSet::new();
        names
            .iter()
            .all(|n| n.starts_with(|c: char| c.is_ascii_alphabetic()) && seen.insert(n.clone()))
    };
    let strip = |prefix: bool, suffix: bool| -> Option<Vec<String>> {
        if named.len() < 2 {
            return None;
        }
        let min = named.iter().map(|&i| segs[i].len()).min().unwrap_or(0);
        let mut pre = 0;
        while prefix && pre < min && named.iter().all(|&i| segs[i][pre] == segs[named[0]][pre]) {
            pre += 1;
        }
        let mut suf = 0;
        while suffix
            && suf < min - pre
            && named.iter().all(|&i| {
                segs[i][segs[i].len() - 1 - suf] == segs[named[0]][segs[named[0]].len() - 1 - suf]
            })
        {
            suf += 1;
        }
        if pre == 0 && suf == 0 {
            return None;
        }
        let names: Vec<String> = (0..sources.len())
            .map(|i| {
                if named.contains(&i) {
                    segs[i][pre..segs[i].len() - suf].concat()
                } else {
                    sources[i].to_owned()
                }
            })
            .collect();
        valid(&names).then_some(names)
    };
    if let Some(n) = strip(true, true)
        .or_else(|| strip(false, true))
        .or_else(|| strip(true, false))
    {
        return n;
    }
    if tags.iter().filter(|t| t.is_some()).count() >= 2 {
        let names: Vec<String> = (0..sources.len())
            .map(|i| match &tags[i] {
                Some((ConstValue::Str(s), _)) => naming::pascal(s),
                _ => sources[i].to_owned(),
            })
            .collect();
        if valid(&names) {
            return names;
        }
    }
    let mut scope = Scope::new();
    sources.iter().map(|s| scope.unique(s)).collect()
}

fn union_members(obj: &Map<String, Value>) -> Option<&Vec<Value>> {
    obj.get("anyOf")
        .or_else(|| obj.get("oneOf"))
        .and_then(Value::as_array)
}

fn union_keyword(obj: &Map<String, Value>) -> &'static str {
    if obj.contains_key("anyOf") {
        "anyOf"
    } else {
        "oneOf"
    }
}

/// `anyOf: [X, {type: null}]` → `X`.
fn nullable_member(members: &[Value]) -> Option<&Value> {
    if members.len() != 2 {
        return None;
    }
    let is_null = |m: &Value| m.get("type").and_then(Value::as_str) == Some("null");
    match (is_null(&members[0]), is_null(&members[1])) {
        (true, false) => Some(&members[1]),
        (false, true) => Some(&members[0]),
        _ => None,
    }
}

fn string_enum(obj: &Map<String, Value>) -> Option<Vec<String>> {
    let values = obj.get("enum")?.as_array()?;
    values
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

fn is_object_with_properties(obj: &Map<String, Value>) -> bool {
    obj.get("properties")
        .is_some_and(|p| p.as_object().is_some_and(|m| !m.is_empty()))
}

/// `{}` or `true`: any value at all.
fn is_any_schema(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(o) => o.keys().all(|k| k == "description" || k == "title"),
        _ => false,
    }
}

fn required_set(obj: &Map<String, Value>) -> Vec<String> {
    obj.get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn const_value(v: &Value) -> Option<ConstValue> {
    match v {
        Value::String(s) => Some(ConstValue::Str(s.clone())),
        Value::Number(n) => n.as_i64().map(ConstValue::Int),
        Value::Bool(b) => Some(ConstValue::Bool(*b)),
        _ => None,
    }
}

pub(super) fn description(schema: &Value) -> Option<String> {
    schema
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The shape of a schema without its descriptions, as a string key.
fn canonical(schema: &Value) -> String {
    fn strip(v: &Value) -> Value {
        match v {
            Value::Object(o) => {
                let mut out = Map::new();
                let mut keys: Vec<&String> = o.keys().collect();
                keys.sort();
                for k in keys {
                    if k == "description" || k == "title" {
                        continue;
                    }
                    let inner = &o[k.as_str()];
                    let value = if k == "properties" {
                        match inner {
                            Value::Object(props) => {
                                let mut sorted: Vec<(&String, &Value)> = props.iter().collect();
                                sorted.sort_by(|a, b| a.0.cmp(b.0));
                                Value::Object(
                                    sorted
                                        .into_iter()
                                        .map(|(n, s)| (n.clone(), strip(s)))
                                        .collect(),
                                )
                            }
                            other => other.clone(),
                        }
                    } else if matches!(
                        k.as_str(),
                        "items" | "additionalProperties" | "anyOf" | "oneOf" | "allOf"
                    ) {
                        strip(inner)
                    } else {
                        inner.clone()
                    };
                    out.insert(k.clone(), value);
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
            other => other.clone(),
        }
    }
    strip(schema).to_string()
}
