//! The `mcpgen` command line: a thin clap layer over the library.

fn main() {
    eprintln!("mcpgen: not wired yet");
    std::process::exit(2);
}
