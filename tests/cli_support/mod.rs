//! Shared helpers of the `cli_*` tests (a module, not a test target).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared")
}

pub(crate) fn mirror() -> PathBuf {
    match std::env::var_os("MCPGEN_SCHEMA_MIRROR") {
        Some(m) if !m.is_empty() => PathBuf::from(m),
        _ => shared().join("mcp-spec"),
    }
}

/// The `mcpgen` binary, offline, reading schemas from the mirror and
/// caching into `cache` (a temporary directory of the test).
pub(crate) fn mcpgen(cache: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpgen"));
    cmd.env("MCPGEN_SCHEMA_MIRROR", mirror()).env("MCPGEN_SCHEMA_CACHE", cache).env("MCPGEN_OFFLINE", "1");
    cmd
}

pub(crate) struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub(crate) fn run(cmd: &mut Command) -> Run {
    let Output { status, stdout, stderr } = cmd.output().expect("run mcpgen");
    Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
}
