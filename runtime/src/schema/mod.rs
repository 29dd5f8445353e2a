//! mcpgen's own JSON Schema validator: drafts 4, 6 and 7, 2019-09 and
//! 2020-12, compiled once and checked against `serde_json` values.
//!
//! Compiling a schema also checks its shape: every keyword of the dialect
//! must hold what the dialect's meta-schema allows (a number for
//! `minimum`, schemas under `properties`, a valid ECMA-262 pattern, a
//! reference that resolves inside the document), and each problem comes
//! back with the JSON pointer of the keyword. Validation reports every
//! failing value with its instance pointer and one sentence saying why.
//!
//! References resolve inside the document, to the drafts' meta-schemas
//! (built in) and to the documents given with [`Options::document`]; a
//! generated server never fetches a remote schema. `format` is an assertion
//! by default in drafts 4 to 7 and an annotation from 2019-09 on, as the
//! drafts say; [`Options::formats`] overrides it. `$dynamicRef` (2020-12)
//! and `$recursiveRef` (2019-09) follow the dynamic scope: the schema
//! resources evaluation went through, kept only for schemas that have such
//! references. `pattern` is ECMA-262 in unicode mode (see `pattern.rs` for
//! the rule). The official JSON-Schema-Test-Suite passes in full
//! (`runtime/tests/json_schema_suite.rs`, `docs/json-schema.md`).

mod compile;
mod doc;
mod eval;
mod format;
mod idna;
mod json;
mod meta;
mod pattern;
mod uri;
mod validator;

pub(crate) use doc::Doc;
pub use validator::{default_draft, describe, SchemaValidator};

use std::sync::Arc;

use serde_json::{json, Value};

/// Keywords whose value is one subschema (in some dialect).
pub(crate) const ONE_SCHEMA: [&str; 11] = [
    "additionalItems",
    "additionalProperties",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];

/// Keywords whose value is a list of subschemas (`items` up to 2019-09
/// also takes one subschema).
pub(crate) const SCHEMA_LISTS: [&str; 5] = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];

/// Keywords whose value maps names to subschemas.
pub(crate) const SCHEMA_MAPS: [&str; 6] = [
    "properties",
    "patternProperties",
    "definitions",
    "$defs",
    "dependentSchemas",
    "dependencies",
];

/// A JSON Schema dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Draft {
    /// draft-04
    Draft4,
    /// draft-06
    Draft6,
    /// draft-07
    Draft7,
    /// 2019-09
    Draft201909,
    /// 2020-12
    Draft202012,
}

impl Draft {
    /// The dialect a `$schema` URI names (`http` or `https`, with or
    /// without the empty fragment), if it is one of the five.
    pub fn from_uri(uri: &str) -> Option<Draft> {
        let u = uri
            .trim_end_matches('#')
            .trim_start_matches("https://")
            .trim_start_matches("http://");
        match u {
            "json-schema.org/draft-04/schema" => Some(Draft::Draft4),
            "json-schema.org/draft-06/schema" => Some(Draft::Draft6),
            "json-schema.org/draft-07/schema" => Some(Draft::Draft7),
            "json-schema.org/draft/2019-09/schema" => Some(Draft::Draft201909),
            "json-schema.org/draft/2020-12/schema" => Some(Draft::Draft202012),
            _ => None,
        }
    }

    /// The dialect `schema` names with `$schema`, if it names a known one.
    pub fn detect(schema: &Value) -> Option<Draft> {
        schema
            .get("$schema")
            .and_then(Value::as_str)
            .and_then(Draft::from_uri)
    }

    /// Human name (`draft-07`, `2020-12`).
    pub fn name(self) -> &'static str {
        match self {
            Draft::Draft4 => "draft-04",
            Draft::Draft6 => "draft-06",
            Draft::Draft7 => "draft-07",
            Draft::Draft201909 => "2019-09",
            Draft::Draft202012 => "2020-12",
        }
    }

    /// Whether `format` is an assertion unless told otherwise.
    fn asserts_formats(self) -> bool {
        self <= Draft::Draft7
    }
}

/// One failing value of an instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// JSON pointer of the failing value in the instance ("" is the root).
    pub path: String,
    /// Why it fails, one sentence.
    pub message: String,
}

impl FieldError {
    /// A failure at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }

    /// `{ "path": ..., "message": ... }`.
    pub fn to_value(&self) -> Value {
        json!({ "path": self.path, "message": self.message })
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            self.path.as_str()
        };
        write!(f, "{path}: {}", self.message)
    }
}

/// One problem of a schema itself, where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// JSON pointer of the offending keyword or value in the schema.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.pointer.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{} (at {})", self.message, self.pointer)
        }
    }
}

/// How to compile: the dialect of a schema without `$schema`, and whether
/// `format` asserts.
#[derive(Debug, Clone)]
pub struct Options {
    default: Draft,
    formats: Option<bool>,
    documents: Vec<(String, Arc<Value>)>,
}

impl Options {
    /// `format` asserts (`true`) or only annotates (`false`), whatever the
    /// dialect's default.
    pub fn formats(mut self, assert: bool) -> Self {
        self.formats = Some(assert);
        self
    }

    /// Makes `document` available to references as `uri` (an absolute URI
    /// without fragment), as if it had been fetched from there: nothing is
    /// ever fetched, so a schema that refers to another document compiles
    /// only if that document is given here or is a draft's meta-schema.
    pub fn document(mut self, uri: &str, document: Value) -> Self {
        let uri = uri.split_once('#').map_or(uri, |(u, _)| u);
        self.documents.push((uri.to_owned(), Arc::new(document)));
        self
    }

    /// The dialect of `schema` and whether its validation vocabulary is
    /// on: a draft's `$schema` URI names that draft; another URI naming a
    /// preloaded meta-schema takes that meta-schema's dialect and, from
    /// 2019-09 on, the vocabularies its `$vocabulary` lists.
    fn dialect(&self, schema: &Value) -> (Draft, bool) {
        if let Some(draft) = Draft::detect(schema) {
            return (draft, true);
        }
        let Some(uri) = schema.get("$schema").and_then(Value::as_str) else {
            return (self.default, true);
        };
        let uri = uri.split_once('#').map_or(uri, |(u, _)| u);
        let Some(meta) = self
            .documents
            .iter()
            .find(|(u, _)| u == uri)
            .map(|(_, d)| d.as_ref())
        else {
            return (self.default, true);
        };
        let draft = Draft::detect(meta).unwrap_or(self.default);
        let validation = match meta.get("$vocabulary").and_then(Value::as_object) {
            Some(vocabularies) if draft >= Draft::Draft201909 => vocabularies
                .keys()
                .any(|v| v.ends_with("/vocab/validation")),
            _ => true,
        };
        (draft, validation)
    }

    /// Compiles `schema`: the validator, or every problem of the schema.
    pub fn compile(&self, schema: &Value) -> Result<Schema, Vec<SchemaError>> {
        let (draft, validation) = self.dialect(schema);
        let formats = self.formats.unwrap_or(draft.asserts_formats());
        compile::compile(schema, draft, formats, validation, &self.documents).map(|c| Schema {
            root: c.root,
            inner: Arc::new(c),
        })
    }
}

/// A compiled schema (cheap to clone).
#[derive(Debug, Clone)]
pub struct Schema {
    inner: Arc<compile::Compiled>,
    /// The node this schema checks against (the document's root, or one
    /// of its subschemas).
    root: usize,
}

impl Schema {
    /// Options with `default` as the dialect of a schema without `$schema`.
    pub fn options(default: Draft) -> Options {
        Options {
            default,
            formats: None,
            documents: Vec::new(),
        }
    }

    /// Compiles `schema` in its own `$schema` dialect, else `default`.
    pub fn compile(schema: &Value, default: Draft) -> Result<Schema, Vec<SchemaError>> {
        Schema::options(default).compile(schema)
    }

    /// The subschema at JSON pointer `pointer` of the same document (a
    /// definition, say `/$defs/Tool`), sharing this compile; `None` if no
    /// subschema is there.
    pub fn subschema(&self, pointer: &str) -> Option<Schema> {
        let root = *self.inner.at.get(pointer)?;
        Some(Schema {
            inner: Arc::clone(&self.inner),
            root,
        })
    }

    /// The dialect it was compiled in.
    pub fn draft(&self) -> Draft {
        self.inner.draft
    }

    /// Whether `instance` satisfies the schema (no error is built).
    pub fn is_valid(&self, instance: &Value) -> bool {
        eval::is_valid(&self.inner, self.root, instance)
    }

    /// Every failing value of `instance`, in document order of the schema.
    pub fn errors(&self, instance: &Value) -> Vec<FieldError> {
        eval::errors(&self.inner, self.root, instance)
    }

    /// `Ok` if `instance` satisfies the schema, else every failing value.
    pub fn validate(&self, instance: &Value) -> Result<(), Vec<FieldError>> {
        if self.is_valid(instance) {
            return Ok(());
        }
        let mut errors = self.errors(instance);
        if errors.is_empty() {
            errors.push(FieldError::new("", "the value does not match the schema"));
        }
        Err(errors)
    }
}

/// The first problem of a failed compile, for one-line messages.
pub fn first_problem(errors: &[SchemaError]) -> String {
    match errors {
        [] => "the schema does not compile".to_owned(),
        [one] => one.to_string(),
        [first, rest @ ..] => format!("{first} (and {} more)", rest.len()),
    }
}

#[cfg(test)]
mod tests;
