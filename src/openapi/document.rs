//! Reading an OpenAPI document: JSON or YAML 1.2 text into a JSON value
//! with the line:column of every value, which OpenAPI version it is, and
//! [`Diag`], where the importer collects every error and warning, each
//! located by file, JSON pointer and line:column.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use crate::error::{Error, ErrorKind};
use crate::manifest::locate::{locate_json, Positions};
use crate::manifest::yaml;

/// The OpenAPI versions the importer reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Version {
    /// Swagger 2.0.
    Swagger2,
    /// OpenAPI 3.0.x.
    V30,
    /// OpenAPI 3.1.x.
    V31,
}

/// A parsed document.
#[derive(Debug)]
pub(crate) struct Document {
    /// The file name used in messages.
    pub file: String,
    /// The document as JSON.
    pub root: Value,
    /// Where each value starts.
    pub positions: Positions,
}

/// Reads and parses a file (`.json` as JSON, `.yaml`/`.yml` as YAML; any
/// other name as JSON when it parses as JSON, else YAML).
pub(crate) fn load(path: &Path) -> Result<Document, Error> {
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::io("read OpenAPI document", path, e))?;
    parse(&text, &path.display().to_string())
}

/// Parses document text; `file` names it in messages and picks the syntax.
pub(crate) fn parse(text: &str, file: &str) -> Result<Document, Error> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lower = file.to_ascii_lowercase();
    let yaml_name = lower.ends_with(".yaml") || lower.ends_with(".yml");
    let json_name = lower.ends_with(".json");
    if !yaml_name {
        match serde_json::from_str::<Value>(text) {
            Ok(root) => {
                let positions = locate_json(text);
                return Ok(Document {
                    file: file.to_owned(),
                    root,
                    positions,
                });
            }
            Err(e) if json_name => {
                return Err(Error::new(format!("invalid JSON: {e}"))
                    .with_kind(ErrorKind::Manifest)
                    .in_file(file)
                    .at_line_col(e.line(), e.column())
                    .with_hint("fix the JSON syntax at this position"));
            }
            Err(_) => {}
        }
    }
    let (root, positions) = yaml::parse(text, file).map_err(|e| e.or_kind(ErrorKind::Manifest))?;
    Ok(Document {
        file: file.to_owned(),
        root,
        positions,
    })
}

/// Which version a document is, or the error saying why it is none the
/// importer reads.
pub(crate) fn version(doc: &Document, diag: &mut Diag) -> Option<Version> {
    let Some(obj) = doc.root.as_object() else {
        diag.error(
            "",
            "this is not an OpenAPI document: its root is not an object",
            "give an OpenAPI 3.x or Swagger 2.0 document (JSON or YAML)",
        );
        return None;
    };
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if let Some(v) = obj.get("openapi") {
        let v = text(v);
        if v == "3.0" || v.starts_with("3.0.") {
            return Some(Version::V30);
        }
        if v == "3.1" || v.starts_with("3.1.") {
            return Some(Version::V31);
        }
        diag.error(
            "/openapi",
            &format!("unsupported OpenAPI version `{v}`"),
            "mcpgen imports Swagger 2.0 and OpenAPI 3.0.x and 3.1.x",
        );
        return None;
    }
    if let Some(v) = obj.get("swagger") {
        let v = text(v);
        if v == "2.0" || v == "2" {
            return Some(Version::Swagger2);
        }
        diag.error(
            "/swagger",
            &format!("unsupported Swagger version `{v}`"),
            "mcpgen imports Swagger 2.0 and OpenAPI 3.0.x and 3.1.x",
        );
        return None;
    }
    diag.error(
        "",
        "this is not an OpenAPI document: it has neither `openapi` nor `swagger`",
        "give an OpenAPI 3.x document (with `openapi: 3.x.y`) or a Swagger 2.0 one (`swagger: \"2.0\"`)",
    );
    None
}

/// Every problem found while importing, located in the document. A
/// problem reported twice (a component used by many operations) is kept
/// once.
#[derive(Debug)]
pub(crate) struct Diag<'a> {
    file: &'a str,
    positions: &'a Positions,
    seen: HashSet<(bool, String, String)>,
    /// Problems that stop the import.
    pub errors: Vec<Error>,
    /// Problems worked around.
    pub warnings: Vec<Error>,
}

impl<'a> Diag<'a> {
    /// An empty list for the document `doc`.
    pub(crate) fn new(doc: &'a Document) -> Self {
        Diag {
            file: &doc.file,
            positions: &doc.positions,
            seen: HashSet::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// An error located at `pointer` (not recorded).
    pub(crate) fn located(&self, pointer: &str, message: &str, hint: &str) -> Error {
        let mut e = Error::new(message)
            .with_kind(ErrorKind::Manifest)
            .in_file(self.file)
            .at_pointer(pointer);
        if let Some((l, c)) = self.positions.nearest(pointer) {
            e = e.at_line_col(l, c);
        }
        if !hint.is_empty() {
            e = e.with_hint(hint);
        }
        e
    }

    /// Records an error.
    pub(crate) fn error(&mut self, pointer: &str, message: &str, hint: &str) {
        if self
            .seen
            .insert((true, pointer.to_owned(), message.to_owned()))
        {
            let e = self.located(pointer, message, hint);
            self.errors.push(e);
        }
    }

    /// Records a warning.
    pub(crate) fn warn(&mut self, pointer: &str, message: &str, hint: &str) {
        if self
            .seen
            .insert((false, pointer.to_owned(), message.to_owned()))
        {
            let e = self.located(pointer, message, hint);
            self.warnings.push(e);
        }
    }
}

/// `pointer` with one more reference token.
pub(crate) fn child(pointer: &str, token: &str) -> String {
    format!("{pointer}/{}", crate::error::pointer_token(token))
}
