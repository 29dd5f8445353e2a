//! The official JSON-Schema-Test-Suite against mcpgen's own validator: every
//! required test of drafts 4, 6, 7, 2019-09 and 2020-12, and the optional
//! `format` tests of every format the validator asserts, each of which must
//! pass. The suite is read from `../shared/json-schema-test-suite/` beside
//! the repository (never copied into it); without it the test says so and
//! passes, except under `CI=true`, where a missing suite fails.
//!
//! The suite's `remotes/` folder is served to the validator in memory, as
//! preloaded documents under `http://localhost:1234/`, the base the suite
//! gives them: the validator never fetches anything, so the `refRemote`
//! tests run like every other one.

use std::path::{Path, PathBuf};

use mcpgen_runtime::schema::{Draft, Schema};
use serde_json::Value;

/// The five drafts: their folder in the suite and their dialect.
const DRAFTS: [(&str, Draft); 5] = [
    ("draft4", Draft::Draft4),
    ("draft6", Draft::Draft6),
    ("draft7", Draft::Draft7),
    ("draft2019-09", Draft::Draft201909),
    ("draft2020-12", Draft::Draft202012),
];

/// The formats the validator asserts (each has an optional test file).
const FORMATS: [&str; 19] = [
    "date",
    "date-time",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uri-template",
    "uuid",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

#[path = "../../tests/shared_data/data.rs"]
mod shared_data;

/// `../shared/json-schema-test-suite`, or `None` when the test skips.
fn suite() -> Option<PathBuf> {
    shared_data::shared_data(
        "json-schema-test-suite/tests",
        "json_schema_suite::the_official_json_schema_test_suite_passes",
    )
    .and_then(|tests| tests.parent().map(Path::to_path_buf))
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `.json` files of `dir`, sorted.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// Every file under `dir` with its path relative to `dir` (`/`-separated).
fn walk(dir: &Path, prefix: &str, out: &mut Vec<(String, PathBuf)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        if path.is_dir() {
            walk(&path, &format!("{prefix}{name}/"), out);
        } else if name.ends_with(".json") {
            out.push((format!("{prefix}{name}"), path));
        }
    }
}

/// Passed and failed tests of some files, with the failures described.
#[derive(Default)]
struct Tally {
    passed: usize,
    total: usize,
    failures: Vec<String>,
}

impl Tally {
    fn run(
        &mut self,
        file: &Path,
        draft: Draft,
        formats: Option<bool>,
        remotes: &[(String, Value)],
    ) {
        let name = file
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        let Value::Array(groups) = read(file) else {
            panic!("{}: not a list of test groups", file.display());
        };
        for group in &groups {
            let schema = &group["schema"];
            let mut options = Schema::options(draft);
            if let Some(assert) = formats {
                options = options.formats(assert);
            }
            for (uri, doc) in remotes {
                options = options.document(uri, doc.clone());
            }
            let compiled = options.compile(schema);
            for test in group["tests"].as_array().expect("tests") {
                self.total += 1;
                let want = test["valid"].as_bool().expect("valid");
                let what = format!(
                    "{name}: {} / {}",
                    group["description"].as_str().unwrap_or("?"),
                    test["description"].as_str().unwrap_or("?")
                );
                match &compiled {
                    Ok(s) => {
                        let got = s.is_valid(&test["data"]);
                        let reported = s.errors(&test["data"]).is_empty();
                        if got == want && reported == want {
                            self.passed += 1;
                        } else {
                            self.failures.push(format!(
                                "{what}: expected {}, is_valid {got}, errors {:?}",
                                if want { "valid" } else { "invalid" },
                                s.errors(&test["data"])
                            ));
                        }
                    }
                    Err(e) => self
                        .failures
                        .push(format!("{what}: does not compile: {e:?}")),
                }
            }
        }
    }
}

#[test]
fn the_official_json_schema_test_suite_passes() {
    let Some(dir) = suite() else {
        return;
    };
    let mut remote_files = Vec::new();
    walk(&dir.join("remotes"), "", &mut remote_files);
    let remotes: Vec<(String, Value)> = remote_files
        .iter()
        .map(|(rel, path)| (format!("http://localhost:1234/{rel}"), read(path)))
        .collect();
    let mut failed = Vec::new();
    let (mut passed, mut total) = (0, 0);
    for (folder, draft) in DRAFTS {
        let mut required = Tally::default();
        for file in json_files(&dir.join("tests").join(folder)) {
            required.run(&file, draft, None, &remotes);
        }
        let mut formats = Tally::default();
        let format_dir = dir.join("tests").join(folder).join("optional/format");
        for name in FORMATS {
            let file = format_dir.join(format!("{name}.json"));
            if file.exists() {
                formats.run(&file, draft, Some(true), &remotes);
            }
        }
        println!(
            "{folder}: required {}/{}, optional format {}/{}",
            required.passed, required.total, formats.passed, formats.total
        );
        passed += required.passed + formats.passed;
        total += required.total + formats.total;
        failed.extend(
            required
                .failures
                .into_iter()
                .map(|f| format!("{folder} {f}")),
        );
        failed.extend(
            formats
                .failures
                .into_iter()
                .map(|f| format!("{folder} optional/format/{f}")),
        );
    }
    println!("all: {passed}/{total}");
    assert!(
        failed.is_empty(),
        "{} of {total} suite tests fail:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
