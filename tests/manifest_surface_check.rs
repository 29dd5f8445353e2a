//! `manifest check` on the `resources`, `resourceTemplates` and `prompts`
//! sections: every problem with file, JSON pointer, line:column and a
//! hint; names that generated methods and types would share are resolved
//! by the naming policy, and the one clash it cannot resolve is reported.

mod shared_data;

use mcpgen::manifest::Manifest;
use mcpgen::Error;

const BROKEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/broken_surface.json"
);

/// (pointer, line, column, message) of each problem, after checking that
/// each names the file and says what to do.
fn summary(errors: &[Error], file: &str) -> Vec<(String, usize, usize, String)> {
    errors
        .iter()
        .map(|e| {
            let loc = e.location.clone().expect("every problem has a location");
            assert_eq!(loc.file.as_deref(), Some(std::path::Path::new(file)), "{e}");
            assert!(e.hint.is_some(), "every problem says what to do: {e}");
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

#[test]
fn every_problem_of_the_surface_sections_is_reported_with_its_place() {
    let errors = mcpgen::check::check_file_in(&shared_data::store(), BROKEN, "2025-11-25");
    let got = summary(&errors, BROKEN);
    let want: &[(&str, usize, usize, &str)] = &[
        ("/prompts/5", 23, 5, "a prompt must be an object"),
        (
            "/resources/1/uri",
            5,
            13,
            "duplicate resource uri \"docs://readme\" (first at /resources/0)",
        ),
        (
            "/resources/2/name",
            6,
            37,
            "duplicate resource name \"readme\" (first at /resources/0)",
        ),
        ("/resources/4", 8, 5, "a resource needs a string `uri`"),
        (
            "/resourceTemplates/1/uriTemplate",
            12,
            21,
            "duplicate resource template uriTemplate \"notes://{id}\"",
        ),
        (
            "/prompts/1/name",
            19,
            14,
            "duplicate prompt name \"summarize\"",
        ),
        (
            "/prompts/4/x-mcpgen",
            22,
            76,
            "`x-mcpgen` of a prompt is an object whose `complete` is an array of names",
        ),
        (
            "/resourceTemplates/0/x-mcpgen/complete/1",
            11,
            85,
            "\"ident\" is not a variable of its URI template",
        ),
        (
            "/resourceTemplates/2/uriTemplate",
            13,
            21,
            "\"notes://{id\" is not an RFC 6570 URI template: unclosed expression",
        ),
        (
            "/resourceTemplates/3/uriTemplate",
            14,
            21,
            "\"notes://all\" has no variables",
        ),
        (
            "/resourceTemplates/4",
            15,
            5,
            "variables \"path\" and \"Path\" would both be the Rust field `path`",
        ),
        (
            "/resourceTemplates/4/x-mcpgen/complete/1",
            15,
            97,
            "\"path\" is listed twice",
        ),
        (
            "/prompts/0/x-mcpgen/complete/0",
            18,
            105,
            "\"subject\" is not an argument of the prompt",
        ),
        (
            "/prompts/2/arguments/0/name",
            20,
            47,
            "prompt argument name \"file name\" may only hold",
        ),
        (
            "/prompts/2/arguments/1/required",
            20,
            90,
            "`required` must be true or false",
        ),
        (
            "/prompts/2/arguments/2/name",
            20,
            107,
            "duplicate prompt argument \"lang\" (first at /prompts/2/arguments/1)",
        ),
        (
            "/prompts/3/arguments",
            21,
            35,
            "`arguments` must be an array of PromptArgument objects",
        ),
        (
            "/prompts/4/arguments/0",
            22,
            35,
            "a prompt argument needs a string `name`",
        ),
        (
            "/resources/3/x-mcpgen/complete",
            7,
            73,
            "a static resource has nothing to complete",
        ),
    ];
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for w in want {
        let found = got.iter().find(|g| g.0 == w.0 && g.3.contains(w.3));
        let Some(g) = found else {
            panic!("no problem {w:?} in {got:#?}")
        };
        assert_eq!((g.1, g.2), (w.1, w.2), "place of {w:?}");
    }
}

/// Tools whose method and type names the prompts, templates and static
/// resources would otherwise take.
const CLASHING: &str = r#"{
  "tools": [
    {"name": "read_resource", "inputSchema": {"type": "object"}},
    {"name": "prompt_greet", "inputSchema": {"type": "object"}},
    {"name": "get_greet", "inputSchema": {"type": "object"}},
    {"name": "list_all_prompts", "inputSchema": {"type": "object"}},
    {"name": "greet_args", "inputSchema": {"type": "object"}}
  ],
  "resources": [{"uri": "docs://readme", "name": "readme"}],
  "resourceTemplates": [
    {"uriTemplate": "res://{id}", "name": "resource"},
    {"uriTemplate": "x://{y}/{z}", "name": "x_y", "x-mcpgen": {"complete": ["z"]}}
  ],
  "prompts": [
    {"name": "greet", "arguments": [{"name": "name"}], "x-mcpgen": {"complete": ["name"]}},
    {"name": "Greet"},
    {"name": "x", "arguments": [{"name": "y_z"}], "x-mcpgen": {"complete": ["y_z"]}}
  ]
}"#;

fn spec() -> mcpgen::spec::Spec {
    mcpgen::spec::Spec::load(&shared_data::schema_file("2025-11-25")).expect("the official schema")
}

/// Names of the functions of every `trait` and `impl` block of `file`, per block.
fn functions(file: &syn::File) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for item in &file.items {
        match item {
            syn::Item::Trait(t) => out.push(
                t.items
                    .iter()
                    .filter_map(|i| {
                        if let syn::TraitItem::Fn(f) = i {
                            Some(f.sig.ident.to_string())
                        } else {
                            None
                        }
                    })
                    .collect(),
            ),
            syn::Item::Impl(i) if i.trait_.is_none() => out.push(
                i.items
                    .iter()
                    .filter_map(|i| {
                        if let syn::ImplItem::Fn(f) = i {
                            Some(f.sig.ident.to_string())
                        } else {
                            None
                        }
                    })
                    .collect(),
            ),
            _ => {}
        }
    }
    out
}

#[test]
fn generated_names_never_clash_with_tools_or_each_other() {
    let m = Manifest::from_str(CLASHING, "clashing.json").unwrap();
    assert_eq!(
        mcpgen::check::check_in(&shared_data::store(), &m, "2025-11-25"),
        vec![],
        "the naming policy resolves every clash here"
    );
    let tools = mcpgen::codegen::tools::generate(&m).unwrap();
    let server =
        mcpgen::codegen::server::generate(&m, &tools.tools, &spec(), "2025-11-25", true).unwrap();
    let server: syn::File = syn::parse2(server).expect("server parses");
    let handler = functions(&server)
        .into_iter()
        .next()
        .expect("the Handler trait comes first");
    for name in [
        "read_resource",
        "prompt_greet",
        "get_greet",
        "list_all_prompts",
        "greet_args",
        "read_resource_2",
        "read_resource_3",
        "read_x_y",
        "prompt_greet_2",
        "prompt_greet_2_2",
        "prompt_x",
        "complete_greet_name",
        "complete_x_y_z",
        "complete_x_y_z_2",
    ] {
        assert!(
            handler.contains(&name.to_owned()),
            "Handler lacks {name}: {handler:?}"
        );
    }
    let mut client =
        mcpgen::codegen::client::generate(&tools.tools, &spec(), "2025-11-25", true).unwrap();
    client.extend(mcpgen::codegen::surface::client_impl(&m));
    let client: syn::File = syn::parse2(client).expect("client parses");
    let methods: Vec<String> = functions(&client).into_iter().flatten().collect();
    for name in [
        "read_resource",
        "read_resource_2",
        "get_greet",
        "get_greet_with",
        "get_greet_2",
        "list_all_prompts",
        "list_all_prompts_2",
        "read_x_y",
    ] {
        assert!(
            methods.contains(&name.to_owned()),
            "Client lacks {name}: {methods:?}"
        );
    }
    for (what, names) in [("Handler", handler), ("Client", methods)] {
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(
            sorted.len(),
            names.len(),
            "{what} has a name twice: {names:?}"
        );
    }
    // tools.rs as it ships: the tool types, the prompts' and templates'
    // types among them, and the static resources' enum.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clashing.json");
    std::fs::write(&path, CLASHING).unwrap();
    let generated = mcpgen::Builder::new()
        .manifest(&path)
        .store(shared_data::store())
        .generate()
        .expect("the manifest generates");
    let (_, text) = generated
        .files
        .iter()
        .find(|(name, _)| name == "tools.rs")
        .expect("tools.rs is generated");
    let types: syn::File = syn::parse_file(text).expect("tools.rs parses");
    let mut defined: Vec<String> = types
        .items
        .iter()
        .filter_map(|i| match i {
            syn::Item::Struct(s) => Some(s.ident.to_string()),
            syn::Item::Enum(e) => Some(e.ident.to_string()),
            _ => None,
        })
        .collect();
    assert!(
        defined.contains(&"GreetArgs".to_owned()) && defined.contains(&"Greet2Args".to_owned()),
        "{defined:?}"
    );
    let count = defined.len();
    defined.sort();
    defined.dedup();
    assert_eq!(defined.len(), count, "a type is defined twice");
}

#[test]
fn a_type_name_a_tool_already_has_is_reported_at_the_item() {
    // The tool's `$defs` type `Args` is named `GreetArgs` by the tool
    // types, after the prompt's names are chosen.
    let text = r##"{
  "tools": [{"name": "greet", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "#/$defs/Args"}}, "$defs": {"Args": {"type": "object", "properties": {"n": {"type": "integer"}}}}}}],
  "prompts": [
    {"name": "greet"}
  ]
}"##;
    let errors =
        mcpgen::check::check_text_in(&shared_data::store(), text, "clash.json", "2025-11-25");
    let got = summary(&errors, "clash.json");
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        (got[0].0.as_str(), got[0].1, got[0].2),
        ("/prompts/0/name", 4, 14)
    );
    assert!(
        got[0]
            .3
            .contains("would be the Rust type `GreetArgs`, which a tool's types already define"),
        "{}",
        got[0].3
    );
    // `generate` stops with the same problem instead of emitting code that does not compile.
    let dir = std::env::temp_dir().join(format!("mcpgen-clash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("clash.json");
    std::fs::write(&path, text).unwrap();
    let err = mcpgen::Builder::new()
        .protocol("2025-11-25")
        .manifest(&path)
        .schema_file(shared_data::schema_file("2025-11-25"))
        .generate()
        .unwrap_err();
    assert!(err.to_string().contains("`GreetArgs`"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

const OFF_SPEC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/off_spec.json");

/// The problems `manifest check` and the Builder report for `OFF_SPEC` at
/// `revision` (`mcpgen::check::against`): the manifest checks', then what
/// the official schema adds.
fn off_spec_problems(revision: &str) -> Vec<Error> {
    let schema = shared_data::store()
        .resolve(revision, None)
        .expect("the official schema");
    let m = Manifest::load(OFF_SPEC).unwrap();
    mcpgen::check::against(&m, &schema).into_errors()
}

#[test]
fn items_the_official_schema_rejects_are_reported_where_they_are() {
    // 2025-11-25 ($defs, 2020-12) and 2024-11-05 (definitions, draft-07).
    for revision in ["2025-11-25", "2024-11-05"] {
        let errors = off_spec_problems(revision);
        let got = summary(&errors, OFF_SPEC);
        let mut want: Vec<(&str, usize, usize, &str)> = vec![
            // The manifest checks' own finding, once (the schema's "uri is
            // a required property" at the same place is not repeated).
            ("/resources/2", 9, 5, "a resource needs a string `uri`"),
            (
                "/resources/0/size",
                7,
                51,
                "not a valid MCP `Resource`: \"big\" is not of type \"integer\"",
            ),
            (
                "/resources/0/mimeType",
                7,
                70,
                "not a valid MCP `Resource`: 3 is not of type \"string\"",
            ),
            (
                "/resources/1/uri",
                8,
                26,
                "not a valid MCP `Resource`: \"not a uri\" is not a \"uri\"",
            ),
            (
                "/resourceTemplates/0/mimeType",
                12,
                62,
                "not a valid MCP `ResourceTemplate`: [] is not of type \"string\"",
            ),
            (
                "/prompts/0/arguments/0/description",
                15,
                62,
                "not a valid MCP `Prompt`: 1 is not of type \"string\"",
            ),
        ];
        if revision != "2024-11-05" {
            // A tool's title and annotations are later than 2024-11-05,
            // which lets any member through.
            want.insert(
                1,
                (
                    "/tools/1/title",
                    4,
                    28,
                    "not a valid MCP `Tool`: 5 is not of type \"string\"",
                ),
            );
            want.insert(
                2,
                (
                    "/tools/1/annotations/readOnlyHint",
                    4,
                    63,
                    "not a valid MCP `Tool`: \"yes\" is not of type \"boolean\"",
                ),
            );
        }
        let want: Vec<(String, usize, usize, String)> = want
            .into_iter()
            .map(|(p, l, c, m)| (p.to_owned(), l, c, m.to_owned()))
            .collect();
        assert_eq!(got, want, "{revision}");
    }
}

#[test]
fn generation_refuses_a_manifest_the_official_schema_rejects() {
    let out = tempfile::tempdir().unwrap();
    let e = mcpgen::Builder::new()
        .store(shared_data::store())
        .manifest(OFF_SPEC)
        .out_dir(out.path())
        .cargo_directives(false)
        .compile()
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("not a valid MCP `Resource`: \"big\" is not of type \"integer\""),
        "{e}"
    );
    assert_eq!(
        std::fs::read_dir(out.path()).unwrap().count(),
        0,
        "nothing is written"
    );
}

#[test]
fn a_client_of_an_off_spec_server_is_generated_with_warnings() {
    let generated = mcpgen::Builder::new()
        .store(shared_data::store())
        .manifest(OFF_SPEC)
        .server(false)
        .client(true)
        .generate();
    // The one problem of the manifest itself (a resource without `uri`)
    // still stops generation; without it, the rest are warnings.
    let e = generated.unwrap_err();
    assert!(
        e.to_string().contains("a resource needs a string `uri`"),
        "{e}"
    );
    assert!(!e.to_string().contains("not a valid MCP"), "{e}");

    let dir = tempfile::tempdir().unwrap();
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(OFF_SPEC).unwrap()).unwrap();
    doc["resources"].as_array_mut().unwrap().pop();
    let file = dir.path().join("off_spec.json");
    std::fs::write(&file, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let generated = mcpgen::Builder::new()
        .store(shared_data::store())
        .manifest(&file)
        .server(false)
        .client(true)
        .generate()
        .unwrap();
    let warnings: Vec<String> = generated
        .warnings
        .iter()
        .map(|w| w.message.clone())
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w == "not a valid MCP `Resource`: \"big\" is not of type \"integer\""),
        "{warnings:?}"
    );
    assert_eq!(
        warnings
            .iter()
            .filter(|w| w.starts_with("not a valid MCP"))
            .count(),
        7,
        "{warnings:?}"
    );
    let e = mcpgen::Builder::new()
        .store(shared_data::store())
        .manifest(&file)
        .generate()
        .unwrap_err();
    assert!(
        e.to_string().contains("the manifest has 7 problem(s)"),
        "{e}"
    );
}
