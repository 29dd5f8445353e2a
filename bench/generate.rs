//! Time to generate the protocol types of each pinned revision: resolve
//! (schema read from the mirror and sha256-verified) + lower to the IR +
//! codegen + prettyplease formatting. Prints a per-phase breakdown first,
//! then criterion's figures. Target: under 300 ms per revision in release.
//!
//! `cargo bench -p mcpgen --bench generate` (uses `MCPGEN_SCHEMA_MIRROR`,
//! else `../shared/mcp-spec`).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use mcpgen::codegen;
use mcpgen::emit::{self, Header};
use mcpgen::spec::Spec;
use mcpgen::store::{self, Store};

fn store(cache: &Path) -> Store {
    let mirror = match std::env::var_os("MCPGEN_SCHEMA_MIRROR") {
        Some(m) if !m.is_empty() => PathBuf::from(m),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/mcp-spec"),
    };
    Store {
        cache_dir: cache.to_path_buf(),
        mirror: Some(mirror),
        fetch: None,
    }
}

/// One full generation; returns the formatted length so nothing is
/// optimised away.
fn generate(store: &Store, revision: &str) -> usize {
    let schema = store.resolve(revision, None).expect("schema resolves");
    let spec = Spec::from_json(&schema.json, revision).expect("schema lowers");
    let tokens = codegen::protocol::generate(&spec).expect("protocol generates");
    let header = Header::new().input(format!(
        "protocol revision {revision} (schema sha256 {})",
        schema.sha256
    ));
    emit::format(tokens, &header).expect("output formats").len()
}

fn phases(store: &Store, revision: &str) {
    const RUNS: u32 = 5;
    let mut t = [Duration::ZERO; 4];
    let mut size = 0;
    for _ in 0..RUNS {
        let start = Instant::now();
        let schema = store.resolve(revision, None).expect("schema resolves");
        let resolved = Instant::now();
        let spec = Spec::from_json(&schema.json, revision).expect("schema lowers");
        let lowered = Instant::now();
        let tokens = codegen::protocol::generate(&spec).expect("protocol generates");
        let generated = Instant::now();
        size = emit::format(tokens, &Header::new())
            .expect("output formats")
            .len();
        let formatted = Instant::now();
        t[0] += resolved - start;
        t[1] += lowered - resolved;
        t[2] += generated - lowered;
        t[3] += formatted - generated;
    }
    let ms = |d: Duration| d.as_secs_f64() * 1000.0 / f64::from(RUNS);
    println!(
        "{revision}: resolve {:6.1} ms  lower {:6.1} ms  codegen {:6.1} ms  format {:6.1} ms  total {:6.1} ms  ({} KiB of Rust)",
        ms(t[0]),
        ms(t[1]),
        ms(t[2]),
        ms(t[3]),
        ms(t[0] + t[1] + t[2] + t[3]),
        size / 1024
    );
}

fn bench(c: &mut Criterion) {
    let cache = tempfile::tempdir().expect("temporary cache dir");
    let store = store(cache.path());
    println!("phase breakdown (mean of 5 runs):");
    for revision in store::known_revisions() {
        phases(&store, revision);
    }
    let mut group = c.benchmark_group("generate");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for revision in store::known_revisions() {
        group.bench_function(revision, |b| {
            b.iter(|| black_box(generate(&store, black_box(revision))))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
