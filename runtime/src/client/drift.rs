//! Drift check: the server's live tools against the tools a client was
//! generated from.

use std::fmt;

use serde_json::Value;

/// Which schema of a tool changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaKind {
    /// `inputSchema`.
    Input,
    /// `outputSchema`.
    Output,
}

impl fmt::Display for SchemaKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SchemaKind::Input => "inputSchema",
            SchemaKind::Output => "outputSchema",
        })
    }
}

/// A schema that differs between the manifest and the live server.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaChange {
    /// The tool's wire name.
    pub tool: String,
    /// Which schema.
    pub kind: SchemaKind,
    /// As generated from (`None`: not declared).
    pub expected: Option<Value>,
    /// As the server has it now (`None`: not declared).
    pub live: Option<Value>,
}

/// The difference between generated-from tools and live tools. Empty means
/// no drift. Objects compare without regard to key order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Drift {
    /// Tools the client knows that the server no longer has.
    pub missing: Vec<String>,
    /// Tools the server has that the client does not know.
    pub extra: Vec<String>,
    /// Tools whose input or output schema changed.
    pub changed: Vec<SchemaChange>,
}

impl Drift {
    /// Compares tool lists (each item a `Tool` object).
    pub fn compare(expected: &[Value], live: &[Value]) -> Drift {
        let name = |t: &Value| {
            t.get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let find = |list: &[Value], n: &str| list.iter().find(|t| name(t) == n).cloned();
        let mut drift = Drift::default();
        for tool in expected {
            let n = name(tool);
            let Some(now) = find(live, &n) else {
                drift.missing.push(n);
                continue;
            };
            for (kind, key) in [
                (SchemaKind::Input, "inputSchema"),
                (SchemaKind::Output, "outputSchema"),
            ] {
                let (a, b) = (tool.get(key), now.get(key));
                if a != b {
                    drift.changed.push(SchemaChange {
                        tool: n.clone(),
                        kind,
                        expected: a.cloned(),
                        live: b.cloned(),
                    });
                }
            }
        }
        for tool in live {
            let n = name(tool);
            if find(expected, &n).is_none() {
                drift.extra.push(n);
            }
        }
        drift
    }

    /// True when nothing differs.
    pub fn is_empty(&self) -> bool {
        self.missing.is_empty() && self.extra.is_empty() && self.changed.is_empty()
    }
}

impl fmt::Display for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("no drift: the server's tools match the manifest");
        }
        writeln!(
            f,
            "the server's tools differ from the manifest the client was generated from:"
        )?;
        for n in &self.missing {
            writeln!(f, "  missing on the server: {n}")?;
        }
        for n in &self.extra {
            writeln!(f, "  new on the server (not in the manifest): {n}")?;
        }
        for c in &self.changed {
            let state = match (&c.expected, &c.live) {
                (Some(_), None) => "removed",
                (None, Some(_)) => "added",
                _ => "changed",
            };
            writeln!(f, "  {}: {} {state}", c.tool, c.kind)?;
        }
        write!(
            f,
            "  help: run `mcpgen introspect` and regenerate the client"
        )
    }
}
