//! The `mcpgen` command line: a thin clap layer over the library (see
//! `cli` for the commands).

/// Generating allocates many small token trees; mimalloc frees them at a
/// fraction of glibc's cost (see `docs/performance.md`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    mcpgen::cli::main()
}
