//! Compiled JSON Schema validators for tool inputs and outputs.
//!
//! Each tool's `inputSchema` and `outputSchema` is compiled once, when the
//! server starts, with `jsonschema`. The dialect is the schema's own
//! `$schema` when it names one, else the protocol revision's default:
//! draft-07 before 2025-11-25 and 2020-12 from it on. Validation reports
//! every failing field with its instance path (a JSON pointer) and why.

use jsonschema::Draft;
use serde_json::{json, Value};

/// The default dialect of schemas without `$schema` in a protocol revision
/// (from the revision table; an unknown revision takes the one before it).
pub fn default_draft(revision: &str) -> Draft {
    crate::revision::nearest(revision).dialect.draft()
}

/// One failing field.
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
        Self { path: path.into(), message: message.into() }
    }

    /// `{ "path": ..., "message": ... }`.
    pub fn to_value(&self) -> Value {
        json!({ "path": self.path, "message": self.message })
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() { "/" } else { self.path.as_str() };
        write!(f, "{path}: {}", self.message)
    }
}

/// A compiled schema.
#[derive(Debug, Clone)]
pub struct SchemaValidator {
    inner: jsonschema::Validator,
}

impl SchemaValidator {
    /// Compiles `schema`, in its own `$schema` dialect or else `default`.
    pub fn compile(schema: &Value, default: Draft) -> Result<Self, String> {
        let mut draft = default.detect(schema);
        if draft == Draft::Unknown {
            draft = default;
        }
        jsonschema::options()
            .with_draft(draft)
            .build(schema)
            .map(|inner| Self { inner })
            .map_err(|e| e.to_string())
    }

    /// Checks `instance`; on failure lists every failing field.
    pub fn validate(&self, instance: &Value) -> Result<(), Vec<FieldError>> {
        // `is_valid` is the fast path: no error values are built.
        if self.inner.is_valid(instance) {
            return Ok(());
        }
        let mut errors: Vec<FieldError> = self
            .inner
            .iter_errors(instance)
            .map(|e| FieldError::new(e.instance_path().as_str(), e.to_string()))
            .collect();
        if errors.is_empty() {
            errors.push(FieldError::new("", "value does not match the schema"));
        }
        Err(errors)
    }
}

/// Text naming each failing field and why, for a model to correct itself.
pub fn describe(tool: &str, errors: &[FieldError]) -> String {
    let mut text = format!("Invalid arguments for tool {tool}:");
    for e in errors {
        text.push_str("\n- ");
        let path = if e.path.is_empty() { "(root)" } else { e.path.as_str() };
        text.push_str(path);
        text.push_str(": ");
        text.push_str(&e.message);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1},
                "units": {"enum": ["metric", "imperial"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 7}
            },
            "required": ["city"],
            "additionalProperties": false
        })
    }

    #[test]
    fn valid_instances_pass() {
        let v = SchemaValidator::compile(&schema(), Draft::Draft202012).unwrap();
        assert!(v.validate(&json!({"city": "Oslo", "units": "metric", "days": 3})).is_ok());
    }

    #[test]
    fn every_failing_field_is_reported_with_its_path() {
        let v = SchemaValidator::compile(&schema(), Draft::Draft202012).unwrap();
        let errors = v.validate(&json!({"city": "", "units": "kelvin", "days": 9})).unwrap_err();
        let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
        assert!(paths.contains(&"/city"), "{errors:?}");
        assert!(paths.contains(&"/units"), "{errors:?}");
        assert!(paths.contains(&"/days"), "{errors:?}");
        let text = describe("get_weather", &errors);
        assert!(text.contains("/units: "), "{text}");
    }

    #[test]
    fn missing_required_is_reported_at_the_root() {
        let v = SchemaValidator::compile(&schema(), Draft::Draft7).unwrap();
        let errors = v.validate(&json!({})).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].path, "");
        assert!(errors[0].message.contains("city"), "{errors:?}");
    }

    #[test]
    fn dialect_follows_schema_then_revision() {
        assert_eq!(default_draft("2025-06-18"), Draft::Draft7);
        assert_eq!(default_draft("2025-11-25"), Draft::Draft202012);
        // `prefixItems` only means something in 2020-12.
        let s = json!({"type": "array", "prefixItems": [{"type": "string"}]});
        let new = SchemaValidator::compile(&s, Draft::Draft202012).unwrap();
        assert!(new.validate(&json!([1])).is_err());
        let old = SchemaValidator::compile(&s, Draft::Draft7).unwrap();
        assert!(old.validate(&json!([1])).is_ok());
        // An explicit `$schema` wins over the revision default.
        let mut explicit = s.clone();
        explicit["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
        let v = SchemaValidator::compile(&explicit, Draft::Draft7).unwrap();
        assert!(v.validate(&json!([1])).is_err());
    }

    #[test]
    fn invalid_schemas_are_reported_not_panicked() {
        assert!(SchemaValidator::compile(&json!({"type": 12}), Draft::Draft202012).is_err());
    }
}
