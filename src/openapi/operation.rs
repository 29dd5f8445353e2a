//! One operation made one tool: its name, title, description and
//! annotations, its `inputSchema` (the parameters and the body as
//! properties), its `outputSchema` (the success response, wrapped under
//! `result` when its root is not certainly an object) and the
//! `x-mcpgen.http` binding that says how a call becomes the request.

use mcpgen_runtime::jsonrpc::json_len;
use mcpgen_runtime::upstream::{Body, HttpBinding, Output};
use serde_json::{json, Map, Value};

use super::body::{request_body, swagger_body};
use super::document::{child, Diag, Version};
use super::names::Arguments;
use super::output::success;
use super::params::{arguments, clash_label, gather};
use super::resolve::Resolver;
use super::schema::{Mode, Schemas};
use super::security::requirements;
use super::servers::servers;

/// The JSON Schema dialect of every imported tool schema.
pub(crate) const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The member of `structuredContent` that holds an answer whose schema is
/// not certainly an object.
pub(crate) const WRAP: &str = "result";

/// An operation of the document.
#[derive(Debug)]
pub(crate) struct Operation<'a> {
    /// Its path template.
    pub path: &'a str,
    /// Its method, upper case.
    pub method: String,
    /// The operation object and its pointer.
    pub value: &'a Value,
    pub at: String,
    /// The path item and its pointer.
    pub path_item: &'a Value,
    pub path_at: String,
    /// `operationId`, or `METHOD /path`.
    pub id: String,
    /// The tool's name.
    pub name: String,
}

/// What every operation shares.
pub(crate) struct Context<'r, 'a> {
    pub root: &'a Value,
    pub version: Version,
    pub res: &'r Resolver<'a>,
}

fn strings(v: Option<&Value>) -> Option<Vec<String>> {
    v.and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    })
}

/// The tool of one operation, and how many references its schemas left
/// unconstrained for want of budget ([`super::schema::MAX_DEFS`]).
pub(crate) fn tool(op: &Operation, cx: &Context, diag: &mut Diag) -> (Value, usize, bool) {
    let mut input = Schemas::new(cx.res, cx.version, Mode::Input);
    let lists = [
        (
            op.path_item.get("parameters").unwrap_or(&Value::Null),
            child(&op.path_at, "parameters"),
        ),
        (
            op.value.get("parameters").unwrap_or(&Value::Null),
            child(&op.at, "parameters"),
        ),
    ];
    let declared = gather(&lists, cx.res, diag);
    let mut names = Arguments::default();
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut parameters = Vec::new();
    for mut a in arguments(&declared, cx.version, &mut input, diag) {
        let property = names.claim(&a.binding.name, clash_label(a.binding.location));
        if a.binding.required {
            required.push(json!(property));
        }
        properties.insert(property.clone(), a.schema);
        a.binding.argument = property;
        parameters.push(a.binding);
    }
    let body = if cx.version == Version::Swagger2 {
        let consumes = strings(op.value.get("consumes"))
            .or_else(|| strings(cx.root.get("consumes")))
            .unwrap_or_default();
        swagger_body(&declared, &consumes, &mut input, diag)
    } else {
        request_body(op.value, &op.at, cx.res, &mut input, diag)
    };
    let body = body.map(|mut b| {
        let property = names.claim("body", "body");
        if b.required {
            required.push(json!(property));
            // A required form or multipart body is never empty: with no
            // member its wire form would be nothing at all.
            let essence = b.media_type.split(';').next().unwrap_or_default().trim();
            let members = matches!(
                essence,
                "application/x-www-form-urlencoded" | "multipart/form-data"
            );
            if members {
                never_empty(&mut b.schema, true);
            }
        }
        properties.insert(property.clone(), b.schema);
        Body {
            argument: property,
            media_type: b.media_type,
            required: b.required,
            encoding: b.encoding,
        }
    });
    let mut cut = 0;
    let (defs, input_cut) = input.finish(diag);
    cut += input_cut;
    let mut input_schema = Map::new();
    input_schema.insert("$schema".into(), json!(DIALECT));
    input_schema.insert("type".into(), json!("object"));
    input_schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        input_schema.insert("required".into(), Value::Array(required));
    }
    if !defs.is_empty() {
        input_schema.insert("$defs".into(), Value::Object(defs));
    }

    let produces = strings(op.value.get("produces"))
        .or_else(|| strings(cx.root.get("produces")))
        .unwrap_or_default();
    let mut output_dropped = false;
    let (output_schema, output) =
        match success(op.value, &op.at, cx.version, &produces, cx.res, diag) {
            None => (None, None),
            Some((schema, at)) => {
                match output_schema(&schema, &at, cx, diag) {
                    Some((s, wrapped, c)) if json_len(&s) <= MAX_OUTPUT_SCHEMA_BYTES => {
                        cut += c;
                        let wrap = wrapped.then(|| WRAP.to_owned());
                        (Some(s), Some(Output { wrap }))
                    }
                    _ => {
                        // Too large to type: the answer comes as content.
                        output_dropped = true;
                        (None, None)
                    }
                }
            }
        };

    let binding = HttpBinding {
        operation_id: op.id.clone(),
        method: op.method.clone(),
        path: op.path.to_owned(),
        servers: servers(cx.root, op.path_item, op.value, cx.version),
        parameters,
        body,
        output,
        security: requirements(cx.root, op.value, &op.at, cx.version, cx.res, diag),
    };

    let mut tool = Map::new();
    tool.insert("name".into(), json!(op.name));
    let summary = op
        .value
        .get("summary")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let description = op
        .value
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty());
    if let Some(s) = summary {
        tool.insert("title".into(), json!(s));
    }
    let text = match (summary, description) {
        (Some(s), Some(d)) if d.starts_with(s) => Some(d.to_owned()),
        (Some(s), Some(d)) => Some(format!("{s}\n\n{d}")),
        (Some(s), None) => Some(s.to_owned()),
        (None, Some(d)) => Some(d.to_owned()),
        (None, None) => None,
    };
    if let Some(t) = text {
        tool.insert("description".into(), json!(t));
    }
    tool.insert("inputSchema".into(), Value::Object(input_schema));
    if let Some(s) = output_schema {
        tool.insert("outputSchema".into(), s);
    }
    tool.insert("annotations".into(), annotations(&op.method));
    let binding = serde_json::to_value(&binding).unwrap_or(Value::Null);
    tool.insert("x-mcpgen".into(), json!({ "http": binding }));
    (Value::Object(tool), cut, output_dropped)
}

/// Makes a required value of a form or multipart body something on the
/// wire. An object without members and an array without items write no
/// pair at all (`a[b]` with nothing in it is never sent), so the API would
/// find the required value missing. A required object that requires nothing
/// of its own gets `minProperties: 1`, and then each of its members must
/// write something too (any one of them may be the one given); a required
/// array gets `minItems: 1`, and each item must write something. The
/// alternatives of `anyOf`/`oneOf` and the parts of `allOf` inherit the
/// need. Optional values are left as they are: given empty, they are
/// absent, which is what an optional value may be.
fn never_empty(schema: &mut Value, required: bool) {
    let Value::Object(m) = schema else { return };
    if !required {
        // Only the members an optional object requires could still be
        // needed once it is given; nothing here is required on its own.
        return;
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(parts)) = m.get_mut(key) {
            for part in parts {
                never_empty(part, true);
            }
        }
    }
    let is_array = m.get("type") == Some(&json!("array")) || m.contains_key("items");
    if is_array {
        if m.get("minItems").and_then(Value::as_u64).unwrap_or(0) == 0 {
            m.insert("minItems".into(), json!(1));
        }
        if let Some(items) = m.get_mut("items") {
            never_empty(items, true);
        }
        return;
    }
    let is_object = m.get("type") == Some(&json!("object")) || m.contains_key("properties");
    if !is_object {
        return;
    }
    let needed: Option<Vec<String>> = m.get("required").and_then(Value::as_array).map(|r| {
        r.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    });
    let needed = match needed {
        Some(names) if !names.is_empty() => Some(names),
        _ => {
            if m.get("minProperties").and_then(Value::as_u64).unwrap_or(0) == 0 {
                m.insert("minProperties".into(), json!(1));
            }
            // Any member may be the one given: each must write something.
            None
        }
    };
    if let Some(Value::Object(props)) = m.get_mut("properties") {
        for (name, child) in props.iter_mut() {
            let required = needed.as_ref().is_none_or(|n| n.contains(name));
            never_empty(child, required);
        }
    }
}

/// The largest `outputSchema` (compact JSON text) a tool gets. A larger
/// one (Stripe's responses reach every object of the API through their
/// expandable fields: 207 KB for one tool, 44 MB for 444) would make the
/// manifest and the generated types huge for little use; such a tool
/// answers with its JSON as a text block instead.
pub(crate) const MAX_OUTPUT_SCHEMA_BYTES: usize = 16 * 1024;

/// The hints a method gives.
fn annotations(method: &str) -> Value {
    match method {
        "GET" | "HEAD" => json!({"readOnlyHint": true}),
        "DELETE" => json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true}),
        "PUT" => json!({"readOnlyHint": false, "idempotentHint": true}),
        _ => json!({"readOnlyHint": false}),
    }
}

/// The `outputSchema` of a success schema, whether it is wrapped, and how
/// many references were cut; none when its definitions alone exceed
/// [`MAX_OUTPUT_SCHEMA_BYTES`].
fn output_schema(
    schema: &Value,
    at: &str,
    cx: &Context,
    diag: &mut Diag,
) -> Option<(Value, bool, usize)> {
    let mut out = Schemas::new(cx.res, cx.version, Mode::Output);
    let root = out.convert(schema, at, diag);
    let (defs, cut) = out.finish_within(MAX_OUTPUT_SCHEMA_BYTES, diag)?;
    let is_object = |v: &Value| v.get("type") == Some(&json!("object"));
    let referred = root
        .as_object()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.get("$ref"))
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .map(|n| n.replace("~1", "/").replace("~0", "~"))
        .and_then(|n| defs.get(&n).cloned());
    let (mut body, wrapped) = if is_object(&root) {
        (root, false)
    } else if let Some(target) = referred.filter(is_object) {
        (target, false)
    } else {
        (
            json!({"type": "object", "properties": { WRAP: root }, "required": [WRAP]}),
            true,
        )
    };
    let mut top = Map::new();
    top.insert("$schema".into(), json!(DIALECT));
    if let Value::Object(b) = &mut body {
        for (k, v) in std::mem::take(b) {
            top.insert(k, v);
        }
    }
    if !defs.is_empty() {
        top.insert("$defs".into(), Value::Object(defs));
    }
    Some((Value::Object(top), wrapped, cut))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a required form body must hold to be something on the wire:
    /// Stripe's refresh (`features`, a required array), its portal
    /// configuration (required objects requiring nothing, whose members
    /// may be empty objects) and an optional member, left alone.
    #[test]
    fn a_required_form_value_is_never_empty_on_the_wire() {
        let mut body = json!({
            "type": "object",
            "required": ["features", "profile"],
            "properties": {
                "features": {"type": "array", "items": {"type": "string"}},
                "profile": {"type": "object", "properties": {
                    "invoice": {"type": "object", "properties": {"enabled": {"type": "boolean"}}},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "name": {"type": "string"}
                }},
                "expand": {"type": "array", "items": {"type": "string"}},
                "choice": {"anyOf": [{"type": "object", "properties": {}}, {"enum": [""]}]}
            }
        });
        never_empty(&mut body, true);
        let p = &body["properties"];
        assert_eq!(p["features"]["minItems"], 1);
        assert_eq!(p["profile"]["minProperties"], 1);
        assert_eq!(p["profile"]["properties"]["invoice"]["minProperties"], 1);
        assert_eq!(p["profile"]["properties"]["tags"]["minItems"], 1);
        assert!(p["profile"]["properties"]["name"]
            .get("minLength")
            .is_none());
        assert!(
            p["expand"].get("minItems").is_none(),
            "optional: left alone"
        );
        assert!(p["choice"]["anyOf"][0].get("minProperties").is_none());
        assert!(body.get("minProperties").is_none(), "it requires members");
    }
}
