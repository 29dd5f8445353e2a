//! The same weather server generated for protocol revision 2025-06-18
//! (`build.rs` writes that revision's files to `$OUT_DIR/2025-06-18`): the
//! handler code of `weather.rs` compiles unchanged against the older
//! revision's types. Like every generated server it serves every revision
//! (each with its own rules: invalid arguments are a `-32602` error in a
//! 2025-06-18 session, a tool error from 2025-11-25).

#![deny(warnings)]

mcpgen_runtime::include_generated!(concat!(env!("OUT_DIR"), "/2025-06-18"));

#[path = "../app.rs"]
mod app;
#[path = "../weather.rs"]
mod weather;

fn main() -> std::process::ExitCode {
    app::main()
}
