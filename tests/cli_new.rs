//! `mcpgen new` end to end: scaffold a server crate from the shared stitch
//! manifest into a temporary directory, then build it and run its own
//! tests offline, reusing the workspace's target directory (so the
//! dependencies are not built again).

mod cli_support;

use std::path::PathBuf;
use std::process::Command;

use cli_support::*;

fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(t) if !t.is_empty() => PathBuf::from(t),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"),
    }
}

#[test]
fn scaffolded_crate_builds_and_passes_its_own_tests() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("stitch-server");
    let r = run(mcpgen(&tmp.path().join("cache"))
        .args(["new"])
        .arg(&dir)
        .arg("--manifest")
        .arg(shared().join("manifests/stitch.json")));
    assert_eq!(r.code, 0, "{}", r.stderr);
    for f in ["Cargo.toml", "Cargo.lock", "build.rs", "src/main.rs", "tests/tools_list.rs", "README.md", "stitch.json"] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }

    // Refuses to scaffold over it again.
    let again = run(mcpgen(&tmp.path().join("cache"))
        .args(["new"])
        .arg(&dir)
        .arg("--manifest")
        .arg(shared().join("manifests/stitch.json")));
    assert_eq!(again.code, 1);
    assert!(again.stderr.contains("already exists"), "{}", again.stderr);

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["test", "--offline", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        // From the repository, so its .cargo/config.toml gives the crate the
        // workspace's profile and the dependencies are reused, not rebuilt.
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CARGO_TARGET_DIR", target_dir())
        .env("MCPGEN_SCHEMA_MIRROR", mirror())
        .env("MCPGEN_OFFLINE", "1")
        .output()
        .expect("run cargo");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "cargo test of the scaffolded crate failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("test result: ok. 2 passed"), "{stdout}");
    assert!(!stderr.contains("warning:"), "the scaffolded crate builds without warnings:\n{stderr}");
}
