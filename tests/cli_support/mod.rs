//! Shared helpers of the `cli_*` tests (a module, not a test target).

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

#[path = "../shared_data/mod.rs"]
pub(crate) mod shared_data;
#[allow(unused_imports)] // not every test uses every helper
pub(crate) use shared_data::{mirror, schema_file, shared, shared_data};

/// The `mcpgen` binary, offline, reading schemas from the mirror and
/// caching into `cache` (a temporary directory of the test).
pub(crate) fn mcpgen(cache: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpgen"));
    cmd.env("MCPGEN_SCHEMA_MIRROR", mirror())
        .env("MCPGEN_SCHEMA_CACHE", cache)
        .env("MCPGEN_OFFLINE", "1");
    cmd
}

pub(crate) struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub(crate) fn run(cmd: &mut Command) -> Run {
    let Output {
        status,
        stdout,
        stderr,
    } = cmd.output().expect("run mcpgen");
    Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
}
