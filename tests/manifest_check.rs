//! `manifest::check` on deliberately broken manifests: every problem is
//! reported at once, each with file, JSON pointer and line:column.

mod shared_data;

use mcpgen::manifest::{self, Manifest};
use mcpgen::Error;

const BROKEN_JSON: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/broken_manifest.json"
);
const BROKEN_YAML: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/broken_manifest.yaml"
);

/// (pointer, line, column, message) of each problem.
fn summary(errors: &[Error]) -> Vec<(String, usize, usize, String)> {
    errors
        .iter()
        .map(|e| {
            let loc = e.location.clone().expect("every problem has a location");
            let (line, col) = loc.line_col.expect("every problem has a line:column");
            (
                loc.pointer.expect("every problem has a pointer"),
                line,
                col,
                e.message.clone(),
            )
        })
        .collect()
}

fn expect(errors: &[Error], file: &str, want: &[(&str, usize, usize, &str)]) {
    for e in errors {
        let loc = e.location.as_ref().unwrap();
        assert_eq!(loc.file.as_deref(), Some(std::path::Path::new(file)), "{e}");
        assert!(e.hint.is_some(), "every problem says what to do: {e}");
    }
    let got = summary(errors);
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!((g.0.as_str(), g.1, g.2), (w.0, w.1, w.2), "{g:?}");
        assert!(g.3.contains(w.3), "message {:?} lacks {:?}", g.3, w.3);
    }
}

#[test]
fn every_problem_of_a_broken_json_manifest_is_reported_with_its_place() {
    let errors = mcpgen::check::check_file_in(&shared_data::store(), BROKEN_JSON, "2025-11-25");
    expect(
        &errors,
        BROKEN_JSON,
        &[
            (
                "/server",
                2,
                13,
                "invalid `server` object: missing field `version`",
            ),
            (
                "/tools/1/name",
                5,
                14,
                "duplicate tool name `ok`, first declared at /tools/0/name (line 4:14)",
            ),
            (
                "/tools/2/name",
                6,
                14,
                "tool name `bad name!` contains characters outside A-Za-z0-9_.- (' ', '!')",
            ),
            (
                "/tools/2/inputSchema/type",
                6,
                51,
                "the root of `inputSchema` has `type` \"array\"; it must be `\"type\": \"object\"`",
            ),
            ("/tools/3/name", 7, 14, "tool name `` is empty"),
            (
                "/tools/3/inputSchema/properties/a/type",
                7,
                81,
                "`inputSchema` is not a valid 2020-12 schema: \"strin\"",
            ),
            (
                "/tools/4/inputSchema/properties/a/$ref",
                8,
                85,
                "unresolvable `$ref` `#/$defs/missing`",
            ),
            (
                "/tools/4/inputSchema/properties/b/$ref",
                8,
                119,
                "unresolvable `$ref` `https://example.com/s.json`",
            ),
            ("/tools/5", 9, 5, "tool has no `inputSchema`"),
            (
                "/tools/6/x-mcpgen/rustName",
                10,
                86,
                "`rustName` `Not-Snake` is not a snake_case Rust identifier",
            ),
            (
                "/tools/7/inputSchema/properties/n/minimum",
                11,
                159,
                "not a valid draft-07 schema: \"zero\" is not of type \"number\"",
            ),
            (
                "/tools/8/outputSchema/type",
                12,
                81,
                "the root of `outputSchema` has `type` \"string\"",
            ),
            ("/tools/9", 13, 5, "a tool must be an object"),
            (
                "/tools/10/inputSchema/$schema",
                14,
                52,
                "unknown JSON Schema dialect `https://example.com/dialect`",
            ),
            (
                "/tools/11/x-mcpgen/rateLimit",
                15,
                85,
                "`rateLimit` needs `calls` and `perSeconds` of at least 1",
            ),
            ("/tools/12/x-mcpgen", 16, 69, "unknown field `colour`"),
            (
                "/tools/14/x-mcpgen/rustName",
                18,
                80,
                "`rustName` `same` is already used by the tool at /tools/13",
            ),
            (
                "/tools/15/name",
                19,
                14,
                "is 137 characters long (at most 128)",
            ),
        ],
    );
}

#[test]
fn every_problem_of_a_broken_yaml_manifest_is_reported_with_its_place() {
    let errors = mcpgen::check::check_file_in(&shared_data::store(), BROKEN_YAML, "2025-11-25");
    expect(
        &errors,
        BROKEN_YAML,
        &[
            (
                "/tools/1/name",
                9,
                11,
                "duplicate tool name `ok`, first declared at /tools/0/name (line 3:11)",
            ),
            (
                "/tools/1/inputSchema",
                11,
                7,
                "the root of `inputSchema` has no `type`",
            ),
            (
                "/tools/2/name",
                12,
                11,
                "tool name `tools/call` contains characters outside A-Za-z0-9_.- ('/')",
            ),
            (
                "/tools/2/inputSchema/properties/n/type",
                17,
                17,
                "not a valid 2020-12 schema",
            ),
            (
                "/tools/2/inputSchema/properties/r/$ref",
                19,
                17,
                "unresolvable `$ref` `#/definitions/gone`",
            ),
        ],
    );
}

#[test]
fn the_dialect_follows_the_protocol_revision_unless_the_schema_names_one() {
    let text = r#"{"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"xs": {"type": "array", "items": [{"type": "string"}]}}}}]}"#;
    // Tuple-form `items` is draft-07 and not 2020-12.
    assert_eq!(
        mcpgen::check::check_text_in(&shared_data::store(), text, "m.json", "2025-06-18"),
        vec![]
    );
    let errors = mcpgen::check::check_text_in(&shared_data::store(), text, "m.json", "2025-11-25");
    assert_eq!(errors.len(), 1, "{errors:?}");
    let loc = errors[0].location.clone().unwrap();
    assert_eq!(
        loc.pointer.as_deref(),
        Some("/tools/0/inputSchema/properties/xs/items")
    );
    assert_eq!(loc.line_col, Some((1, 108)));
    assert!(
        errors[0].message.contains("2020-12"),
        "{}",
        errors[0].message
    );
    // An explicit `$schema` wins over the revision.
    let explicit = text.replace(
        r#""type": "object","#,
        r#""$schema": "http://json-schema.org/draft-07/schema#", "type": "object","#,
    );
    assert_eq!(
        mcpgen::check::check_text_in(&shared_data::store(), &explicit, "m.json", "2025-11-25"),
        vec![]
    );
}

#[test]
fn refs_to_defs_anchors_and_the_root_resolve() {
    let text = r##"{"tools": [{"name": "t", "inputSchema": {"type": "object",
        "$defs": {"a": {"$anchor": "here", "type": "string"}, "b c": {"type": "integer"}},
        "properties": {"p": {"$ref": "#/$defs/a"}, "q": {"$ref": "#here"}, "r": {"$ref": "#"},
                       "s": {"$ref": "#/$defs/b%20c"}, "t": {"$ref": "#/properties/p"}}}}]}"##;
    assert_eq!(
        mcpgen::check::check_text_in(&shared_data::store(), text, "m.json", "2025-11-25"),
        vec![]
    );
}

#[test]
fn repeated_members_and_a_byte_order_mark() {
    let text = "\u{feff}{\"tools\": [\n  {\"name\": \"a\", \"inputSchema\": {\"type\": \"object\"}, \"name\": \"b\"}\n]}";
    let errors = mcpgen::check::check_text_in(&shared_data::store(), text, "m.json", "2025-11-25");
    assert_eq!(
        summary(&errors),
        [(
            "/tools/0/name".to_owned(),
            2,
            52,
            "member `name` appears twice in one object; only the last one counts".to_owned()
        )]
    );
}

#[test]
fn the_shared_manifests_are_clean() {
    let Some(dir) = shared_data::shared_data(
        "manifests",
        "manifest_check::the_shared_manifests_are_clean",
    ) else {
        return;
    };
    for name in ["github", "stitch"] {
        let path = dir.join(format!("{name}.json"));
        for rev in ["2025-06-18", "2025-11-25"] {
            let errors = mcpgen::check::check_file_in(&shared_data::store(), &path, rev);
            assert!(errors.is_empty(), "{name} {rev}: {errors:#?}");
        }
    }
}

#[test]
fn syntax_errors_have_line_and_column() {
    let errors = mcpgen::check::check_text_in(
        &shared_data::store(),
        "{\n  \"tools\": [\n    {\"name\": }\n  ]\n}",
        "bad.json",
        "2025-11-25",
    );
    assert_eq!(errors.len(), 1);
    let loc = errors[0].location.clone().unwrap();
    assert_eq!(loc.line_col, Some((3, 14)));
    assert!(
        errors[0].message.starts_with("invalid JSON"),
        "{}",
        errors[0].message
    );

    let errors = mcpgen::check::check_text_in(
        &shared_data::store(),
        "tools:\n  - name: a\n   bad: [\n",
        "bad.yaml",
        "2025-11-25",
    );
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].message.starts_with("invalid YAML"),
        "{}",
        errors[0].message
    );
    assert!(errors[0].location.clone().unwrap().line_col.is_some());

    let err = Manifest::from_str("{\"tool\": []}", "m.json").unwrap_err();
    assert_eq!(err.message, "a manifest needs a `tools` array");
    assert_eq!(err.location.unwrap().line_col, Some((1, 1)));
}

#[test]
fn unknown_fields_are_kept_and_settings_are_not_served() {
    let text = r#"{"server": {"name": "s", "version": "1.0.0", "instructions": "Be nice.", "websiteUrl": "https://example.com"},
      "tools": [{"name": "t", "icons": [{"src": "i.png"}], "inputSchema": {"type": "object", "x-extra": 1},
                 "x-mcpgen": {"rustName": "tee", "rateLimit": {"calls": 3}}, "_meta": {"k": "v"}}]}"#;
    let m = Manifest::from_str(text, "m.json").unwrap();
    let server = m.server.clone().unwrap();
    assert_eq!(
        (server.name.as_str(), server.version.as_str()),
        ("s", "1.0.0")
    );
    assert_eq!(server.instructions.as_deref(), Some("Be nice."));
    assert_eq!(
        server.extra.get("websiteUrl"),
        Some(&serde_json::json!("https://example.com"))
    );
    let t = &m.tools[0];
    assert_eq!(t.settings.rust_name.as_deref(), Some("tee"));
    assert_eq!(
        t.settings.rate_limit,
        Some(manifest::RateLimit {
            calls: 3,
            per_seconds: 1,
            scope: manifest::LimitScope::Global
        })
    );
    assert_eq!(
        t.declared,
        serde_json::json!({"name": "t", "icons": [{"src": "i.png"}], "inputSchema": {"type": "object", "x-extra": 1}, "_meta": {"k": "v"}})
    );
    let keys: Vec<&String> = t.declared.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["name", "icons", "inputSchema", "_meta"],
        "declaration order is kept"
    );
}

#[test]
fn the_manifest_format_schema_accepts_real_manifests_and_rejects_broken_ones() {
    let schema = manifest::manifest_schema();
    assert_eq!(schema["title"], "mcpgen tool manifest");
    assert!(schema["properties"]["tools"].is_object());
    assert!(schema["definitions"]["ToolSettings"]["properties"]["rustName"].is_object());
    let validator = jsonschema::validator_for(&schema).unwrap();
    // The real manifests are valid too, when ../shared has them.
    let test = "manifest_check::the_manifest_format_schema_accepts_real_manifests_and_rejects_broken_ones (real manifests)";
    if let Some(dir) = shared_data::shared_data("manifests", test) {
        for name in ["github", "stitch"] {
            let doc: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap(),
            )
            .unwrap();
            assert!(validator.is_valid(&doc), "{name}");
        }
    }
    let broken: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(BROKEN_JSON).unwrap()).unwrap();
    assert!(!validator.is_valid(&broken));
}

/// The first code block of `lang` after `heading` in the Markdown file `path`.
fn doc_block(path: &str, heading: &str, lang: &str) -> String {
    let text = std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let section = text
        .split(heading)
        .nth(1)
        .unwrap_or_else(|| panic!("{path} has a section {heading:?}"));
    let block = section
        .split(&format!("```{lang}\n"))
        .nth(1)
        .unwrap_or_else(|| panic!("{path}: no {lang} block after {heading:?}"));
    block.split("```").next().unwrap().to_owned()
}

#[test]
fn the_guides_manifest_example_is_valid_and_generates() {
    let yaml = doc_block("docs/tools.md", "## The manifest", "yaml");
    assert_eq!(
        mcpgen::check::check_text_in(&shared_data::store(), &yaml, "tools.md.yaml", "2025-11-25"),
        vec![]
    );
    let m = Manifest::from_str(&yaml, "tools.md.yaml").unwrap();
    assert_eq!(m.server.as_ref().unwrap().version, "0.1.0");
    assert_eq!(
        m.tools[0].settings.rate_limit,
        Some(manifest::RateLimit {
            calls: 10,
            per_seconds: 1,
            scope: manifest::LimitScope::Global
        })
    );
    let out = mcpgen::codegen::tools::generate(&m).unwrap();
    assert_eq!(
        (out.tools[0].method.as_str(), out.tools[0].input.as_str()),
        ("forecast", "ForecastInput")
    );
    assert!(out.warnings.is_empty());
}

#[test]
fn the_readmes_manifests_are_valid_and_generate_the_names_it_uses() {
    // The quick start's tools.json: the README's code calls `greet`,
    // `GreetInput` and `GreetOutput`.
    let json = doc_block("README.md", "## Quick start", "json");
    assert_eq!(
        mcpgen::check::check_text_in(&shared_data::store(), &json, "tools.json", "2025-11-25"),
        vec![]
    );
    let out = mcpgen::codegen::tools::generate(&Manifest::from_str(&json, "tools.json").unwrap())
        .unwrap();
    assert_eq!(
        (out.tools[0].method.as_str(), out.tools[0].input.as_str()),
        ("greet", "GreetInput")
    );
    assert!(out.warnings.is_empty());
    // The Tools section's example.
    let yaml = doc_block("README.md", "## Tools", "yaml");
    assert_eq!(
        mcpgen::check::check_text_in(&shared_data::store(), &yaml, "README.yaml", "2025-11-25"),
        vec![]
    );
    let m = Manifest::from_str(&yaml, "README.yaml").unwrap();
    assert_eq!(
        m.tools[0].settings.rate_limit,
        Some(manifest::RateLimit {
            calls: 10,
            per_seconds: 1,
            scope: manifest::LimitScope::Global
        })
    );
    let out = mcpgen::codegen::tools::generate(&m).unwrap();
    assert_eq!(out.tools[0].input.as_str(), "GetForecastInput");
}

#[test]
fn a_tools_task_support_is_one_of_the_three_values() {
    let tool = |execution: &str| {
        format!(
            r#"{{"tools": [{{"name": "t", "inputSchema": {{"type": "object"}}, "execution": {execution}}}]}}"#
        )
    };
    for good in [
        r#"{"taskSupport": "required"}"#,
        r#"{"taskSupport": "optional"}"#,
        r#"{"taskSupport": "forbidden"}"#,
        "{}",
    ] {
        assert_eq!(
            mcpgen::check::check_text_in(
                &shared_data::store(),
                &tool(good),
                "m.json",
                "2025-11-25"
            ),
            vec![],
            "{good}"
        );
    }
    let errors = mcpgen::check::check_text_in(
        &shared_data::store(),
        &tool(r#"{"taskSupport": "sometimes"}"#),
        "m.json",
        "2025-11-25",
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    let loc = errors[0].location.clone().unwrap();
    assert_eq!(
        loc.pointer.as_deref(),
        Some("/tools/0/execution/taskSupport")
    );
    assert!(
        errors[0].message.contains("\"sometimes\""),
        "{}",
        errors[0].message
    );
    assert!(errors[0]
        .hint
        .as_deref()
        .is_some_and(|h| h.contains("optional")));
    let errors =
        mcpgen::check::check_text_in(&shared_data::store(), &tool("true"), "m.json", "2025-11-25");
    assert_eq!(
        errors[0].location.clone().unwrap().pointer.as_deref(),
        Some("/tools/0/execution")
    );
}

#[test]
fn scopes_must_be_oauth_scope_tokens_listed_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scopes.json");
    let text = r#"{"tools": [
  {"name": "a", "inputSchema": {"type": "object"}, "x-mcpgen": {"scopes": ["notes:write", "two words", "notes:write"]}},
  {"name": "b", "inputSchema": {"type": "object"}, "x-mcpgen": {"scopes": "notes"}}
],
"prompts": [{"name": "p", "x-mcpgen": {"scopes": ["q\"uote"]}}],
"resources": [{"uri": "r://x", "name": "x", "x-mcpgen": {"scopes": [1]}}]
}"#;
    std::fs::write(&path, text).unwrap();
    let file = path.to_str().unwrap();
    let errors = mcpgen::check::check_file_in(&shared_data::store(), file, "2025-11-25");
    let got: Vec<(String, String)> = errors
        .iter()
        .map(|e| {
            (
                e.location.clone().unwrap().pointer.unwrap(),
                e.message.clone(),
            )
        })
        .collect();
    let want = [
        (
            "/tools/0/x-mcpgen/scopes/1",
            "\"two words\" is not an OAuth scope",
        ),
        (
            "/tools/0/x-mcpgen/scopes/2",
            "the scope \"notes:write\" is listed twice",
        ),
        ("/tools/1/x-mcpgen", "invalid `x-mcpgen` settings"),
        (
            "/resources/0/x-mcpgen/scopes",
            "`scopes` is an array of OAuth scope strings",
        ),
        ("/prompts/0/x-mcpgen/scopes/0", "is not an OAuth scope"),
    ];
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (pointer, message) in want {
        assert!(
            got.iter().any(|(p, m)| p == pointer && m.contains(message)),
            "no {pointer}: {message} in {got:#?}"
        );
    }
    assert!(
        errors.iter().all(|e| e.hint.is_some()),
        "every problem says what to do"
    );
}

#[test]
fn the_search_surface_settings_are_checked_where_they_are_written() {
    let manifest = |settings: &str, names: &[&str]| {
        let tools: Vec<String> = names
            .iter()
            .map(|n| format!(r#"{{"name": "{n}", "inputSchema": {{"type": "object"}}}}"#))
            .collect();
        format!(
            "{{\n\"x-mcpgen\": {settings},\n\"tools\": [\n{}\n]\n}}",
            tools.join(",\n")
        )
    };
    let check = |text: String| {
        mcpgen::check::check_text_in(&shared_data::store(), &text, "m.json", "2025-11-25")
    };
    let good = manifest(
        r#"{"toolSurface": "search", "pinnedTools": ["a"]}"#,
        &["a", "b"],
    );
    assert_eq!(check(good), vec![]);
    let errors = check(manifest(
        r#"{"toolSurface": "search", "pinnedTools": ["a", "zz"]}"#,
        &["a", "search_tools"],
    ));
    expect(
        &errors,
        "m.json",
        &[
            (
                "/tools/1/name",
                5,
                10,
                "serves a tool named `search_tools` of its own",
            ),
            (
                "/x-mcpgen/pinnedTools/1",
                2,
                60,
                "the pinned tool `zz` is not declared",
            ),
        ],
    );
    let errors = check(manifest(r#"{"toolSurface": "sometimes"}"#, &["a"]));
    expect(
        &errors,
        "m.json",
        &[("/x-mcpgen", 2, 13, "invalid server-wide `x-mcpgen`")],
    );
    let errors = check(manifest(r#"{"pinnedTools": ["a"]}"#, &["a"]));
    expect(
        &errors,
        "m.json",
        &[(
            "/x-mcpgen/pinnedTools",
            2,
            29,
            "only to the search tool surface",
        )],
    );
}
