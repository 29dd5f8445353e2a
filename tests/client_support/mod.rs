//! Shared by the client end-to-end tests: generating bindings with
//! `mcpgen::Builder`, and building a small driver crate that `include!`s
//! them (as a user crate would, under `#![deny(warnings)]`) with a nested
//! `cargo build` into the workspace's target directory.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

// A test with cli_support too loads it twice; each copy only reads.
#[allow(clippy::duplicate_mod)]
#[path = "../shared_data/mod.rs"]
pub(crate) mod shared_data;

/// The repository root.
pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace's target directory (parent of `CARGO_TARGET_TMPDIR`).
pub(crate) fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target/tmp has a parent")
        .to_path_buf()
}

/// The folder of the interop npm install (`MCPGEN_INTEROP_DIR`, else
/// `.interop/` of the repository).
pub(crate) fn interop_dir() -> PathBuf {
    std::env::var_os("MCPGEN_INTEROP_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join(".interop"))
}

/// Whether the tests must run (CI) rather than skip when a prerequisite
/// (node, the interop install) is missing.
pub(crate) fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// Skips (returns false) or, under CI, fails when `ok` is false.
pub(crate) fn prerequisite(ok: bool, what: &str) -> bool {
    if !ok {
        if required() {
            panic!("{what} is missing, and CI=true requires this test to run (run scripts/setup-interop.sh)");
        }
        eprintln!("SKIPPED: {what} is missing (run scripts/setup-interop.sh)");
    }
    ok
}

/// Generates protocol, tools and client bindings for a manifest into `out`.
pub(crate) fn generate(manifest: &Path, revision: &str, out: &Path) {
    let mut store = mcpgen::store::Store::from_env();
    store.mirror = Some(shared_data::mirror());
    mcpgen::Builder::new()
        .protocol(revision)
        .manifest(manifest)
        .server(false)
        .client(true)
        .out_dir(out)
        .cargo_directives(false)
        .store(store)
        .compile()
        .unwrap_or_else(|e| panic!("generating bindings for {}: {e}", manifest.display()));
}

/// Writes a driver crate `name` whose `src/main.rs` is `main_rs` after an
/// `include_generated!` of `generated`, builds it (`release` or debug) and
/// returns the binary's path.
pub(crate) fn build_driver(name: &str, generated: &Path, main_rs: &str, release: bool) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("client-drivers")
        .join(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let runtime = root().join("runtime");
    let manifest = format!(
        r#"[package]
name = "{name}"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
mcpgen-runtime = {{ path = {runtime:?} }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = {{ version = "1", features = ["preserve_order"] }}
tokio = {{ version = "1", features = ["rt-multi-thread", "macros", "io-std", "io-util", "process", "sync", "time"] }}

[workspace]
"#
    );
    write_if_changed(&dir.join("Cargo.toml"), &manifest);
    // The workspace's lock file pins the same versions (and lets --offline work).
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap_or_default();
    if !lock.is_empty() {
        write_if_changed(&dir.join("Cargo.lock"), &lock);
    }
    let main = format!(
        "#![deny(warnings)]\n#![allow(dead_code)]\n\nmcpgen_runtime::include_generated!({:?});\n\n{main_rs}",
        generated.display().to_string()
    );
    write_if_changed(&dir.join("src/main.rs"), &main);
    let mut cmd = Command::new(env!("CARGO"));
    cmd.arg("build")
        .arg("--quiet")
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"));
    if release {
        cmd.arg("--release");
    }
    // The repository's .cargo/config.toml (found from the test's working
    // directory) gives the driver the workspace's profile, so it reuses the
    // workspace's dependency artifacts.
    cmd.env("CARGO_TARGET_DIR", target_dir());
    let out = cmd.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "driver crate {name} does not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    target_dir()
        .join(if release { "release" } else { "debug" })
        .join(name)
}

fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).unwrap();
    }
}

/// Builds a binary of a workspace package and returns its path.
pub(crate) fn workspace_bin(package: &str, bin: &str, release: bool) -> PathBuf {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(root())
        .args(["build", "--quiet", "-p", package, "--bin", bin]);
    if release {
        cmd.arg("--release");
    }
    let out = cmd.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "cannot build {package}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    target_dir()
        .join(if release { "release" } else { "debug" })
        .join(bin)
}

/// Runs a driver binary with arguments; returns stdout, failing with the
/// driver's output when it exits non-zero.
pub(crate) fn run(bin: &Path, args: &[&str]) -> String {
    let out = Command::new(bin).args(args).output().expect("driver runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{} failed ({}):\nstdout:\n{stdout}\nstderr:\n{}",
        bin.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// A server process on an ephemeral loopback port; killed when dropped.
pub(crate) struct HttpServer(Child);

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts workspace binary `bin` of `package` with `--http 127.0.0.1:0`
/// and returns it with the endpoint it prints (`MCP endpoint: URL`).
pub(crate) fn http_server(package: &str, bin: &str) -> (HttpServer, String) {
    let bin = workspace_bin(package, bin, false);
    let mut child = Command::new(&bin)
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start {}: {e}", bin.display()));
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    // Reads stderr to its end, so the server never blocks on a full pipe.
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.split("MCP endpoint: ").nth(1) {
                let _ = tx.send(url.trim().to_owned());
            }
        }
    });
    let url = rx
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{} prints its endpoint on stderr", bin.display()));
    (HttpServer(child), url)
}
