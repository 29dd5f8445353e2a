//! How well `search_tools` finds the right tool among real ones: the
//! catalog of every tool of `../shared/manifests/` and
//! `../shared/manifests/real/` (files by name; a name met again gets `_2`,
//! `_3`, …; the rule `bench/search/fastmcp_bm25.py` follows too), and the
//! tasks of `bench/search/`: a request a person would give an agent and
//! the tool that does it. Recall@5 (the right tool among the first five)
//! and mean reciprocal rank (within the first 50) for the development
//! set and the held-out set; the floors below keep a regression from
//! passing. The held-out set judges, it is never tuned on.
//!
//! `cargo test -p mcpgen-runtime --test tool_search_quality -- --nocapture`
//! prints the figures and, with `SEARCH_VERBOSE=1`, every miss.

#[path = "../../tests/shared_data/data.rs"]
mod data;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mcpgen_runtime::server::search::SearchIndex;
use serde_json::Value;

/// The catalog by the rule above.
fn catalog(shared: &Path) -> Vec<Value> {
    let mut files = Vec::new();
    for dir in [shared.join("manifests"), shared.join("manifests/real")] {
        let mut here: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        here.sort();
        files.extend(here);
    }
    let mut taken = BTreeSet::new();
    let mut tools = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let manifest: Value = serde_json::from_str(&text).unwrap();
        for tool in manifest["tools"].as_array().into_iter().flatten() {
            let mut tool = tool.clone();
            let name = tool["name"].as_str().unwrap().to_owned();
            let mut unique = name.clone();
            let mut n = 2;
            while !taken.insert(unique.clone()) {
                unique = format!("{name}_{n}");
                n += 1;
            }
            tool["name"] = Value::from(unique);
            tools.push(tool);
        }
    }
    tools
}

/// Recall@5 and MRR of `tasks` (path under `bench/search/`).
fn measure(index: &SearchIndex, tools: &[Value], tasks: &str) -> (usize, f64, f64) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bench/search")
        .join(tasks);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let tasks: Vec<Value> = serde_json::from_str(&text).unwrap();
    let verbose = std::env::var_os("SEARCH_VERBOSE").is_some();
    let (mut hits, mut reciprocal) = (0usize, 0.0f64);
    for task in &tasks {
        let (query, wanted) = (
            task["task"].as_str().unwrap(),
            task["tool"].as_str().unwrap(),
        );
        assert!(
            tools.iter().any(|t| t["name"] == wanted),
            "{}: no tool {wanted} in the catalog",
            path.display()
        );
        let found = index.search(query, 50, |_| true);
        let rank = found
            .iter()
            .position(|&(at, _)| tools[at]["name"] == wanted)
            .map(|r| r + 1);
        if rank.is_some_and(|r| r <= 5) {
            hits += 1;
        } else if verbose {
            let top: Vec<&str> = found
                .iter()
                .take(5)
                .map(|&(at, _)| tools[at]["name"].as_str().unwrap())
                .collect();
            eprintln!("miss ({rank:?}) {wanted}: {query:?} -> {top:?}");
        }
        reciprocal += rank.map_or(0.0, |r| 1.0 / r as f64);
    }
    let n = tasks.len();
    (n, hits as f64 / n as f64, reciprocal / n as f64)
}

#[test]
fn the_right_tool_is_among_the_first_five_for_most_tasks() {
    let Some(shared) = data::shared_data(
        "manifests/real",
        "tool_search_quality::the_right_tool_is_among_the_first_five_for_most_tasks",
    ) else {
        return;
    };
    let tools = catalog(shared.parent().unwrap().parent().unwrap());
    assert!(tools.len() > 300, "{} tools", tools.len());
    let index = SearchIndex::build(&tools);
    let (dev_n, dev_recall, dev_mrr) = measure(&index, &tools, "tasks.json");
    let (held_n, held_recall, held_mrr) = measure(&index, &tools, "held_out.json");
    eprintln!("catalog: {} tools", tools.len());
    eprintln!("development: {dev_n} tasks, recall@5 {dev_recall:.3}, MRR {dev_mrr:.3}");
    eprintln!("held out:    {held_n} tasks, recall@5 {held_recall:.3}, MRR {held_mrr:.3}");
    assert!(dev_n >= 80 && held_n >= 40, "{dev_n} and {held_n} tasks");
    assert!(dev_recall >= 0.78, "development recall@5 {dev_recall:.3}");
    assert!(dev_mrr >= 0.60, "development MRR {dev_mrr:.3}");
    assert!(held_recall >= 0.78, "held-out recall@5 {held_recall:.3}");
}
