//! The `mcpgen` command line: a thin clap layer over the library (see
//! `cli` for the commands).

fn main() -> std::process::ExitCode {
    mcpgen::cli::main()
}
