//! The official MCP conformance suite's client scenarios that need no OAuth
//! (`tests/interop/peers/conformance.sh client --scenario NAME
//! --spec-version REV --command "conformance-client"`) against this
//! generated client, at every revision the suite runs each one for:
//! `tools_call` at 2025-11-25 and 2026-07-28, the others (introduced in
//! 2026-07-28) at 2026-07-28. Every check of every scenario must pass
//! (warnings fail too). The table of all runs (scenario, checks passed,
//! failed, warnings) is written to `target/conformance/client.txt`, which
//! `scripts/test.sh` prints.
//!
//! Under `CI=true` a missing suite fails the test; elsewhere it is skipped
//! with a message.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Every scenario with the revisions the suite runs it at.
const SCENARIOS: &[(&str, &[&str])] = &[
    ("tools_call", &["2025-11-25", "2026-07-28"]),
    ("request-metadata", &["2026-07-28"]),
    ("http-standard-headers", &["2026-07-28"]),
    ("http-custom-headers", &["2026-07-28"]),
    ("http-invalid-tool-headers", &["2026-07-28"]),
    ("json-schema-ref-no-deref", &["2026-07-28"]),
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn suite() -> Option<PathBuf> {
    let script = repo().join("tests/interop/peers/conformance.sh");
    let peers = std::env::var_os("MCPGEN_PEERS_DIR").map(PathBuf::from).unwrap_or_else(|| repo().join(".peers"));
    if peers.join("conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js").is_file() {
        return Some(script);
    }
    let message = format!("the conformance suite is not installed in {}; run: bash scripts/setup-peers.sh", peers.display());
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
    not_passing: String,
}

/// Runs one scenario at one revision into `out`; returns its rows and the
/// suite's output.
fn run(script: &Path, scenario: &str, revision: &str, out: &Path) -> (bool, Vec<Row>, String) {
    let client = env!("CARGO_BIN_EXE_conformance-client");
    let output = Command::new("bash")
        .arg(script)
        .args(["client", "--scenario", scenario, "--spec-version", revision, "--command", client, "-o"])
        .arg(out)
        .current_dir(out)
        .output()
        .expect("run the conformance suite");
    let log = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
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
                not_passing: row["not_passing"].to_string(),
            }
        })
        .collect();
    (output.status.success(), rows, log)
}

/// A fresh directory for one run's results.
fn results_dir(scenario: &str, revision: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("mcpgen-conformance-client-{}", std::process::id()))
        .join(format!("{scenario}-{revision}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn client_scenarios_pass_every_check() {
    let Some(script) = suite() else { return };
    let mut table = format!("{:<28}  {:<10}  passed  failed  warnings\n", "scenario", "revision");
    let mut problems = Vec::new();
    for (scenario, revisions) in SCENARIOS {
        for revision in *revisions {
            let out = results_dir(scenario, revision);
            let (ok, rows, log) = run(&script, scenario, revision, &out);
            let Some(row) = rows.iter().find(|r| r.scenario == *scenario) else {
                problems.push(format!("{scenario} at {revision}: no results\n{log}"));
                continue;
            };
            table.push_str(&format!(
                "{:<28}  {:<10}  {:>6}  {:>6}  {:>8}\n",
                row.scenario, revision, row.passed, row.failed, row.warnings
            ));
            if !ok || row.failed > 0 || row.warnings > 0 || row.passed == 0 {
                problems.push(format!(
                    "{scenario} at {revision}: exit ok {ok}, {} passed, {} failed, {} warnings: {}\n{log}",
                    row.passed, row.failed, row.warnings, row.not_passing
                ));
            }
        }
    }
    let report = repo().join("target/conformance");
    let _ = std::fs::create_dir_all(&report);
    let _ = std::fs::write(report.join("client.txt"), &table);
    assert!(problems.is_empty(), "{table}\n{}", problems.join("\n\n"));
}
