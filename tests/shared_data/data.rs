//! What only `../shared` beside the repository has (the
//! JSON-Schema-Test-Suite, real server manifests, the specification's
//! examples), for tests in every package of the workspace. Outside CI it
//! is optional: [`shared_data`] records a test whose data is missing as
//! skipped (a line on stderr and one in `<target>/skipped/`, which
//! `scripts/test.sh` prints as one summary line) and the test returns
//! early; under `CI=true` a missing file fails the test.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared` beside the repository (the workspace root is the first
/// folder above the package that holds `Cargo.lock`).
pub(crate) fn shared() -> PathBuf {
    let package = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = package
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .unwrap_or(package);
    root.join("../shared")
}

/// Whether the tests run under CI (`CI` set to anything but empty, `0` or
/// `false`), where nothing may skip.
pub(crate) fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// `../shared/<relative>` when it exists. When it does not: under CI a
/// panic naming it; elsewhere `None`, after `test` (the test's name) is
/// recorded as skipped with the reason.
pub(crate) fn shared_data(relative: &str, test: &str) -> Option<PathBuf> {
    let path = shared().join(relative);
    if path.exists() {
        return Some(path);
    }
    let reason = format!("needs ../shared/{relative}, which is not beside the repository");
    if ci() {
        panic!("{test} {reason}, and CI=true requires it (put the shared data next to the clone)");
    }
    skip(test, &reason);
    None
}

/// Records `test` as skipped: a line on stderr and the file
/// `<target>/skipped/<test>.txt` holding `test (reason)`.
pub(crate) fn skip(test: &str, reason: &str) {
    eprintln!("SKIPPED {test}: {reason}");
    let Some(dir) = target_dir().map(|t| t.join("skipped")) else {
        return;
    };
    let file: String = test
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(
        dir.join(format!("{file}.txt")),
        format!("{test} ({reason})\n"),
    );
}

/// The target directory: the parent of `CARGO_TARGET_TMPDIR` for
/// integration tests, else three levels above the test binary
/// (`<target>/debug/deps/<binary>`).
fn target_dir() -> Option<PathBuf> {
    if let Some(tmp) = option_env!("CARGO_TARGET_TMPDIR") {
        return Path::new(tmp).parent().map(Path::to_path_buf);
    }
    let exe = std::env::current_exe().ok()?;
    exe.ancestors().nth(3).map(Path::to_path_buf)
}
