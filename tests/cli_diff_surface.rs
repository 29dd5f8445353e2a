//! `mcpgen diff` and `--check` over the manifest's resources, resource
//! templates and prompts: two manifests compared (items added, removed and
//! changed, prompt arguments, the generated `Args` fields, `StaticResource`
//! variants and client and `Handler` methods that appear or disappear;
//! `--check` exits 1 on a difference, 0 without), two revisions with
//! `--manifest` (the protocol types the sections use, members an older
//! revision does not define), and `generate --check` noticing a changed prompt.

mod cli_support;

use std::path::Path;

use cli_support::{mcpgen, run};
use serde_json::{json, Value};

fn notes() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/notes-server/manifest.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn write(dir: &Path, name: &str, manifest: &Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(manifest).unwrap()).unwrap();
    path.display().to_string()
}

/// The notes manifest with one of each change.
fn changed_notes() -> Value {
    let mut m = notes();
    let summarize = &mut m["prompts"][0];
    summarize["arguments"][1]["required"] = json!(true);
    summarize["arguments"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "tone"}));
    summarize["arguments"].as_array_mut().unwrap().remove(0);
    summarize["x-mcpgen"]["complete"] = json!(["style"]);
    summarize["description"] = json!("Summarizes.");
    m["prompts"].as_array_mut().unwrap().remove(1);
    m["prompts"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "weekly"}));
    m["resources"]
        .as_array_mut()
        .unwrap()
        .push(json!({"uri": "notes://todo", "name": "todo"}));
    m["resources"][0]["mimeType"] = json!("text/markdown");
    m["resourceTemplates"][0]["uriTemplate"] = json!("notes://{id}/text");
    m
}

#[test]
fn two_manifests_differ_in_items_arguments_and_generated_methods() {
    let tmp = tempfile::tempdir().unwrap();
    let old = write(tmp.path(), "old.json", &notes());
    let new = write(tmp.path(), "new.json", &changed_notes());

    let r = run(mcpgen(tmp.path()).args(["diff", &old, &new]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = &r.stdout;
    for line in [
        "tools: 0 added, 0 removed, 0 changed; resources: 1 added, 0 removed, 1 changed; resourceTemplates: 1 added, 1 removed, 0 changed; prompts: 1 added, 1 removed, 1 changed",
        "  + resource `notes://todo`\n",
        "  ~ resource `notes://index`\n      ~ member `mimeType`: \"text/plain\" → \"text/markdown\"\n",
        "  - resource template `notes://{id}`\n  + resource template `notes://{id}/text`\n",
        "  ~ prompt `summarize_note`\n      ~ member `description`: ",
        "      - argument `id`\n      ~ argument `style`: optional → required\n      + argument `tone` (optional)\n",
        "  - prompt `daily-review`\n  + prompt `weekly`\n",
        "  - client::Client::get_daily_review\n",
        "  - server::Handler::prompt_daily_review\n",
        "  + client::Client::get_weekly\n",
        "  + server::Handler::prompt_weekly\n",
        "  + tools::StaticResource::Todo\n",
        "  - tools::SummarizeNoteArgs::id\n",
        "  + tools::SummarizeNoteArgs::tone\n",
        "  ~ tools::SummarizeNoteArgs::style: `Option < String >` → `String`\n",
        // The constructor takes the required arguments, and each optional
        // one has its setter.
        "  ~ tools::SummarizeNoteArgs::new: `… (id …` → `… (style …`\n",
        "  - tools::SummarizeNoteArgs::with_style\n",
        "  + tools::SummarizeNoteArgs::with_tone\n",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    // The same as JSON.
    let r = run(mcpgen(tmp.path()).args(["diff", "--json", &old, &new]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let report: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(report["revision"], "2025-11-25");
    let prompt = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["key"] == "summarize_note")
        .unwrap();
    assert_eq!(prompt["section"], "prompts");
    assert_eq!(prompt["change"], "changed");
    assert!(
        prompt["details"]
            .as_array()
            .unwrap()
            .contains(&json!("+ argument `tone` (optional)")),
        "{prompt}"
    );
    assert!(report["generated"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["item"] == "client::Client::get_weekly" && g["change"] == "added"));

    // --check: 1 with differences, 0 without.
    assert_eq!(
        run(mcpgen(tmp.path()).args(["diff", "--check", &old, &new])).code,
        1
    );
    let same = run(mcpgen(tmp.path()).args(["diff", "--check", &old, &old]));
    assert_eq!(same.code, 0, "{}{}", same.stdout, same.stderr);
    assert!(same.stdout.contains("No differences."), "{}", same.stdout);

    // A manifest and a revision do not compare.
    let r = run(mcpgen(tmp.path()).args(["diff", &old, "2025-11-25"]));
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("cannot compare") && r.stderr.contains("help:"),
        "{}",
        r.stderr
    );
}

#[test]
fn revisions_with_a_manifest_name_the_sections_types_and_unknown_members() {
    let tmp = tempfile::tempdir().unwrap();
    let manifest = json!({
        "tools": [],
        "resources": [{"uri": "x://a", "name": "a", "title": "A"}],
        "prompts": [{"name": "p", "title": "P", "arguments": [{"name": "q", "title": "Q", "required": true}]}]
    });
    let path = write(tmp.path(), "surface.json", &manifest);
    let r = run(mcpgen(tmp.path()).args(["diff", "2025-06-18", "2025-03-26", "--manifest", &path]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = &r.stdout;
    for line in [
        "  * resource `a` (/resources/0): Resource has no `title` in 2025-03-26; its clients ignore it\n",
        "  * prompt `p` (/prompts/0): Prompt has no `title` in 2025-03-26; its clients ignore it\n",
        "  * prompt `p` (/prompts/0): PromptArgument has no `title` (argument `q`) in 2025-03-26; its clients ignore it\n",
        "  * protocol::PromptArgument (used by the generated server/client): - field `title`: string\n",
        "  * protocol::Prompt (used by the generated server/client):",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    // Going forward every member is known: none is reported.
    let r = run(mcpgen(tmp.path()).args(["diff", "2025-03-26", "2025-06-18", "--manifest", &path]));
    assert!(!r.stdout.contains("its clients ignore it"), "{}", r.stdout);
    // The content of prompt messages changes type in 2025-06-18.
    assert!(
        r.stdout
            .contains("protocol::PromptMessage (used by the generated server/client)"),
        "{}",
        r.stdout
    );
    // --check: revisions that differ exit 1.
    assert_eq!(
        run(mcpgen(tmp.path()).args([
            "diff",
            "--check",
            "2025-03-26",
            "2025-06-18",
            "--manifest",
            &path
        ]))
        .code,
        1
    );
    assert_eq!(
        run(mcpgen(tmp.path()).args([
            "diff",
            "--check",
            "2025-06-18",
            "2025-06-18",
            "--manifest",
            &path
        ]))
        .code,
        0
    );
}

#[test]
fn generate_check_notices_a_changed_prompt_and_a_new_resource() {
    let tmp = tempfile::tempdir().unwrap();
    let manifest = write(tmp.path(), "notes.json", &notes());
    let out = tmp.path().join("generated");
    let generate = |check: bool| {
        let mut cmd = mcpgen(tmp.path());
        cmd.args(["generate", "--manifest", &manifest, "--out"])
            .arg(&out);
        if check {
            cmd.arg("--check");
        }
        run(&mut cmd)
    };
    assert_eq!(generate(false).code, 0);
    let fresh = generate(true);
    assert_eq!(fresh.code, 0, "{}{}", fresh.stdout, fresh.stderr);

    write(tmp.path(), "notes.json", &changed_notes());
    let stale = generate(true);
    assert_eq!(stale.code, 1, "{}", stale.stderr);
    for hunk in [
        "+    pub tone: Option<String>,",
        "fn get_weekly",
        "fn prompt_weekly",
        "Todo",
    ] {
        assert!(
            stale.stdout.contains(hunk),
            "missing {hunk:?} in:\n{}",
            stale.stdout
        );
    }
    assert!(stale.stderr.contains("stale"), "{}", stale.stderr);
}
