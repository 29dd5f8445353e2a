//! `mcpgen new` end to end. Scaffolds server crates from manifests of
//! different shapes — the shared real ones (`github.json`: 117 tools,
//! large enums, nested objects; `stitch.json`: recursive `$ref`) and small
//! ones written here (required arguments of every kind, no arguments,
//! nested objects, enums, `$ref`/`$defs`/`definitions`, combinators, an
//! unsatisfiable pattern, no tools at all, a draft-07 revision, a hostile
//! file name, prompts, resource templates and static resources with
//! hostile names; served over stdio or Streamable HTTP, whose own test
//! talks HTTP on loopback; in the stateful era and the stateless one of
//! 2026-07-28) — then builds each with the repository's target directory,
//! so the dependencies are not built again, and runs its own tests
//! offline. Also what `mcpgen new` refuses.

mod cli_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use cli_support::*;

/// The workspace's target directory, wherever `CARGO_TARGET_DIR` or a
/// cargo config put it: the parent of this test's `CARGO_TARGET_TMPDIR`.
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory holds tmp/")
        .to_path_buf()
}

/// A nested cargo, offline, run from the repository so its
/// `.cargo/config.toml` gives the crates the workspace's profile and the
/// dependency artifacts are reused, not rebuilt.
fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CARGO_TARGET_DIR", target_dir())
        .env("MCPGEN_SCHEMA_MIRROR", mirror())
        .env("MCPGEN_OFFLINE", "1");
    cmd
}

/// `cargo doc` of every crate of the workspace at `dir`, its own crates
/// only, with rustdoc's warnings as errors.
fn cargo_doc(dir: &Path) -> std::process::Output {
    cargo()
        .args(["doc", "--offline", "--quiet", "--no-deps", "--workspace"])
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .env("RUSTDOCFLAGS", "-D warnings")
        .output()
        .expect("run cargo doc")
}

/// Required arguments of every kind, tools without arguments, a rate limit.
const KINDS: &str = r#"{
  "server": {"name": "kinds", "version": "0.1.0"},
  "tools": [
    {"name": "no-arguments", "description": "Takes nothing.", "inputSchema": {"type": "object"}},
    {"name": "closed-empty", "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false}},
    {"name": "strings", "description": "Every kind of string constraint.", "inputSchema": {
      "type": "object",
      "properties": {
        "plain": {"type": "string"},
        "short": {"type": "string", "maxLength": 3},
        "long": {"type": "string", "minLength": 20},
        "when": {"type": "string", "format": "date-time"},
        "day": {"type": "string", "format": "date"},
        "mail": {"type": "string", "format": "email"},
        "link": {"type": "string", "format": "uri"},
        "id": {"type": "string", "format": "uuid"},
        "repo": {"type": "string", "pattern": "^[a-z0-9_.-]+/[a-z0-9_.-]+$"},
        "sha": {"type": "string", "pattern": "^[0-9a-f]{7,40}$"},
        "optional": {"type": "string"}
      },
      "required": ["plain", "short", "long", "when", "day", "mail", "link", "id", "repo", "sha"],
      "additionalProperties": false
    }},
    {"name": "numbers", "description": "Bounds and multiples.", "inputSchema": {
      "type": "object",
      "properties": {
        "page": {"type": "integer", "minimum": 1, "maximum": 100},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "even": {"type": "integer", "minimum": 3, "multipleOf": 2},
        "price": {"type": "number", "minimum": 0.5, "multipleOf": 0.25},
        "negative": {"type": "integer", "maximum": -10},
        "flag": {"type": "boolean"}
      },
      "required": ["page", "ratio", "even", "price", "negative", "flag"]
    }, "x-mcpgen": {"rateLimit": {"calls": 1, "perSeconds": 60}}}
  ]
}"#;

/// Nested objects, arrays, enums, `$ref`/`$defs`/`definitions`,
/// recursion, `oneOf`/`anyOf`/`allOf`, and a tool no value fits.
const NESTED: &str = r##"tools:
  - name: create-order
    description: Nested objects, arrays, enums, const and defaults.
    inputSchema:
      type: object
      properties:
        customer:
          type: object
          properties:
            name: {type: string, minLength: 1}
            address:
              type: object
              properties:
                street: {type: string}
                zip: {type: string, pattern: "^[0-9]{5}$"}
                country: {type: string, enum: [DE, FR, US], default: US}
              required: [street, zip, country]
          required: [name, address]
        items:
          type: array
          minItems: 2
          uniqueItems: true
          items:
            type: object
            properties:
              sku: {type: string, enum: [A-1, B-2, C-3]}
              quantity: {type: integer, minimum: 1, default: 1}
            required: [sku, quantity]
        kind: {const: order}
        priority: {type: string, enum: [low, normal, high]}
        note: {type: [string, "null"]}
      required: [customer, items, kind, priority, note]
  - name: draw
    description: References, recursion and combinators.
    inputSchema:
      type: object
      $defs:
        point:
          type: object
          properties: {x: {type: number}, y: {type: number}}
          required: [x, y]
        shape:
          oneOf:
            - type: object
              properties:
                kind: {const: circle}
                center: {$ref: "#/$defs/point"}
                radius: {type: number, exclusiveMinimum: 0}
              required: [kind, center, radius]
            - type: object
              properties:
                kind: {const: polygon}
                points: {type: array, items: {$ref: "#/$defs/point"}, minItems: 3}
              required: [kind, points]
        group:
          type: object
          properties:
            name: {type: string}
            children: {type: array, items: {$ref: "#/$defs/group"}}
          required: [name]
      definitions:
        color: {type: string, enum: [red, green, blue]}
      properties:
        shape: {$ref: "#/$defs/shape"}
        color: {$ref: "#/definitions/color"}
        group: {$ref: "#/$defs/group"}
        style:
          allOf:
            - {type: object, properties: {width: {type: integer, minimum: 1}}, required: [width]}
            - {type: object, properties: {dash: {type: boolean}}, required: [dash]}
        label:
          anyOf:
            - {type: integer, minimum: 10}
            - {type: string}
      required: [shape, color, group, style, label]
  - name: impossible
    description: No string matches this pattern, so the scaffolded test skips it.
    inputSchema:
      type: object
      properties:
        code: {type: string, pattern: "^[a-z]$", minLength: 2}
      required: [code]
"##;

/// A draft-07 revision (`definitions`), whose invalid arguments are a
/// `-32602` protocol error.
const LEGACY: &str = r##"{"tools": [{"name": "lookup", "inputSchema": {
  "type": "object",
  "definitions": {"code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{3}$"}},
  "properties": {
    "code": {"$ref": "#/definitions/code"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10}
  },
  "required": ["code", "limit"]
}}]}"##;

const ONE_TOOL: &str = r#"{"tools": [{"name": "echo", "description": "Says \"hi\" back.",
  "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}]}"#;

/// Prompts, resource templates and static resources besides a tool, with
/// names and descriptions that end strings, comments and code spans or are
/// not ASCII (a URI only with what RFC 3986 allows in one: `'`, `*/`,
/// parentheses), a template whose variables are optional or exploded,
/// completion, and tool arguments that stateless HTTP calls mirror in
/// headers (`x-mcp-header`).
const SURFACE: &str = r#"{
  "tools": [{"name": "echo", "inputSchema": {"type": "object", "properties": {
    "text": {"type": "string"}, "region": {"type": "string", "x-mcp-header": "Region"}, "limit": {"type": "integer", "x-mcp-header": "Limit"}},
    "required": ["text", "region", "limit"]}}],
  "prompts": [
    {"name": "review", "description": "Reviews \"code\" `x` */ }", "arguments": [
      {"name": "code", "required": true}, {"name": "style"}], "x-mcpgen": {"complete": ["style"]}},
    {"name": "say \"hi\" `now` */"},
    {"name": "grüße", "arguments": [{"name": "to", "required": true}]}
  ],
  "resourceTemplates": [
    {"uriTemplate": "notes://{folder}/{name}", "name": "note", "description": "One note."},
    {"uriTemplate": "search://notes{?q,limit}", "name": "search"},
    {"uriTemplate": "files://{/path*}", "name": "file"}
  ],
  "resources": [
    {"uri": "notes://index", "name": "index"},
    {"uri": "docs://it's*/quoted(1)", "name": "quoted", "description": "A URI with `'`, `*/` and \"quotes\" around it."}
  ]
}"#;

/// A file name that ends strings, tables, comments and code spans in
/// every file it is pasted into, unless each escapes it for its context.
const HOSTILE: &str =
    "tools\" ]\n[dependencies.evil]\npath = \"evil\" # \\\" '''`code` *[a](b)* <b> x.json";

/// The same without the line breaks, which `mcpgen new` refuses.
fn hostile_one_line() -> String {
    HOSTILE.replace('\n', " ")
}

struct Case {
    crate_name: &'static str,
    manifest: PathBuf,
    protocol: Option<&'static str>,
    /// `--transport http`.
    http: bool,
    /// Tests the scaffolded crate has (2 without an invalid-arguments test).
    tests: usize,
    /// Tools the scaffolded test does not call.
    skipped: &'static [&'static str],
}

fn new_crate(cache: &Path, dir: &Path, manifest: &Path, protocol: Option<&str>) -> Run {
    new_crate_over(cache, dir, manifest, protocol, "stdio")
}

fn new_crate_over(
    cache: &Path,
    dir: &Path,
    manifest: &Path,
    protocol: Option<&str>,
    transport: &str,
) -> Run {
    let mut cmd = mcpgen(cache);
    cmd.arg("new")
        .arg(dir)
        .arg("--manifest")
        .arg(manifest)
        .args(["--transport", transport]);
    if let Some(p) = protocol {
        cmd.args(["--protocol", p]);
    }
    run(&mut cmd)
}

#[test]
fn scaffolded_crates_build_and_pass_their_own_tests() {
    let started = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let manifests = tmp.path().join("manifests");
    std::fs::create_dir(&manifests).unwrap();
    let write = |name: &str, text: &str| {
        let path = manifests.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    // The real manifests of ../shared, when it is there (else recorded as skipped).
    let real = shared_data(
        "manifests",
        "cli_new::scaffolded_crates_build_and_pass_their_own_tests (github-server, stitch-server)",
    );
    let real = |name: &str| {
        real.as_ref()
            .map_or_else(PathBuf::new, |dir| dir.join(name))
    };
    let cases = [
        Case {
            crate_name: "github-server",
            manifest: real("github.json"),
            protocol: None,
            http: false,
            tests: 3,
            skipped: &[],
        },
        Case {
            crate_name: "stitch-server",
            manifest: real("stitch.json"),
            protocol: None,
            http: false,
            tests: 3,
            skipped: &[],
        },
        Case {
            crate_name: "kinds-server",
            manifest: write("kinds.json", KINDS),
            protocol: None,
            http: false,
            tests: 3,
            skipped: &[],
        },
        Case {
            crate_name: "nested-server",
            manifest: write("nested.yaml", NESTED),
            protocol: None,
            http: false,
            tests: 3,
            skipped: &["impossible"],
        },
        Case {
            crate_name: "empty-server",
            manifest: write("empty.json", r#"{"tools": []}"#),
            protocol: None,
            http: false,
            tests: 2,
            skipped: &[],
        },
        Case {
            crate_name: "legacy-server",
            manifest: write("legacy.json", LEGACY),
            protocol: Some("2025-06-18"),
            http: false,
            tests: 3,
            skipped: &[],
        },
        Case {
            crate_name: "hostile-server",
            manifest: write(&hostile_one_line(), ONE_TOOL),
            protocol: None,
            http: false,
            tests: 3,
            skipped: &[],
        },
        Case {
            crate_name: "kinds-http",
            manifest: write("kinds-http.json", KINDS),
            protocol: None,
            http: true,
            tests: 3,
            skipped: &[],
        },
        Case {
            crate_name: "surface-server",
            manifest: write("surface.json", SURFACE),
            protocol: None,
            http: false,
            tests: 5,
            skipped: &[],
        },
        Case {
            crate_name: "surface-http",
            manifest: write("surface-http.json", SURFACE),
            protocol: None,
            http: true,
            tests: 5,
            skipped: &[],
        },
        // Names that collide across tools, prompts, templates and the
        // static resources' reader (the golden of the same name).
        Case {
            crate_name: "clashes-server",
            manifest: Path::new(env!("CARGO_MANIFEST_DIR")).join("goldens/manifests/clashes.json"),
            protocol: None,
            http: false,
            tests: 5,
            skipped: &[],
        },
        // The stateless era: `server/discover`, `_meta` on every request,
        // and over HTTP the headers that mirror the body.
        Case {
            crate_name: "modern-server",
            manifest: write("modern.json", SURFACE),
            protocol: Some("2026-07-28"),
            http: false,
            tests: 5,
            skipped: &[],
        },
        Case {
            crate_name: "modern-http",
            manifest: write("modern-http.json", SURFACE),
            protocol: Some("2026-07-28"),
            http: true,
            tests: 5,
            skipped: &[],
        },
    ];
    let cases: Vec<Case> = cases
        .into_iter()
        .filter(|c| !c.manifest.as_os_str().is_empty())
        .collect();

    let crates = tmp.path().join("crates");
    for case in &cases {
        let dir = crates.join(case.crate_name);
        let transport = if case.http { "http" } else { "stdio" };
        let r = new_crate_over(&cache, &dir, &case.manifest, case.protocol, transport);
        assert_eq!(r.code, 0, "{}: {}", case.crate_name, r.stderr);
        let file_name = case.manifest.file_name().unwrap().to_str().unwrap();
        for f in [
            "Cargo.toml",
            "Cargo.lock",
            "bindings/Cargo.toml",
            "bindings/build.rs",
            "bindings/src/lib.rs",
            "src/main.rs",
            "tests/tools_list.rs",
            "README.md",
            file_name,
        ] {
            assert!(dir.join(f).is_file(), "{}: {f} missing", case.crate_name);
        }
        let notes = r
            .stderr
            .lines()
            .filter(|l| l.starts_with("note: the scaffolded test does not call"))
            .count();
        assert_eq!(
            notes,
            case.skipped.len(),
            "{}: {}",
            case.crate_name,
            r.stderr
        );
        let test = std::fs::read_to_string(dir.join("tests/tools_list.rs")).unwrap();
        for tool in case.skipped {
            assert!(r.stderr.contains(&format!("tool `{tool}`")), "{}", r.stderr);
            assert!(
                test.contains(&format!(
                    "// {tool}: not called, no valid arguments were found: "
                )),
                "{test}"
            );
        }
        let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
        assert!(readme.contains("\"mcpServers\""), "{readme}");
        let main = std::fs::read_to_string(dir.join("src/main.rs")).unwrap();
        if case.crate_name.starts_with("surface") || case.crate_name.starts_with("modern") {
            // One stub per tool, prompt and template, one for the static resources.
            assert_eq!(main.matches("is not implemented yet").count(), 8, "{main}");
            for method in [
                "async fn prompt_review(",
                "async fn read_note(",
                "async fn read_search(",
                "async fn read_resource(",
            ] {
                assert!(main.contains(method), "{method}: {main}");
            }
            assert!(
                test.contains("(\"files://{/path*}\", Some(\"files:///example\"))"),
                "{test}"
            );
            let modern = case.protocol == Some("2026-07-28");
            assert_eq!(test.contains("server/discover"), modern, "{test}");
            assert_eq!(test.contains("\"initialize\""), !modern, "{test}");
            if modern && case.http {
                assert!(
                    test.contains("(\"echo\", \"mcp-param-region\", &[\"region\"]),"),
                    "{test}"
                );
            }
        }
        if case.http {
            let inspector = "npx @modelcontextprotocol/inspector --cli --transport http --server-url http://127.0.0.1:8080/mcp";
            assert!(readme.contains(inspector), "{readme}");
            assert!(
                readme.contains("\"url\": \"http://127.0.0.1:8080/mcp\""),
                "{readme}"
            );
            assert!(main.contains("server::serve_http(Tools, addr)"), "{main}");
            assert!(
                test.contains("TcpStream::connect"),
                "the test talks HTTP: {test}"
            );
        } else {
            assert!(
                readme.contains("npx @modelcontextprotocol/inspector cargo run"),
                "{readme}"
            );
            assert!(main.contains("server::serve_stdio(Tools)"), "{main}");
            assert!(!test.contains("TcpStream"), "the test talks stdio: {test}");
        }
    }

    // Refuses to scaffold over an existing crate.
    let again = new_crate(
        &cache,
        &crates.join(cases[0].crate_name),
        &cases[0].manifest,
        None,
    );
    assert_eq!(again.code, 1);
    assert!(again.stderr.contains("already exists"), "{}", again.stderr);

    // Each crate as its user gets it (its own Cargo.lock and profile), one
    // after the other in the shared target directory. One workspace over
    // all of them built only about 10% faster (52 s against 58 s for these
    // seven on the 2-core machine): github-server takes most of the time.
    for case in &cases {
        let output = cargo()
            .args(["test", "--offline", "--quiet", "--manifest-path"])
            .arg(crates.join(case.crate_name).join("Cargo.toml"))
            .output()
            .expect("run cargo");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "cargo test of {} failed:\n{stdout}\n{stderr}",
            case.crate_name
        );
        let want = format!("test result: ok. {} passed", case.tests);
        assert!(stdout.contains(&want), "{}: {stdout}", case.crate_name);
        assert!(
            !stderr.contains("warning:"),
            "{} builds without warnings:\n{stderr}",
            case.crate_name
        );

        // What a new server compiles: the generator without its command
        // line, and for stdio no HTTP stack.
        let tree = cargo()
            .args([
                "tree",
                "--offline",
                "-e",
                "normal,build",
                "--prefix",
                "none",
                "--manifest-path",
            ])
            .arg(crates.join(case.crate_name).join("Cargo.toml"))
            .output()
            .expect("run cargo tree");
        let tree = String::from_utf8_lossy(&tree.stdout);
        let names: std::collections::BTreeSet<&str> = tree
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert!(
            names.contains("mcpgen") && names.contains("mcpgen-runtime"),
            "{}: {tree}",
            case.crate_name
        );
        for cli_only in ["clap", "handlebars", "ureq", "similar", "tempfile", "toml"] {
            assert!(
                !names.contains(cli_only),
                "{} builds {cli_only}:\n{tree}",
                case.crate_name
            );
        }
        assert_eq!(
            names.contains("hyper"),
            case.http,
            "{}: hyper only for HTTP:\n{tree}",
            case.crate_name
        );
    }
    eprintln!(
        "{} crates scaffolded, built and tested in {:.0?}",
        cases.len(),
        started.elapsed()
    );
}

/// Every real server's capture in `../shared/manifests/real/` scaffolds,
/// builds and documents (`cargo doc`, which reads every description as
/// Markdown) without a warning and passes its own tests: each tool called
/// with arguments valid against its schema (task-required ones as tasks),
/// and one with invalid arguments. Shapes nobody here invented, so a
/// regression in any of them shows.
#[test]
fn real_manifests_scaffold_and_pass_their_own_tests() {
    let started = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let Some(dir) = shared_data(
        "manifests/real",
        "cli_new::real_manifests_scaffold_and_pass_their_own_tests",
    ) else {
        return;
    };
    let mut manifests: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    manifests.sort();
    assert!(
        manifests.len() >= 13 && manifests.iter().any(|m| m.ends_with("cnb-rs.json")),
        "{} real manifests in {}",
        manifests.len(),
        dir.display()
    );
    let mut failures = Vec::new();
    for manifest in &manifests {
        let stem = manifest.file_stem().unwrap().to_str().unwrap();
        let crate_dir = tmp.path().join(format!("{stem}-server"));
        // The largest catalog is served through the search tool surface:
        // its test lists the surface's tools, finds every tool by its
        // name and calls every tool through `call_tool`.
        let search = stem == "cnb-rs";
        // One has its tool types split over crates, as `mcpgen new` does
        // for a catalog of hundreds of tools: they build, document and
        // serve as one.
        let split = stem == "chrome-devtools";
        let r = if split {
            run(mcpgen(&cache)
                .arg("new")
                .arg(&crate_dir)
                .arg("--manifest")
                .arg(manifest)
                .args(["--tool-parts", "3"]))
        } else if search {
            run(mcpgen(&cache)
                .arg("new")
                .arg(&crate_dir)
                .arg("--manifest")
                .arg(manifest)
                .args(["--tool-surface", "search"]))
        } else {
            new_crate(&cache, &crate_dir, manifest, None)
        };
        assert_eq!(r.code, 0, "{stem}: {}", r.stderr);
        assert_eq!(
            crate_dir.join("bindings/part-3/src/lib.rs").is_file(),
            split,
            "{stem}"
        );
        assert_eq!(
            crate_dir.join("bindings/build.rs").is_file(),
            !split,
            "{stem}"
        );
        // A real manifest's every tool gets valid arguments.
        assert!(
            !r.stderr.contains("note: the scaffolded test does not call"),
            "{stem}: {}",
            r.stderr
        );
        let output = cargo()
            .args(["test", "--offline", "--quiet", "--manifest-path"])
            .arg(crate_dir.join("Cargo.toml"))
            .output()
            .expect("run cargo");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let passed = if search {
            "test result: ok. 5 passed"
        } else {
            "test result: ok. 3 passed"
        };
        if !output.status.success() || !stdout.contains(passed) || stderr.contains("warning:") {
            failures.push(format!("{stem}:\n{stdout}\n{stderr}"));
        }
        let doc = cargo_doc(&crate_dir);
        if !doc.status.success() {
            let stderr = String::from_utf8_lossy(&doc.stderr);
            failures.push(format!("{stem}: cargo doc:\n{stderr}"));
        }
        // The target directory keeps only what the next crate reuses.
        let _ = std::fs::remove_dir_all(&crate_dir);
    }
    assert!(
        failures.is_empty(),
        "{} of {} scaffolds failed:\n{}",
        failures.len(),
        manifests.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} real manifests scaffolded, built and tested in {:.0?}",
        manifests.len(),
        started.elapsed()
    );
}

/// The crate of the hostile file name holds exactly the intended tables
/// and items; built and tested above.
#[test]
fn a_hostile_manifest_file_name_stays_a_value() {
    let tmp = tempfile::tempdir().unwrap();
    let name = hostile_one_line();
    let manifest = tmp.path().join(&name);
    std::fs::write(&manifest, ONE_TOOL).unwrap();
    let dir = tmp.path().join("hostile-server");
    let r = new_crate(&tmp.path().join("cache"), &dir, &manifest, None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();

    let cargo: toml::Table = read("Cargo.toml").parse().unwrap();
    let keys = |t: &toml::Value| t.as_table().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        cargo.keys().cloned().collect::<Vec<_>>(),
        ["dependencies", "package", "profile", "workspace"]
    );
    assert_eq!(
        keys(&cargo["dependencies"]),
        [
            "hostile-server-bindings",
            "mcpgen-runtime",
            "serde",
            "serde_json",
            "tokio"
        ]
    );
    assert_eq!(
        cargo["dependencies"]["hostile-server-bindings"]["path"].as_str(),
        Some("bindings")
    );
    assert_eq!(
        keys(&cargo["package"]),
        [
            "description",
            "edition",
            "name",
            "publish",
            "resolver",
            "version"
        ]
    );
    // build.rs and the server share one feature set, so what both use builds once.
    assert_eq!(cargo["package"]["resolver"].as_str(), Some("1"));
    assert_eq!(keys(&cargo["profile"]), ["dev"]);
    assert_eq!(keys(&cargo["workspace"]), ["members"]);
    // The generated code lives in a crate of its own, which alone runs the
    // generator, and needs the runtime alone (every crate test here builds it).
    let bindings: toml::Table = read("bindings/Cargo.toml").parse().unwrap();
    assert_eq!(keys(&bindings["dependencies"]), ["mcpgen-runtime"]);
    assert_eq!(keys(&bindings["build-dependencies"]), ["mcpgen"]);
    assert_eq!(
        cargo["package"]["description"].as_str().unwrap(),
        format!("MCP server for the tools of {name}, generated by mcpgen")
    );

    let build = syn::parse_file(&read("bindings/build.rs")).unwrap();
    assert_eq!(build.items.len(), 1);
    let syn::Item::Fn(main) = &build.items[0] else {
        panic!("build.rs holds a fn main")
    };
    assert_eq!(main.sig.ident, "main");
    let literals = string_literals(&read("bindings/build.rs"));
    assert!(literals.contains(&format!("../{name}")), "{literals:?}");
    assert_eq!(build.attrs.len(), 4, "the four lines of the //! comment");

    let main = syn::parse_file(&read("src/main.rs")).unwrap();
    let kinds: Vec<&str> = main.items.iter().map(item_kind).collect();
    assert_eq!(kinds, ["use", "use", "struct", "impl", "fn"]);

    let test = syn::parse_file(&read("tests/tools_list.rs")).unwrap();
    let fns: Vec<String> = test
        .items
        .iter()
        .filter_map(|i| match i {
            syn::Item::Fn(f) => Some(f.sig.ident.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(
        fns,
        [
            "result_text",
            "list_all",
            "assert_lists",
            "tools_list_shows_every_tool",
            "every_tool_answers_not_implemented_yet",
            "invalid_arguments_get_the_revision_validation_error"
        ]
    );
    let kinds: Vec<&str> = test.items.iter().map(item_kind).collect();
    assert_eq!(
        kinds,
        [
            "use", "use", "use", "use", "use", "const", "const", "const", "struct", "impl", "impl",
            "fn", "fn", "fn", "fn", "fn", "fn"
        ]
    );

    assert_eq!(std::fs::read_to_string(dir.join(&name)).unwrap(), ONE_TOOL);
}

fn item_kind(item: &syn::Item) -> &'static str {
    match item {
        syn::Item::Macro(_) => "macro",
        syn::Item::Use(_) => "use",
        syn::Item::Struct(_) => "struct",
        syn::Item::Impl(_) => "impl",
        syn::Item::Fn(_) => "fn",
        syn::Item::Const(_) => "const",
        _ => "other",
    }
}

/// The values of the string literals of a Rust file.
fn string_literals(source: &str) -> Vec<String> {
    fn walk(tokens: proc_macro2::TokenStream, out: &mut Vec<String>) {
        for token in tokens {
            match token {
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), out),
                proc_macro2::TokenTree::Literal(l) => {
                    if let Ok(s) = syn::parse_str::<syn::LitStr>(&l.to_string()) {
                        out.push(s.value());
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(source.parse().unwrap(), &mut out);
    out
}

/// Line breaks cannot pass through cargo's line-based build script
/// directives, and bidi controls would hide what the name says: refused.
#[test]
fn manifest_file_names_with_line_breaks_or_bidi_controls_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let bidi = "tools\u{202E}nosj.exe";
    for (name, code) in [
        (HOSTILE, "control character U+000A"),
        (bidi, "direction-changing character U+202E"),
    ] {
        let manifest = tmp.path().join(name);
        std::fs::write(&manifest, ONE_TOOL).unwrap();
        let dir = tmp.path().join("server");
        let r = new_crate(&tmp.path().join("cache"), &dir, &manifest, None);
        assert_eq!(r.code, 1, "{}", r.stderr);
        assert!(r.stderr.contains(code), "{}", r.stderr);
        assert!(
            r.stderr.contains("rename the manifest file"),
            "{}",
            r.stderr
        );
        assert_eq!(
            r.stderr.lines().count(),
            2,
            "error and help, each on one line: {}",
            r.stderr
        );
        assert!(!r.stderr.contains('\u{202E}'), "{}", r.stderr);
        assert!(!dir.exists());
    }
}

#[test]
fn names_that_cannot_be_crate_names_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let manifest = tmp.path().join("tools.json");
    std::fs::write(&manifest, ONE_TOOL).unwrap();
    for (name, why) in [
        ("fn", "it is a Rust keyword"),
        ("self", "it is a Rust keyword"),
        ("test", "built-in `test` library"),
        ("9lives", "not a valid crate name"),
    ] {
        let dir = tmp.path().join(name);
        let r = new_crate(&tmp.path().join("cache"), &dir, &manifest, None);
        assert_eq!(r.code, 1, "{name}: {}", r.stderr);
        assert!(
            r.stderr.contains(&format!("error: `{name}`")),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains(why), "{}", r.stderr);
        assert!(r.stderr.contains("help: "), "{}", r.stderr);
        assert!(!dir.exists());
    }
}

/// `--mcpgen-version V`: the crate depends on the published crates, this
/// version, and on nothing of a checkout: no path, no copied lock file.
/// A stdio server takes the runtime without its HTTP transport, an HTTP
/// one with it, an HTTP one behind `--auth jwt` with `oauth`; build.rs
/// takes the generator library without its command line.
/// (scripts/check-package.sh resolves such a crate against the packaged
/// crates.)
#[test]
fn mcpgen_version_gives_registry_dependencies() {
    let inline = |table: &str| format!("x = {table}").parse::<toml::Table>().unwrap()["x"].clone();
    let tmp = tempfile::tempdir().unwrap();
    let manifest = tmp.path().join("tools.json");
    std::fs::write(&manifest, ONE_TOOL).unwrap();
    for (name, extra, runtime) in [
        (
            "over-stdio",
            &[][..],
            r#"{ default-features = false, version = "0.3.1" }"#,
        ),
        (
            "over-http",
            &["--transport", "http"][..],
            r#"{ version = "0.3.1" }"#,
        ),
        (
            "with-jwt",
            &["--transport", "http", "--auth", "jwt"][..],
            r#"{ features = ["oauth"], version = "0.3.1" }"#,
        ),
    ] {
        let dir = tmp.path().join(name);
        let r = run(mcpgen(&tmp.path().join("cache"))
            .arg("new")
            .arg(&dir)
            .arg("--manifest")
            .arg(&manifest)
            .args(["--mcpgen-version", "0.3.1"])
            .args(extra));
        assert_eq!(r.code, 0, "{name}: {}", r.stderr);
        let text = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        let cargo: toml::Table = text
            .parse()
            .unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        assert_eq!(
            cargo["dependencies"]["mcpgen-runtime"],
            inline(runtime),
            "{name}: {text}"
        );
        assert_eq!(
            cargo["dependencies"][&format!("{name}-bindings")],
            inline(r#"{ path = "bindings" }"#),
            "{name}: {text}"
        );
        let bindings_text = std::fs::read_to_string(dir.join("bindings/Cargo.toml")).unwrap();
        let bindings: toml::Table = bindings_text.parse().unwrap();
        assert_eq!(
            bindings["dependencies"]["mcpgen-runtime"],
            inline(runtime),
            "{name}: {bindings_text}"
        );
        let generator = inline(r#"{ default-features = false, version = "0.3.1" }"#);
        assert_eq!(
            bindings["build-dependencies"]["mcpgen"], generator,
            "{name}: {bindings_text}"
        );
        // Only the bindings, a member of the crate's own workspace, by path.
        assert_eq!(text.matches("path =").count(), 1, "{name}: {text}");
        assert!(!bindings_text.contains("path ="), "{name}: {bindings_text}");
        assert!(
            !dir.join("Cargo.lock").exists(),
            "{name}: a checkout's lock file does not fit registry dependencies"
        );
    }
    // One source of the two crates: a path and a version together are refused.
    let r = run(mcpgen(&tmp.path().join("cache"))
        .arg("new")
        .arg(tmp.path().join("both"))
        .arg("--manifest")
        .arg(&manifest)
        .args(["--mcpgen-version", "0.3.1", "--mcpgen-path", "."]));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(!tmp.path().join("both").exists());
}

/// `--auth jwt`: an HTTP server whose bearer gate (JWT verifier and
/// protected resource metadata) comes from the environment. The scaffold
/// builds without warnings and passes its own tests, among them: no token →
/// 401 naming the metadata, no configuration → it refuses to start. The
/// manifest declares scopes (`x-mcpgen.scopes`), the metadata's
/// `scopes_supported`.
#[test]
fn jwt_scaffolds_require_bearer_tokens_configured_from_the_environment() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let manifest =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/notes-server/manifest.json");

    // Bearer tokens travel in HTTP headers: stdio is refused.
    let dir = tmp.path().join("jwt-stdio");
    let mut cmd = mcpgen(&cache);
    cmd.arg("new")
        .arg(&dir)
        .arg("--manifest")
        .arg(&manifest)
        .args(["--auth", "jwt"]);
    let r = run(&mut cmd);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("`--auth jwt` needs `--transport http`"),
        "{}",
        r.stderr
    );
    assert!(!dir.exists());

    let dir = tmp.path().join("notes-jwt");
    let mut cmd = mcpgen(&cache);
    cmd.arg("new")
        .arg(&dir)
        .arg("--manifest")
        .arg(&manifest)
        .args(["--transport", "http", "--auth", "jwt"]);
    let r = run(&mut cmd);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let main = std::fs::read_to_string(dir.join("src/main.rs")).unwrap();
    assert!(
        main.contains("BearerAuth::jwt_from_env(server::SCOPES_SUPPORTED)"),
        "{main}"
    );
    let cargo_toml = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(
        cargo_toml.contains("features = [\"oauth\"]"),
        "{cargo_toml}"
    );

    let output = cargo()
        .args(["test", "--offline", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .output()
        .expect("run cargo");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "cargo test of the jwt scaffold failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("test result: ok."), "{stdout}");
    assert!(
        !stderr.contains("warning:"),
        "builds without warnings:\n{stderr}"
    );
}

/// The tool types split by `mcpgen generate --tool-parts`, committed and
/// included by relative path as `docs/build-step.md` lays the crates out
/// (a shared crate, one per part, the bindings re-exporting them), build
/// and document without a warning: the fast release CLI and the split
/// together, for a catalog whose generated code is committed. The files
/// name no path of this machine.
#[test]
fn a_split_generated_by_the_command_line_builds_as_committed() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(dir) = shared_data(
        "manifests/real",
        "cli_new::a_split_generated_by_the_command_line_builds_as_committed",
    ) else {
        return;
    };
    let manifest = dir.join("chrome-devtools.json");
    let ws = tmp.path().join("catalog");
    let generated = ws.join("generated");
    let r = run(mcpgen(&tmp.path().join("cache"))
        .arg("generate")
        .arg("--manifest")
        .arg(&manifest)
        .arg("--out")
        .arg(&generated)
        .args(["--tool-parts", "2"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    for file in [
        "tools.rs",
        "tools_part_1.rs",
        "tools_part_2.rs",
        "server.rs",
    ] {
        let text = std::fs::read_to_string(generated.join(file)).unwrap();
        assert!(
            !text.contains(tmp.path().to_str().unwrap()),
            "{file} names a path of this machine"
        );
    }
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime");
    let runtime = format!(
        "mcpgen-runtime = {{ path = {:?} }}",
        runtime.to_str().unwrap()
    );
    let package = |name: &str, deps: &str| {
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\n{runtime}\n{deps}"
        )
    };
    let write = |path: &str, text: &str| {
        let path = ws.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "Cargo.toml",
        "[workspace]\nmembers = [\"shared\", \"part-1\", \"part-2\", \"bindings\"]\nresolver = \"2\"\n",
    );
    write("shared/Cargo.toml", &package("catalog-shared", ""));
    write(
        "shared/src/lib.rs",
        "//! The tool types the parts share.\n\n/// Tool input and output types shared by the parts.\npub mod tools {\n    include!(\"../../generated/tools.rs\");\n}\n",
    );
    for n in 1..=2 {
        write(
            &format!("part-{n}/Cargo.toml"),
            &package(
                &format!("catalog-part-{n}"),
                "catalog-shared = { path = \"../shared\" }\n",
            ),
        );
        write(
            &format!("part-{n}/src/lib.rs"),
            &format!("//! Part {n} of the tool types.\n\n#[allow(unused_imports)]\nuse catalog_shared::tools::*;\ninclude!(\"../../generated/tools_part_{n}.rs\");\n"),
        );
    }
    write(
        "bindings/Cargo.toml",
        &package(
            "catalog-bindings",
            "catalog-shared = { path = \"../shared\" }\ncatalog-part-1 = { path = \"../part-1\" }\ncatalog-part-2 = { path = \"../part-2\" }\n",
        ),
    );
    write(
        "bindings/src/lib.rs",
        r#"//! The bindings the server uses.

/// Protocol types of the MCP revision.
pub mod protocol {
    include!("../../generated/protocol.rs");
}
/// Tool input and output types, of every part.
pub mod tools {
    pub use catalog_part_1::*;
    pub use catalog_part_2::*;
    pub use catalog_shared::tools::*;
}
/// The server trait and router.
pub mod server {
    include!("../../generated/server.rs");
}
/// Typed client bindings.
pub mod client {
    include!("../../generated/client.rs");
}
"#,
    );
    let output = cargo()
        .args(["build", "--offline", "--quiet", "--manifest-path"])
        .arg(ws.join("Cargo.toml"))
        .arg("--workspace")
        .output()
        .expect("run cargo");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && !stderr.contains("warning:"),
        "{stderr}"
    );
    let doc = cargo_doc(&ws);
    assert!(
        doc.status.success(),
        "{}",
        String::from_utf8_lossy(&doc.stderr)
    );
    // Part 1 holds the first tool's input (`click`), part 2 the last
    // one's (`wait_for`).
    let read = |f: &str| std::fs::read_to_string(generated.join(f)).unwrap();
    assert!(read("tools_part_1.rs").contains("pub struct ClickInput"));
    assert!(read("tools_part_2.rs").contains("pub struct WaitForInput"));
    assert!(!read("tools.rs").contains("pub struct ClickInput"));
    // With the same options, `--check` finds the committed files fresh.
    let r = run(mcpgen(&tmp.path().join("cache"))
        .arg("generate")
        .arg("--manifest")
        .arg(&manifest)
        .arg("--out")
        .arg(&generated)
        .args(["--tool-parts", "2", "--check"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
}
