//! The server's tool table: the tools exactly as declared (served by
//! `tools/list` in declaration order), a name index, and per tool the
//! compiled input/output validators and the rate-limit bucket.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::schema::{default_draft, SchemaValidator};
use crate::server::tools::limits::{Bucket, RateLimit};

/// Up to this many tools, a name is found by comparing names.
const LINEAR_FIND: usize = 16;

/// One tool of the table.
#[derive(Debug)]
pub(crate) struct ToolEntry {
    /// Wire name.
    pub name: Arc<str>,
    /// The `Tool` object as declared (unknown fields kept).
    pub declared: Value,
    /// Validator of `inputSchema`.
    pub input: SchemaValidator,
    /// Validator of `outputSchema`, when the tool has one.
    pub output: Option<SchemaValidator>,
    /// The rate-limit bucket, when the tool is limited.
    pub limit: Option<Bucket>,
}

/// All tools, in declaration order.
#[derive(Debug, Default)]
pub(crate) struct ToolSet {
    entries: Vec<ToolEntry>,
    index: HashMap<String, usize>,
}

/// A problem found while building the table; the server does not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSetError {
    /// JSON pointer into the tool list, e.g. `/2/inputSchema`.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ToolSetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "tool table at {}: {}", self.pointer, self.message)
    }
}

impl std::error::Error for ToolSetError {}

impl ToolSet {
    /// Builds the table from a JSON array of `Tool` objects, compiling every
    /// schema in the dialect of `revision` (or its own `$schema`).
    pub(crate) fn new(
        tools: &Value,
        revision: &str,
        limits: &HashMap<String, RateLimit>,
    ) -> Result<Self, ToolSetError> {
        let err = |pointer: String, message: String| ToolSetError { pointer, message };
        let list = tools
            .as_array()
            .ok_or_else(|| err(String::new(), "expected an array of tools".into()))?;
        let draft = default_draft(revision);
        let mut set = ToolSet::default();
        for (i, tool) in list.iter().enumerate() {
            let name = tool
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| err(format!("/{i}/name"), "missing tool name".into()))?;
            if set.index.insert(name.to_owned(), i).is_some() {
                return Err(err(
                    format!("/{i}/name"),
                    format!("duplicate tool name {name:?}"),
                ));
            }
            let input_schema = tool
                .get("inputSchema")
                .ok_or_else(|| err(format!("/{i}/inputSchema"), "missing inputSchema".into()))?;
            let input = SchemaValidator::compile(input_schema, draft)
                .map_err(|m| err(format!("/{i}/inputSchema"), m))?;
            let output = match tool.get("outputSchema") {
                Some(schema) => Some(
                    SchemaValidator::compile(schema, draft)
                        .map_err(|m| err(format!("/{i}/outputSchema"), m))?,
                ),
                None => None,
            };
            set.entries.push(ToolEntry {
                name: name.into(),
                declared: tool.clone(),
                input,
                output,
                limit: limits.get(name).map(|l| Bucket::new(*l)),
            });
        }
        for name in limits.keys() {
            if !set.index.contains_key(name) {
                return Err(err(
                    String::new(),
                    format!("rate limit configured for unknown tool {name:?}"),
                ));
            }
        }
        Ok(set)
    }

    /// The index of a tool by wire name.
    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        // A few names are compared faster than one is hashed.
        if self.entries.len() <= LINEAR_FIND {
            return self.entries.iter().position(|e| *e.name == *name);
        }
        self.index.get(name).copied()
    }

    /// The tool at `index`.
    pub(crate) fn get(&self, index: usize) -> &ToolEntry {
        &self.entries[index]
    }

    /// Every tool, in declaration order.
    #[cfg(feature = "streamable-http")]
    pub(crate) fn entries(&self) -> impl Iterator<Item = &ToolEntry> {
        self.entries.iter()
    }

    /// Number of tools.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no tools.
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The declared tools from `offset`, at most `count` of them.
    pub(crate) fn page(&self, offset: usize, count: usize) -> impl Iterator<Item = &Value> {
        self.entries
            .iter()
            .skip(offset)
            .take(count)
            .map(|e| &e.declared)
    }
}
