//! Compiled tool schemas and the checks of the typed call path generated
//! clients use ([`Client::call_structured`](super::Client::call_structured)
//! and its kin): input validated against `inputSchema` before anything is
//! sent, `structuredContent` validated against `outputSchema` and decoded,
//! or the content blocks decoded. Each validator is compiled once, on first use,
//! by the same [`SchemaValidator`] the server uses, in the same dialect
//! (the schema's `$schema`, else the default of the client's revision).

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::schema::Draft;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::error::{ClientError, SchemaProblem};
use crate::schema::{default_draft, SchemaValidator};

struct Compiled {
    input: Option<Result<SchemaValidator, String>>,
    output: Option<Result<SchemaValidator, String>>,
}

struct Entry {
    tool: Value,
    compiled: OnceLock<Compiled>,
}

/// The tools a client was generated from, with their validators.
pub struct ToolSchemas {
    tools: Vec<Value>,
    by_name: HashMap<String, Entry>,
    load_error: Option<String>,
    /// Dialect of schemas without `$schema`.
    draft: Draft,
}

impl std::fmt::Debug for ToolSchemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSchemas")
            .field("tools", &self.by_name.len())
            .finish_non_exhaustive()
    }
}

fn compile(schema: Option<&Value>, draft: Draft) -> Option<Result<SchemaValidator, String>> {
    schema.map(|s| SchemaValidator::compile(s, draft))
}

fn problems(validator: &SchemaValidator, value: &Value, prefix: &str) -> Vec<SchemaProblem> {
    match validator.validate(value) {
        Ok(()) => Vec::new(),
        Err(errors) => errors
            .into_iter()
            .map(|e| SchemaProblem {
                pointer: format!("{prefix}{}", e.path),
                message: e.message,
            })
            .collect(),
    }
}

impl ToolSchemas {
    /// From a JSON array of `Tool` objects. Never panics: if the text is not
    /// such an array, every call fails with an error saying so.
    pub fn from_json(text: &str) -> Self {
        match serde_json::from_str::<Vec<Value>>(text) {
            Ok(tools) => Self::new(tools),
            Err(e) => {
                let mut s = Self::new(Vec::new());
                s.load_error = Some(format!(
                    "the embedded tool list is not a JSON array of tools: {e}"
                ));
                s
            }
        }
    }

    /// From `Tool` objects.
    pub fn new(tools: Vec<Value>) -> Self {
        let by_name = tools
            .iter()
            .filter_map(|t| {
                let name = t.get("name")?.as_str()?.to_owned();
                Some((
                    name,
                    Entry {
                        tool: t.clone(),
                        compiled: OnceLock::new(),
                    },
                ))
            })
            .collect();
        Self {
            tools,
            by_name,
            load_error: None,
            draft: Draft::Draft202012,
        }
    }

    /// Schemas without `$schema` are read in the default dialect of
    /// `revision` (draft-07 before 2025-11-25, 2020-12 from it on), as the
    /// server of that revision reads them. Generated clients pass their
    /// revision; without it 2020-12 applies, as in every revision since 2025-11-25.
    pub fn for_revision(mut self, revision: &str) -> Self {
        self.draft = default_draft(revision);
        self
    }

    /// The tools as declared, in manifest order.
    pub fn tools(&self) -> &[Value] {
        &self.tools
    }

    fn compiled(&self, tool: &str) -> Result<&Compiled, ClientError> {
        let Some(entry) = self.by_name.get(tool) else {
            let why = self
                .load_error
                .clone()
                .unwrap_or_else(|| "it is not in the manifest".into());
            return Err(ClientError::unexpected(format!(
                "tool `{tool}` is unknown to this client: {why}"
            )));
        };
        Ok(entry.compiled.get_or_init(|| Compiled {
            input: compile(entry.tool.get("inputSchema"), self.draft),
            output: compile(entry.tool.get("outputSchema"), self.draft),
        }))
    }

    fn check(
        tool: &str,
        v: &Option<Result<SchemaValidator, String>>,
        value: &Value,
        prefix: &str,
        which: &str,
    ) -> Result<Vec<SchemaProblem>, ClientError> {
        match v {
            None => Ok(Vec::new()),
            Some(Ok(validator)) => Ok(problems(validator, value, prefix)),
            Some(Err(e)) => Err(ClientError::unexpected(format!(
                "the {which} of tool `{tool}` is not a usable JSON Schema: {e}"
            ))),
        }
    }

    /// Checks arguments against the tool's `inputSchema`.
    pub fn validate_input(&self, tool: &str, arguments: &Value) -> Result<(), ClientError> {
        let found = Self::check(
            tool,
            &self.compiled(tool)?.input,
            arguments,
            "",
            "inputSchema",
        )?;
        if found.is_empty() {
            Ok(())
        } else {
            Err(ClientError::InvalidInput {
                tool: tool.to_owned(),
                problems: found,
            })
        }
    }

    /// Checks `structuredContent` against the tool's `outputSchema` (if any).
    pub fn validate_output(&self, tool: &str, structured: &Value) -> Result<(), ClientError> {
        let found = Self::check(
            tool,
            &self.compiled(tool)?.output,
            structured,
            "/structuredContent",
            "outputSchema",
        )?;
        if found.is_empty() {
            Ok(())
        } else {
            Err(ClientError::InvalidOutput {
                tool: tool.to_owned(),
                problems: found,
            })
        }
    }
}

fn output_problem(tool: &str, pointer: String, message: String) -> ClientError {
    ClientError::InvalidOutput {
        tool: tool.to_owned(),
        problems: vec![SchemaProblem { pointer, message }],
    }
}

/// The `structuredContent` of a `CallToolResult` of `tool`, checked
/// against its `outputSchema` and decoded as `O`.
pub fn structured_result<O: DeserializeOwned>(
    schemas: &ToolSchemas,
    tool: &str,
    mut result: Value,
) -> Result<O, ClientError> {
    let Some(mut structured) = result.get_mut("structuredContent").map(Value::take) else {
        return Err(output_problem(
            tool,
            "/structuredContent".into(),
            "missing, but the tool declares an outputSchema".into(),
        ));
    };
    schemas.validate_output(tool, &structured)?;
    crate::integral::integral_numbers(&mut structured);
    serde_json::from_value(structured).map_err(|e| {
        output_problem(
            tool,
            "/structuredContent".into(),
            format!("does not decode: {e}"),
        )
    })
}

/// The content blocks of a `CallToolResult` of `tool`, each decoded as `C`.
pub fn content_result<C: DeserializeOwned>(
    _schemas: &ToolSchemas,
    tool: &str,
    mut result: Value,
) -> Result<Vec<C>, ClientError> {
    let blocks = match result.get_mut("content").map(Value::take) {
        Some(Value::Array(blocks)) => blocks,
        None => Vec::new(),
        Some(other) => {
            return Err(output_problem(
                tool,
                "/content".into(),
                format!("must be an array, got {other}"),
            ))
        }
    };
    blocks
        .into_iter()
        .enumerate()
        .map(|(i, b)| {
            serde_json::from_value(b).map_err(|e| {
                output_problem(
                    tool,
                    format!("/content/{i}"),
                    format!("does not decode: {e}"),
                )
            })
        })
        .collect()
}

/// A typed input as JSON.
pub(super) fn serialise_input<I: Serialize>(tool: &str, input: &I) -> Result<Value, ClientError> {
    serde_json::to_value(input).map_err(|e| ClientError::InvalidInput {
        tool: tool.to_owned(),
        problems: vec![SchemaProblem {
            pointer: String::new(),
            message: format!("cannot serialise: {e}"),
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schemas() -> ToolSchemas {
        // `prefixItems` is a 2020-12 keyword; draft-07 does not know it.
        ToolSchemas::new(vec![json!({
            "name": "t",
            "inputSchema": {"type": "object", "properties": {
                "p": {"type": "array", "prefixItems": [{"type": "string"}]},
                "n": {"type": "integer"}
            }}
        })])
    }

    #[test]
    fn schemas_are_read_in_the_dialect_of_the_clients_revision() {
        let args = json!({"p": [1]});
        schemas()
            .for_revision("2025-06-18")
            .validate_input("t", &args)
            .unwrap();
        for s in [schemas().for_revision("2025-11-25"), schemas()] {
            let err = s.validate_input("t", &args).unwrap_err();
            assert!(matches!(err, ClientError::InvalidInput { .. }), "{err}");
        }
    }

    #[test]
    fn every_problem_is_reported_with_its_pointer() {
        let err = schemas()
            .validate_input("t", &json!({"n": "x"}))
            .unwrap_err();
        let ClientError::InvalidInput { problems, .. } = err else {
            panic!("{err}")
        };
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].pointer, "/n");
        let out = ToolSchemas::new(vec![json!({"name": "o", "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "required": ["x", "y"]}})]);
        let err = out.validate_output("o", &json!({})).unwrap_err();
        let ClientError::InvalidOutput { problems, .. } = err else {
            panic!("{err}")
        };
        assert!(
            problems.iter().all(|p| p.pointer == "/structuredContent"),
            "{problems:?}"
        );
        assert!(!problems.is_empty());
    }
}
