//! The `mcpgen` command line: a thin clap layer over the library (see
//! `cli` for the commands).

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
