//! Properties of `codegen::tools` beyond its output text: warnings and
//! where they point, determinism, errors, and the bindings handed to the
//! server and client generators. The output of one schema rule per
//! manifest is a compiled golden (`goldens/manifests/`, `tests/goldens.rs`);
//! the tests here that need such a manifest read it from there.

use mcpgen::codegen::tools::{generate, ToolsOutput};
use mcpgen::manifest::Manifest;
use serde_json::{json, Value};

mod shared_data;
use shared_data::shared_data;

fn manifest(tools: Value) -> Manifest {
    let text = serde_json::to_string_pretty(&json!({ "tools": tools })).unwrap();
    Manifest::from_str(&text, "inline.json").unwrap()
}

fn run(tools: Value) -> ToolsOutput {
    generate(&manifest(tools)).unwrap()
}

/// The tools of the golden manifest `goldens/manifests/<name>.json`.
fn golden(name: &str) -> ToolsOutput {
    let path = format!(
        "{}/goldens/manifests/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    generate(&Manifest::load(&path).unwrap()).unwrap()
}

/// The generated code without typify's shared `error` module (the same for
/// every manifest).
fn code(out: &ToolsOutput) -> String {
    let mut file: syn::File = syn::parse2(out.tokens.clone()).unwrap();
    file.items
        .retain(|item| !matches!(item, syn::Item::Mod(m) if m.ident == "error"));
    prettyplease::unparse(&file)
}

#[test]
fn fixed_length_arrays_of_both_dialects_are_tuples_without_warnings() {
    let out = golden("tuples_of_both_dialects");
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    let code = code(&out);
    assert!(code.contains("pub pair: (String, i128),"), "{code}");
    assert!(code.contains("pub legacy: (f64, bool),"), "{code}");
}

#[test]
fn fallback_to_json_value_is_reported_at_the_property() {
    let out = golden("fallback_to_json_value");
    assert_eq!(out.warnings.len(), 1);
    let w = &out.warnings[0];
    let loc = w.location.clone().unwrap();
    assert_eq!(
        loc.pointer.as_deref(),
        Some("/tools/0/inputSchema/properties/n")
    );
    assert!(loc.line_col.is_some());
    assert!(
        w.message
            .contains("tool `odd`: property `n` is typed as `serde_json::Value`"),
        "{}",
        w.message
    );
}

/// typify converts an array whose `default` its items refuse, then
/// panics writing it. The tools are written together first; on such a
/// panic each is tried alone, so only that property falls back and the
/// tools beside it keep their types.
#[test]
fn a_schema_typify_panics_writing_falls_back_at_its_property() {
    let out = run(json!([
        { "name": "plain", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]} },
        { "name": "odd", "inputSchema": {"type": "object", "properties": {
            "ok": {"type": "integer"},
            "a": {"type": "array", "items": {"type": "string"}, "default": [1, 2]}
        }} },
    ]));
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    let w = &out.warnings[0];
    assert_eq!(
        w.location.clone().unwrap().pointer.as_deref(),
        Some("/tools/1/inputSchema/properties/a")
    );
    assert!(w.message.contains("typify panicked"), "{}", w.message);
    let code = code(&out);
    assert!(code.contains("pub struct PlainInput {"), "{code}");
    assert!(code.contains("pub q: String,"), "{code}");
    assert!(code.contains("pub ok: Option<i128>,"), "{code}");
    assert!(
        code.contains("pub a: Option<::serde_json::Value>,"),
        "{code}"
    );
}

#[test]
fn a_root_typify_cannot_convert_becomes_a_json_map() {
    let out = run(
        json!([{ "name": "odd", "inputSchema": {"type": "object", "description": "Odd.", "not": {"required": ["x"]}} }]),
    );
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    let w = &out.warnings[0];
    assert_eq!(
        w.location.clone().unwrap().pointer.as_deref(),
        Some("/tools/0/inputSchema")
    );
    assert!(
        w.message
            .starts_with("tool `odd`: `OddInput` is a JSON object map"),
        "{}",
        w.message
    );
    let code = code(&out);
    assert!(
        code.contains("pub struct OddInput(pub ::serde_json::Map<String, ::serde_json::Value>);"),
        "{code}"
    );
}

#[test]
fn bindings_name_every_tool_distinctly() {
    let out = run(json!([
        {"name": "get-me", "inputSchema": {"type": "object"}},
        {"name": "get_me", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}},
        {"name": "getMe", "inputSchema": {"type": "object"}},
        {"name": "match", "inputSchema": {"type": "object"}},
        {"name": "9lives.v2", "inputSchema": {"type": "object"}},
        {"name": "renamed", "inputSchema": {"type": "object"}, "x-mcpgen": {"rustName": "chosen"}, "icons": []}
    ]));
    let rows: Vec<(String, String, String, Option<String>)> = out
        .tools
        .iter()
        .map(|b| {
            (
                b.name.clone(),
                b.method.clone(),
                b.input.clone(),
                b.output.clone(),
            )
        })
        .collect();
    let expected = [
        ("get-me", "get_me_2", "GetMe2Input", None),
        ("get_me", "get_me", "GetMeInput", Some("GetMeOutput")),
        ("getMe", "get_me_3", "GetMe3Input", None),
        ("match", "match_tool", "MatchInput", None),
        ("9lives.v2", "_9lives_v2", "V9livesV2Input", None),
        ("renamed", "chosen", "ChosenInput", None),
    ];
    let expected: Vec<(String, String, String, Option<String>)> = expected
        .iter()
        .map(|(n, m, i, o)| {
            (
                n.to_string(),
                m.to_string(),
                i.to_string(),
                o.map(str::to_string),
            )
        })
        .collect();
    assert_eq!(rows, expected);
    // The binding carries the tool as served: unknown fields kept,
    // mcpgen's settings removed.
    assert_eq!(
        out.tools[5].tool,
        json!({"name": "renamed", "inputSchema": {"type": "object"}, "icons": []})
    );
}

#[test]
fn output_is_deterministic_and_independent_of_tool_order() {
    let tools = json!([
        {"name": "a-b", "inputSchema": {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}}},
        {"name": "a_b", "inputSchema": {"type": "object", "properties": {"e": {"enum": ["x y", "z"]}}}}
    ]);
    let first = code(&run(tools.clone()));
    assert_eq!(first, code(&run(tools.clone())));
    let mut reversed = tools.as_array().unwrap().clone();
    reversed.reverse();
    let out = run(Value::Array(reversed));
    let names: Vec<(&str, &str)> = out
        .tools
        .iter()
        .map(|b| (b.name.as_str(), b.method.as_str()))
        .collect();
    assert_eq!(names, [("a_b", "a_b"), ("a-b", "a_b_2")]);
}

#[test]
fn invalid_manifests_are_errors_not_panics() {
    let dup = generate(&manifest(json!([
        {"name": "x", "inputSchema": {"type": "object"}},
        {"name": "x", "inputSchema": {"type": "object"}}
    ])))
    .unwrap_err();
    assert!(
        dup.message.contains("duplicate tool name `x`"),
        "{}",
        dup.message
    );
    assert_eq!(
        dup.location.unwrap().pointer.as_deref(),
        Some("/tools/1/name")
    );
    // Tools that would both define `AInputX` are rebased (see
    // `types_two_tools_would_share_are_rebased`), unless both names are
    // the user's.
    let clash = generate(&manifest(json!([
        {"name": "a", "x-mcpgen": {"rustName": "a"}, "inputSchema": {"type": "object", "properties": {"x": {"type": "object", "properties": {"p": {"type": "string"}}}}}},
        {"name": "a_input", "x-mcpgen": {"rustName": "a_input"}, "inputSchema": {"type": "object", "$defs": {"x": {"type": "integer"}}, "properties": {"y": {"$ref": "#/$defs/x"}}}}
    ])))
    .unwrap_err();
    assert_eq!(
        clash.message,
        "tools `a` and `a_input` would both define a Rust type named `AInputX`"
    );
    assert_eq!(clash.location.unwrap().pointer.as_deref(), Some("/tools/1"));
    assert!(clash.hint.unwrap().contains("rustName"));
    let missing = generate(&manifest(json!([{"name": "x"}]))).unwrap_err();
    assert!(
        missing.message.contains("no object `inputSchema`"),
        "{}",
        missing.message
    );
    assert!(missing.hint.unwrap().contains("mcpgen manifest check"));
}

/// Type names are a tool's base and the names of its definitions and
/// nested properties, so `foo`'s definition `barBaz` and `foo_bar`'s `baz`
/// would both be `FooBarBaz`: the tool whose wire name sorts later gets
/// its types under `FooBar2`, whatever the manifest order, and its
/// binding names them. An `x-mcpgen.rustName` keeps its name. (The golden
/// `rebased_types` is this manifest, compiled.)
#[test]
fn types_two_tools_would_share_are_rebased() {
    let out = golden("rebased_types");
    let code = code(&out);
    for wanted in [
        "pub struct FooBarBaz {",
        "pub left: String,",
        "pub struct FooBar2Baz {",
        "pub right: i128,",
        "pub struct FooBar2Input {",
        "pub struct FooBar2Output {",
        "pub struct FooInput {",
    ] {
        assert!(code.contains(wanted), "{wanted}\n{code}");
    }
    assert!(!code.contains("pub struct FooBarInput"), "{code}");
    let types: Vec<(&str, &str, Option<&str>)> = out
        .tools
        .iter()
        .map(|b| (b.name.as_str(), b.input.as_str(), b.output.as_deref()))
        .collect();
    assert_eq!(
        types,
        [
            ("foo", "FooInput", None),
            ("foo_bar", "FooBar2Input", Some("FooBar2Output"))
        ]
    );
    let path = format!(
        "{}/goldens/manifests/rebased_types.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut declared: Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let tools = declared["tools"].as_array_mut().unwrap();
    tools.reverse();
    let out = run(Value::Array(tools.clone()));
    let inputs: Vec<&str> = out.tools.iter().map(|b| b.input.as_str()).collect();
    assert_eq!(inputs, ["FooBar2Input", "FooInput"]);
    // `foo_bar`'s own name wins: `foo` is rebased instead.
    tools[0]["x-mcpgen"] = json!({"rustName": "foo_bar"});
    let out = run(Value::Array(tools.clone()));
    let inputs: Vec<&str> = out.tools.iter().map(|b| b.input.as_str()).collect();
    assert_eq!(inputs, ["FooBarInput", "Foo2Input"]);
    let code = self::code(&out);
    assert!(code.contains("pub struct Foo2BarBaz {"), "{code}");
}

/// The 2020-12 vocabulary of the conformance suite's `json_schema_2020_12_tool`:
/// `$defs` with `$anchor`, `allOf`/`anyOf` and `if`/`then`/`else` around
/// plain properties. The conditionals only narrow validity (the server's
/// validator checks them), so the arguments are typed without a warning.
#[test]
fn conditionals_and_composition_of_2020_12_keep_typed_arguments() {
    let out = run(json!([{ "name": "contact", "inputSchema": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"city": {"type": "string"}}}},
        "properties": {
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    }}]));
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    let code = code(&out);
    assert!(!code.contains("serde_json::Map"), "{code}");
    assert!(code.contains("pub struct ContactAddress"), "{code}");
    // The `anyOf` only says which of them is present: both are optional
    // fields of one struct, and the validator checks the rule.
    assert!(code.contains("pub phone: Option<String>,"), "{code}");
    assert!(code.contains("pub email: Option<String>,"), "{code}");
    assert!(code.contains("contact_method: Option<"), "{code}");
    assert!(!code.contains("enum ContactInput {"), "{code}");
}

/// Properties only a conditional branch declares are no fields: a warning
/// says so, at the branch. Properties named like the keywords stay fields.
#[test]
fn properties_only_a_branch_declares_are_reported() {
    let out = run(json!([{ "name": "cond", "inputSchema": {
        "type": "object",
        "properties": {"if": {"type": "string"}, "then": {"type": "integer"}},
        "if": {"required": ["if"]},
        "then": {"properties": {"extra": {"type": "string"}}},
        "else": {"properties": {"then": {"minimum": 1}}}
    }}]));
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    let w = &out.warnings[0];
    assert_eq!(
        w.location.clone().unwrap().pointer.as_deref(),
        Some("/tools/0/inputSchema/then")
    );
    assert!(w.message.contains("(extra)"), "{}", w.message);
    let code = code(&out);
    assert!(code.contains("pub if_: Option<String>"), "{code}");
    assert!(code.contains("pub then: Option<i128>"), "{code}");
}

/// A property that fails on its own is reported under its declared name and
/// pointer, not the marker typify saw.
#[test]
fn a_renamed_property_is_reported_as_declared() {
    let out = run(json!([{ "name": "odd", "inputSchema": {
        "type": "object",
        "properties": {"Self": {"not": {"type": "string"}}, "n": {"type": "integer"}}
    }}]));
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    let w = &out.warnings[0];
    assert_eq!(
        w.location.clone().unwrap().pointer.as_deref(),
        Some("/tools/0/inputSchema/properties/Self")
    );
    assert!(
        w.message.contains("property `Self` is typed"),
        "{}",
        w.message
    );
    assert!(!w.message.contains("zmcpgen"), "{}", w.message);
}

/// The doc comment of every tool type (outside typify's `error` module)
/// with its name, in file order.
fn type_docs(out: &ToolsOutput) -> Vec<(String, String)> {
    let file: syn::File = syn::parse2(out.tokens.clone()).unwrap();
    let doc = |attrs: &[syn::Attribute]| -> String {
        let lines: Vec<String> = attrs
            .iter()
            .filter_map(|a| match &a.meta {
                syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        lines.join("\n")
    };
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(s) => Some((s.ident.to_string(), doc(&s.attrs))),
            syn::Item::Enum(e) => Some((e.ident.to_string(), doc(&e.attrs))),
            _ => None,
        })
        .collect()
}

/// Every type says, after its description, which tools' schemas it
/// stands for and where (a JSON pointer in the tool's definition); a type
/// merged from several places names each; no description can forge a
/// place, and nothing of the bookkeeping is left in the code.
#[test]
fn every_type_names_the_tools_and_schema_pointers_it_comes_from() {
    let location = json!({
        "type": "object",
        "description": "Where.",
        "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
        "required": ["lat", "lon"]
    });
    let out = run(json!([
        {"name": "get_forecast", "inputSchema": {"type": "object", "properties": {
            "location": location,
            "units": {"enum": ["metric", "imperial"], "description": "Units \u{1}0\u{1} of measure."}
        }}},
        {"name": "get_alerts", "inputSchema": {"type": "object", "properties": {
            "area": {"type": "object", "properties": {"location": location}}
        }}}
    ]));
    let docs: std::collections::BTreeMap<String, String> = type_docs(&out).into_iter().collect();
    assert_eq!(docs["GetForecastInput"], " Arguments of the `get_forecast` tool.\n\n Schema: `/inputSchema` of the `get_forecast` tool.");
    assert_eq!(
        docs["Location"],
        " Where.\n\n Schemas: `/inputSchema/properties/area/properties/location` of the `get_alerts` tool and \
         `/inputSchema/properties/location` of the `get_forecast` tool.",
        "{docs:#?}"
    );
    // A description without a type of its own says where the type is used.
    assert_eq!(
        docs["GetAlertsInputArea"],
        " The type of `area` in [`GetAlertsInput`].\n\n Schema: `/inputSchema/properties/area` of the `get_alerts` tool."
    );
    assert_eq!(docs["GetForecastInputUnits"], " Units 0 of measure.\n\n Schema: `/inputSchema/properties/units` of the `get_forecast` tool.");
    let text = out.tokens.to_string();
    assert!(
        !text.contains('\u{1}') && !text.contains("\\u{1}"),
        "a marker is left: {text}"
    );
}

/// The same holds for every real server's manifest: each of its types
/// names a tool and a pointer, and no marker is left.
#[test]
fn every_type_of_every_real_manifest_names_where_it_comes_from() {
    let Some(dir) = shared_data(
        "manifests/real",
        "tools_codegen::every_type_of_every_real_manifest_names_where_it_comes_from",
    ) else {
        return;
    };
    let mut types = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let out = generate(&Manifest::load(&path).unwrap()).unwrap();
        for (name, doc) in type_docs(&out) {
            let last = doc.lines().last().unwrap_or_default();
            assert!(
                last.starts_with(" Schema: `/") || last.starts_with(" Schemas: `/"),
                "{}: `{name}` does not say where it comes from: {doc:?}",
                path.display()
            );
            types += 1;
        }
        let text = out.tokens.to_string();
        assert!(
            !text.contains('\u{1}') && !text.contains("\\u{1}"),
            "{}: a marker is left",
            path.display()
        );
    }
    assert!(types > 400, "only {types} types in the real manifests");
}
