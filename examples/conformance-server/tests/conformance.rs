//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! installed by `scripts/setup-peers.sh`) against this server over
//! Streamable HTTP, for the requirement sets of 2025-11-25 (stateful) and
//! 2026-07-28 (stateless). The expected-failures files beside the manifest
//! are the exact baseline (now empty: every required scenario passes); the
//! suite fails the run on any failure not listed there and on any listed
//! scenario that passes. Each run's
//! table (scenario, checks passed and failed) is written to
//! `<target>/conformance/<revision>.txt`, which `scripts/test.sh` prints.
//!
//! Under `CI=true` a missing suite fails the test; elsewhere it is skipped
//! with a message.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the server on a free loopback port with `args` besides;
/// returns it and its endpoint URL.
fn start(args: &[&str]) -> (Server, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_conformance-server"))
        .args(["--http", "127.0.0.1:0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start conformance-server");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        // Keeps draining stderr so the server never blocks on it.
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("MCP endpoint: ") {
                let _ = tx.send(url.to_owned());
            }
        }
    });
    let url = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the server prints its endpoint");
    (Server(child), url)
}

fn suite() -> Option<PathBuf> {
    let script = repo().join("tests/interop/peers/conformance.sh");
    let peers = std::env::var_os("MCPGEN_PEERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join(".peers"));
    let installed = peers
        .join("conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js")
        .is_file();
    if installed {
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

fn run(revision: &str) {
    let Some(script) = suite() else { return };
    let (_server, url) = start(&[]);
    let out = tempfile_dir(revision);
    let baseline =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("expected-failures/{revision}.yml"));
    let output = Command::new("bash")
        .arg(&script)
        .args(["server", "--url", &url, "--requirements", revision, "-o"])
        .arg(&out)
        .arg("--expected-failures")
        .arg(&baseline)
        .current_dir(&out)
        .output()
        .expect("run the conformance suite");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let table = Command::new("python3")
        .arg(repo().join("tests/interop/peers/conformance_table.py"))
        .arg(&out)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let summary = log
        .lines()
        .skip_while(|l| !l.contains("=== SUMMARY"))
        .collect::<Vec<_>>()
        .join("\n");
    // `conformance/` of the target directory (wherever CARGO_TARGET_DIR puts it).
    let report_dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).with_file_name("conformance");
    let _ = std::fs::create_dir_all(&report_dir);
    let _ = std::fs::write(
        report_dir.join(format!("{revision}.txt")),
        format!("{table}\n{summary}\n"),
    );
    assert!(
        output.status.success(),
        "conformance suite, requirements {revision}: {}\n{table}\n{log}",
        output.status
    );
    assert!(
        table.contains("tools-list"),
        "the suite ran no tools-list scenario:\n{table}\n{log}"
    );
}

/// A fresh directory for one run's results.
fn tempfile_dir(revision: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "mcpgen-conformance-{revision}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Scenarios no requirement set holds, each run alone for 2026-07-28 against
/// one server; every check they report must pass. The table goes to
/// `<target>/conformance/scenarios-2026-07-28.txt`.
const SCENARIOS: &[(&str, usize)] = &[
    ("json-schema-2020-12", 7),
    ("http-custom-header-server-validation", 9),
];

/// The ten scenarios of the tasks extension (`io.modelcontextprotocol/tasks`,
/// SEP-2663), with the least number of checks each reports. They are scored
/// as an extension, outside the spec timeline, so they run without
/// `--spec-version`. The suite itself skips `tasks-status-notifications`
/// (its harness is pending a rewrite for `subscriptions/listen`): its one
/// check is the only one allowed to be `SKIPPED`.
const TASK_SCENARIOS: &[(&str, usize)] = &[
    ("tasks-lifecycle", 9),
    ("tasks-capability-negotiation", 5),
    ("tasks-wire-fields", 4),
    ("tasks-request-state-removal", 3),
    ("tasks-mrtr-input", 4),
    ("tasks-request-headers", 5),
    ("tasks-dispatch-and-envelope", 9),
    ("tasks-status-notifications", 1),
    ("tasks-required-task-error", 3),
    ("tasks-mrtr-composition", 2),
];

/// Checks the suite skips by itself, by check id.
const SUITE_SKIPS: &[&str] = &["tasks-status-notifications"];

/// The three server scenarios of the Skills extension
/// (`io.modelcontextprotocol/skills`, SEP-2640), with their least number
/// of checks, against the server serving `skills/` of this example. Off
/// the spec timeline like the tasks scenarios, so they run at the suite's
/// own revision (2026-07-28, stateless).
const SKILL_SCENARIOS: &[(&str, usize)] = &[
    ("sep-2640-skills-enumeration", 31),
    ("sep-2640-skills-manifest", 5),
    ("sep-2640-skills-directory", 6),
];

fn run_scenarios(
    label: &str,
    scenarios: &[(&str, usize)],
    spec_version: Option<&str>,
    server_args: &[&str],
) {
    let Some(script) = suite() else { return };
    let (_server, url) = start(server_args);
    let out = tempfile_dir(label);
    let mut failures = Vec::new();
    for &(scenario, at_least) in scenarios {
        let dir = out.join(scenario);
        let mut command = Command::new("bash");
        command
            .arg(&script)
            .args(["server", "--url", &url, "--scenario", scenario]);
        if let Some(version) = spec_version {
            command.args(["--spec-version", version]);
        }
        let output = command
            .arg("-o")
            .arg(&dir)
            .current_dir(&out)
            .output()
            .expect("run the conformance suite");
        let checks = read_checks(&dir);
        let bad: Vec<String> = checks
            .iter()
            .filter(|c| {
                c["status"] != "SUCCESS"
                    && !(c["status"] == "SKIPPED" && SUITE_SKIPS.iter().any(|id| c["id"] == *id))
            })
            .map(|c| {
                format!(
                    "{} {} {}: {}",
                    c["status"], c["id"], c["name"], c["errorMessage"]
                )
            })
            .collect();
        if checks.len() < at_least || !bad.is_empty() {
            failures.push(format!(
                "{scenario}: {} checks, {} not passed:\n  {}\n{}{}",
                checks.len(),
                bad.len(),
                bad.join("\n  "),
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    let table = Command::new("python3")
        .arg(repo().join("tests/interop/peers/conformance_table.py"))
        .arg(&out)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    // `conformance/` of the target directory (wherever CARGO_TARGET_DIR puts it).
    let report_dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).with_file_name("conformance");
    let _ = std::fs::create_dir_all(&report_dir);
    let _ = std::fs::write(report_dir.join(format!("{label}.txt")), &table);
    assert!(failures.is_empty(), "{}\n{table}", failures.join("\n"));
}

/// Every check of the `checks.json` files under `dir`.
fn read_checks(dir: &Path) -> Vec<serde_json::Value> {
    let mut checks = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let file = entry.path().join("checks.json");
        if let Ok(text) = std::fs::read_to_string(&file) {
            let parsed: Vec<serde_json::Value> =
                serde_json::from_str(&text).expect("checks.json is a list of checks");
            checks.extend(parsed);
        }
    }
    checks
}

#[test]
fn requirements_2025_11_25() {
    run("2025-11-25");
}

#[test]
fn requirements_2026_07_28() {
    run("2026-07-28");
}

#[test]
fn scenarios_outside_the_requirement_sets_2026_07_28() {
    run_scenarios("scenarios-2026-07-28", SCENARIOS, Some("2026-07-28"), &[]);
}

#[test]
fn tasks_extension_scenarios() {
    run_scenarios("scenarios-tasks", TASK_SCENARIOS, None, &[]);
}

#[test]
fn skills_extension_scenarios() {
    let skills = repo().join("examples/conformance-server/skills");
    let skills = skills.to_str().expect("a UTF-8 path");
    run_scenarios(
        "scenarios-skills",
        SKILL_SCENARIOS,
        None,
        &["--skills", skills],
    );
}
