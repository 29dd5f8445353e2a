//! The same weather server generated for protocol revision 2025-06-18
//! (`build.rs` writes that revision's files to `$OUT_DIR/2025-06-18`): the
//! handler code of `weather.rs` compiles unchanged against the older
//! revision's types. It accepts 2025-06-18 and older in `initialize` and
//! answers invalid arguments with a `-32602` error, as that revision says.

#![deny(warnings)]

mcpgen_runtime::include_generated!(concat!(env!("OUT_DIR"), "/2025-06-18"));

#[path = "../app.rs"]
mod app;
#[path = "../weather.rs"]
mod weather;

fn main() -> std::process::ExitCode {
    app::main()
}
