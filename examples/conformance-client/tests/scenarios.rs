//! The official MCP conformance suite's client requirement sets against
//! this generated client: `tests/interop/peers/conformance.sh client
//! --requirements REV --command "conformance-client"` for 2025-11-25 and
//! 2026-07-28. Every scenario the suite lists as required for a revision
//! (`list --requirements REV`) must pass every check, without warnings.
//! The scenarios the suite runs but never scores (extensions: client
//! credentials, DPoP, enterprise-managed authorization, ...) and the
//! 2025-03-26 authorization back-compat scenarios are reported, not
//! required. The table of all runs is written to
//! `<target>/conformance/client.txt`, which `scripts/test.sh` prints.
//!
//! Under `CI=true` a missing suite fails the test; elsewhere it is skipped
//! with a message.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The requirement sets, by revision.
const REQUIREMENTS: &[&str] = &["2025-11-25", "2026-07-28"];

/// Extension scenarios this client implements, at the revision where
/// every one of their checks runs (none skipped), or at the suite's own
/// (`None`: scenarios off the specification's timeline, which the suite
/// runs only without `--spec-version`): each must pass every check.
const EXTENSIONS: &[(&str, Option<&str>)] = &[
    ("json-schema-2020-12-preservation", Some("2026-07-28")),
    ("auth/client-credentials-basic", None),
    ("auth/client-credentials-jwt", None),
    ("auth/wif-jwt-bearer", None),
    ("auth/enterprise-managed-authorization", None),
    ("auth/dpop", None),
    ("auth/dpop-nonce", None),
    ("sep-2640-client-no-prefetch", None),
    ("sep-2640-client-verify-digest", None),
    ("sep-2640-client-verify-size", None),
    ("sep-2640-client-verify-frontmatter", None),
];

/// Scenarios outside the requirement sets run at their own revision and
/// reported only.
const BACK_COMPAT: &[(&str, &str)] = &[
    ("auth/2025-03-26-oauth-metadata-backcompat", "2025-03-26"),
    ("auth/2025-03-26-oauth-endpoint-fallback", "2025-03-26"),
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn suite() -> Option<PathBuf> {
    let script = repo().join("tests/interop/peers/conformance.sh");
    let peers = std::env::var_os("MCPGEN_PEERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join(".peers"));
    if peers
        .join("conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js")
        .is_file()
    {
        return Some(script);
    }
    let message = format!(
        "the conformance suite is not installed in {}; run: bash scripts/setup-peers.sh",
        peers.display()
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{message}");
    }
    eprintln!("skipping: {message}");
    None
}

/// One scenario's summary row from `conformance_table.py --json`.
#[derive(Debug)]
struct Row {
    scenario: String,
    passed: u64,
    failed: u64,
    warnings: u64,
    skipped: u64,
    not_passing: String,
}

/// The client scenarios the suite requires for `revision`, from its own
/// `list --requirements` output.
fn required(script: &Path, revision: &str) -> BTreeSet<String> {
    let output = Command::new("bash")
        .arg(script)
        .args(["list", "--requirements", revision])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    let mut out = BTreeSet::new();
    let mut in_client = false;
    for line in text.lines() {
        if line.starts_with("Client scenarios") {
            in_client = true;
        } else if in_client {
            match line.trim().strip_prefix("- ") {
                Some(name) => {
                    out.insert(name.trim().to_owned());
                }
                None if line.trim().is_empty() => break,
                None => {}
            }
        }
    }
    assert!(
        !out.is_empty(),
        "`list --requirements {revision}` named no client scenarios:\n{text}"
    );
    out
}

/// Runs the suite with `args` into `out`; returns its rows and its output.
fn run(script: &Path, args: &[&str], out: &Path) -> (Vec<Row>, String) {
    let client = env!("CARGO_BIN_EXE_conformance-client");
    let output = Command::new("bash")
        .arg(script)
        .arg("client")
        .args(args)
        .args(["--command", client, "-o"])
        .arg(out)
        .current_dir(out)
        .output()
        .expect("run the conformance suite");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let table = Command::new("python3")
        .arg(repo().join("tests/interop/peers/conformance_table.py"))
        .arg(out)
        .arg("--json")
        .output()
        .expect("run conformance_table.py");
    let rows = String::from_utf8_lossy(&table.stdout)
        .lines()
        .map(|line| {
            let row: serde_json::Value = serde_json::from_str(line).expect("a JSON row");
            let count = |key: &str| row[key].as_u64().unwrap_or(0);
            Row {
                scenario: row["scenario"].as_str().unwrap_or("").to_owned(),
                passed: count("passed"),
                failed: count("failed"),
                warnings: count("warnings"),
                skipped: count("skipped"),
                not_passing: row["not_passing"].to_string(),
            }
        })
        .collect();
    (rows, log)
}

/// Runs one scenario at `revision` into a fresh directory.
fn run_scenario(script: &Path, scenario: &str, revision: Option<&str>) -> (Vec<Row>, String) {
    let out = results_dir(scenario);
    let mut args = vec!["--scenario", scenario];
    if let Some(revision) = revision {
        args.extend(["--spec-version", revision]);
    }
    run(script, &args, &out)
}

/// A fresh directory for one run's results.
fn results_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("mcpgen-conformance-client-{}", std::process::id()))
        .join(name.replace('/', "_"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn table_line(row: &Row, set: &str, note: &str) -> String {
    format!(
        "{:<44}  {:<10}  {:>6}  {:>6}  {:>8}  {note}\n",
        row.scenario, set, row.passed, row.failed, row.warnings
    )
}

#[test]
fn client_requirement_sets_pass_every_check() {
    let Some(script) = suite() else { return };
    let mut table = format!(
        "{:<44}  {:<10}  passed  failed  warnings\n",
        "scenario", "set"
    );
    let mut problems = Vec::new();
    let mut totals = Vec::new();
    for revision in REQUIREMENTS {
        let wanted = required(&script, revision);
        let out = results_dir(&format!("requirements-{revision}"));
        let (rows, log) = run(&script, &["--requirements", revision], &out);
        let mut passing = 0;
        for scenario in &wanted {
            let Some(row) = rows.iter().find(|r| &r.scenario == scenario) else {
                problems.push(format!("{scenario} ({revision}): no results"));
                continue;
            };
            table.push_str(&table_line(row, revision, ""));
            if row.failed > 0 || row.warnings > 0 || row.passed == 0 {
                problems.push(format!(
                    "{scenario} ({revision}): {} passed, {} failed, {} warnings: {}",
                    row.passed, row.failed, row.warnings, row.not_passing
                ));
            } else {
                passing += 1;
            }
        }
        for row in rows.iter().filter(|r| !wanted.contains(&r.scenario)) {
            table.push_str(&table_line(row, revision, "(not scored by the suite)"));
        }
        totals.push(format!(
            "{revision}: {passing}/{} required scenarios pass",
            wanted.len()
        ));
        if problems.iter().any(|p| p.contains(revision)) {
            problems.push(format!("suite output for {revision}:\n{log}"));
        }
    }
    for (scenario, revision) in EXTENSIONS {
        let (rows, log) = run_scenario(&script, scenario, *revision);
        let revision = revision.unwrap_or("suite's");
        let Some(row) = rows.iter().find(|r| r.scenario == *scenario) else {
            problems.push(format!("{scenario} ({revision}): no results\n{log}"));
            continue;
        };
        table.push_str(&table_line(row, revision, "(extension)"));
        if row.failed > 0 || row.warnings > 0 || row.skipped > 0 || row.passed == 0 {
            problems.push(format!(
                "{scenario} ({revision}): {} passed, {} failed, {} warnings, {} skipped: {}\n{log}",
                row.passed, row.failed, row.warnings, row.skipped, row.not_passing
            ));
        }
    }
    for (scenario, revision) in BACK_COMPAT {
        let (rows, _) = run_scenario(&script, scenario, Some(revision));
        for row in rows.iter().filter(|r| r.scenario == *scenario) {
            table.push_str(&table_line(row, revision, "(back-compat, not required)"));
        }
    }
    table.push_str(&format!("\n{}\n", totals.join("\n")));
    // `conformance/` of the target directory (wherever CARGO_TARGET_DIR puts it).
    let report = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).with_file_name("conformance");
    let _ = std::fs::create_dir_all(&report);
    let _ = std::fs::write(report.join("client.txt"), &table);
    println!("{table}");
    assert!(problems.is_empty(), "{table}\n{}", problems.join("\n\n"));
}
