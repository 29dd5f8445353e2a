//! The protocol revision as mcpgen understands it: every definition of the
//! official schema lowered to the IR of [`ir`], and the method table (which
//! definitions are requests, notifications and results, and the `method`
//! of each).
//!
//! Nothing downstream of this module reads schema JSON. Draft-07 schemas
//! (`definitions`) and 2020-12 schemas (`$defs`) go through the same
//! lowering.

pub mod ir;
mod lower;
mod methods;

use std::path::Path;

use mcpgen_runtime::schema::Draft;
use serde_json::Value;

pub use ir::*;

use crate::error::{Error, Result};

/// One protocol revision's types and methods.
#[derive(Debug, Clone)]
pub struct Spec {
    /// Where the schema came from (a file name or a revision), for docs and errors.
    pub source: String,
    /// The JSON Schema dialect the schema is written in (draft-07 or
    /// 2020-12: definitions under `definitions` or `$defs`).
    pub dialect: Draft,
    /// Every named type: definitions and the inline types they needed.
    pub types: Types,
    /// Requests and notifications, by method name.
    pub methods: Vec<Method>,
}

impl Spec {
    /// Reads and lowers a schema file.
    pub fn load(path: &Path) -> Result<Spec> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
        let json: Value = serde_json::from_str(&text).map_err(|e| {
            Error::new(format!("not valid JSON: {e}"))
                .in_file(path)
                .at_line_col(e.line(), e.column())
        })?;
        Spec::from_json(&json, &path.display().to_string()).map_err(|e| e.in_file(path))
    }

    /// Lowers a parsed schema document. `source` names it in messages.
    pub fn from_json(json: &Value, source: &str) -> Result<Spec> {
        let declared = json
            .get("$schema")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let (dialect, key) = if json.get("$defs").is_some() {
            (Draft::Draft202012, "$defs")
        } else if json.get("definitions").is_some() {
            (Draft::Draft7, "definitions")
        } else {
            return Err(
                Error::new("the schema has neither `$defs` nor `definitions`")
                    .at_pointer("")
                    .with_hint("pass the official MCP schema.json of a protocol revision"),
            );
        };
        let dialect = if declared.contains("draft-07") {
            Draft::Draft7
        } else {
            dialect
        };
        let defs = json[key].as_object().ok_or_else(|| {
            Error::new(format!("`{key}` must be an object of definitions"))
                .at_pointer(format!("/{key}"))
        })?;
        let pointer = if key == "$defs" {
            "/$defs"
        } else {
            "/definitions"
        };
        let types = lower::Lowerer::new(defs, pointer).run()?;
        let methods = methods::table(&types);
        Ok(Spec {
            source: source.to_owned(),
            dialect,
            types,
            methods,
        })
    }

    /// The type with this name.
    pub fn get(&self, name: &str) -> Option<&TypeDef> {
        self.types.get(name)
    }

    /// Follows aliases from `ty` to the type it finally names.
    pub fn resolve<'a>(&'a self, ty: &'a Ty) -> &'a Ty {
        let mut current = ty;
        for _ in 0..64 {
            match current {
                Ty::Named(n) => match self.types.get(n).map(|t| &t.kind) {
                    Some(Kind::Alias(inner)) => current = inner,
                    _ => return current,
                },
                _ => return current,
            }
        }
        current
    }

    /// The struct a type names, following aliases.
    pub fn struct_of(&self, ty: &Ty) -> Option<&Struct> {
        match self.resolve(ty) {
            Ty::Named(n) => match &self.types.get(n)?.kind {
                Kind::Struct(s) => Some(s),
                _ => None,
            },
            _ => None,
        }
    }

    /// The type of the items of `CallToolResult.content`: what a tool
    /// returns as unstructured content in this revision.
    pub fn tool_content_item(&self) -> Option<&Ty> {
        let result = self.struct_of(&Ty::Named("CallToolResult".into()))?;
        match &result.property("content")?.value {
            PropValue::Ty(Ty::Array(item)) => Some(item),
            _ => None,
        }
    }

    /// Whether a value of type `ty` stored inside `owner` must be boxed:
    /// it contains `owner` again without an indirection (a `Vec` or map).
    pub fn is_recursive(&self, owner: &str, ty: &Ty) -> bool {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack: Vec<&Ty> = vec![ty];
        while let Some(t) = stack.pop() {
            match t {
                Ty::Nullable(inner) => stack.push(inner),
                Ty::Named(n) => {
                    if n == owner {
                        return true;
                    }
                    if !seen.insert(n.as_str()) {
                        continue;
                    }
                    match self.types.get(n).map(|d| &d.kind) {
                        Some(Kind::Alias(inner)) => stack.push(inner),
                        Some(Kind::Struct(s)) => {
                            stack.extend(s.properties.iter().filter_map(|p| match &p.value {
                                PropValue::Ty(t) => Some(t),
                                PropValue::Const(_) => None,
                            }))
                        }
                        Some(Kind::Union(u)) => stack.extend(u.variants.iter().map(|v| &v.ty)),
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        false
    }
}
