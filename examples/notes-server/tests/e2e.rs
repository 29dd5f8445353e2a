//! The notes server end to end, in both eras, over stdio and Streamable
//! HTTP: the generated typed client lists, reads and completes its
//! resources, template and prompts (`typed_client_*`), and raw JSON-RPC
//! exchanges check every answer against the official schema of the
//! revision spoken (`raw_*`).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use notes_server::client::{Client, ClientError, ClientOptions};
use notes_server::tools::{
    CountNotesInput, DailyReviewArgs, NoteParams, StaticResource, SummarizeNoteArgs,
};
use serde_json::{json, Value};

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";
const BIN: &str = env!("CARGO_BIN_EXE_notes-server");

fn json_of<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap()
}

/// Everything a user of the generated client relies on, against one connection.
async fn exercise(client: &Client, revision: &str) {
    let session = client.session().expect("a session after the handshake");
    assert_eq!(session.protocol_version, revision);
    let caps = &session.capabilities;
    assert!(
        caps["prompts"].is_object() && caps["resources"].is_object() && caps["tools"].is_object(),
        "{caps}"
    );
    assert_eq!(caps["completions"], json!({}), "{caps}");

    let resources = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().filter_map(|r| r["uri"].as_str()).collect();
    assert_eq!(uris, ["notes://index", "notes://logo"]);
    assert_eq!(resources[0]["title"], "Index of notes");
    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(
        templates,
        [
            json!({"uriTemplate": "notes://{id}", "name": "note", "description": "One note by id.", "mimeType": "text/plain"})
        ]
    );
    let prompts = client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().filter_map(|p| p["name"].as_str()).collect();
    assert_eq!(names, ["summarize_note", "daily-review"]);
    assert!(
        prompts[0].get("x-mcpgen").is_none(),
        "mcpgen's settings are not served"
    );

    let index = json_of(&client.read_resource(StaticResource::Index).await.unwrap());
    assert_eq!(index["contents"][0]["uri"], "notes://index");
    assert!(
        index["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("notes://12 Call the plumber"),
        "{index}"
    );
    let logo = json_of(&client.read_resource(StaticResource::Logo).await.unwrap());
    assert_eq!(logo["contents"][0]["mimeType"], "image/png");
    assert_eq!(logo["contents"][0]["blob"], notes_server::LOGO);

    let note = json_of(
        &client
            .read_note(NoteParams { id: "12".into() })
            .await
            .unwrap(),
    );
    assert_eq!(
        note["contents"][0],
        json!({"uri": "notes://12", "mimeType": "text/plain", "text": "Call the plumber about the kitchen tap."})
    );
    match client.read_note(NoteParams { id: "404".into() }).await {
        Err(ClientError::Protocol { code, .. }) => {
            assert_eq!(code, -32602, "resource not found is invalid params")
        }
        other => panic!("reading a missing note: {other:?}"),
    }

    let args = SummarizeNoteArgs {
        id: "2".into(),
        style: Some("bullet".into()),
    };
    let prompt = json_of(&client.get_summarize_note(args).await.unwrap());
    let messages = prompt["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "{prompt}");
    assert_eq!(messages[0]["content"]["type"], "resource");
    assert_eq!(messages[0]["content"]["resource"]["uri"], "notes://2");
    assert_eq!(
        messages[1]["content"]["text"],
        "Summarize the note above as bullet."
    );
    let review = json_of(
        &client
            .get_daily_review(DailyReviewArgs::default())
            .await
            .unwrap(),
    );
    assert_eq!(
        review["messages"][0]["content"]["text"],
        "Review my 3 notes and suggest what to do first."
    );
    match client
        .get_summarize_note(SummarizeNoteArgs {
            id: "9".into(),
            style: None,
        })
        .await
    {
        Err(ClientError::Protocol { code, message, .. }) => {
            assert!(code == -32602 && message.contains("no note"), "{message}")
        }
        other => panic!("a prompt for a missing note: {other:?}"),
    }

    if !session.stateless {
        // completion/complete is a stateful-era method.
        let ids = client
            .complete_note_id("1", Default::default())
            .await
            .unwrap();
        assert_eq!(ids.values, ["1", "12"]);
        let ids = client
            .complete_summarize_note_id("2", Default::default())
            .await
            .unwrap();
        assert_eq!(ids.values, ["2"]);
        let styles = client
            .complete_summarize_note_style("b", Default::default())
            .await
            .unwrap();
        assert_eq!(styles.values, ["bullet"]);
    }
    assert_eq!(
        client
            .count_notes(CountNotesInput::default())
            .await
            .unwrap()
            .count,
        3
    );

    // Following a resource: a subscription in each era.
    if session.stateless {
        let subscription = client
            .engine()
            .listen(json!({"resourceSubscriptions": ["notes://index"]}))
            .await
            .unwrap();
        assert_eq!(
            subscription.acknowledged()["resourceSubscriptions"],
            json!(["notes://index"])
        );
    } else {
        let options = mcpgen_runtime::client::CallOptions::new();
        client
            .engine()
            .subscribe_resource("notes://index", &options)
            .await
            .unwrap();
    }
}

fn options(revision: &str) -> ClientOptions {
    ClientOptions::new([revision]).client_info("notes-e2e", "1.0.0")
}

#[tokio::test]
async fn typed_client_over_stdio_in_both_eras() {
    for revision in [LEGACY, MODERN] {
        let client = Client::spawn_with(BIN, std::iter::empty::<&str>(), options(revision))
            .await
            .unwrap();
        exercise(&client, revision).await;
    }
}

#[tokio::test]
async fn typed_client_over_http_in_both_eras() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let service = notes_server::server::http_service(notes_server::Notes::default()).unwrap();
    tokio::spawn(mcpgen_runtime::server::http::serve(
        listener, service, "/mcp",
    ));
    for revision in [LEGACY, MODERN] {
        let client = Client::connect_http_with(&url, options(revision))
            .await
            .unwrap();
        exercise(&client, revision).await;
    }
}

// ---------------------------------------------------------------------------
// Raw JSON-RPC, every answer checked against the official schema
// ---------------------------------------------------------------------------

fn schema(revision: &str) -> Value {
    let shared = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/mcp-spec");
    let dir = if shared.is_dir() {
        shared
    } else {
        PathBuf::from(std::env::var_os("MCPGEN_SCHEMA_MIRROR").expect("MCPGEN_SCHEMA_MIRROR"))
    };
    let text = std::fs::read_to_string(dir.join(revision).join("schema.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Fails with every validator error when `instance` is not a `def` of `doc`.
fn check(doc: &Value, def: &str, instance: &Value) {
    let mut root = doc.clone();
    assert!(doc["$defs"].get(def).is_some(), "the schema defines {def}");
    root["allOf"] = json!([{ "$ref": format!("#/$defs/{def}") }]);
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&root)
        .unwrap();
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("at {}: {e}", e.instance_path().as_str()))
        .collect();
    assert!(
        errors.is_empty(),
        "{instance} is not a valid {def}:\n{}",
        errors.join("\n")
    );
}

/// A stdio server spoken to in lines.
struct Raw {
    child: std::process::Child,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
    revision: &'static str,
}

impl Raw {
    fn start(revision: &'static str) -> Raw {
        let mut child = Command::new(BIN)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut raw = Raw {
            child,
            lines,
            revision,
        };
        if revision == LEGACY {
            let init = json!({"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}});
            let result = raw.call(0, "initialize", init);
            check(&schema(LEGACY), "InitializeResult", &result);
            raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        }
        raw
    }

    fn send(&mut self, message: Value) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// The whole answer to one request (`result` or `error` inside).
    fn answer(&mut self, id: i64, method: &str, mut params: Value) -> Value {
        if self.revision == MODERN {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}
            });
        }
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.lines.next().expect("the server answers").unwrap();
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    }

    fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        let answer = self.answer(id, method, params);
        answer
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{method} failed: {answer}"))
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn raw_answers_are_valid_in_both_eras() {
    for revision in [LEGACY, MODERN] {
        let doc = schema(revision);
        let mut raw = Raw::start(revision);
        if revision == MODERN {
            let discover = raw.call(1, "server/discover", json!({}));
            check(&doc, "DiscoverResult", &discover);
            assert!(
                discover["capabilities"]["prompts"].is_object()
                    && discover["capabilities"]["resources"].is_object(),
                "{discover}"
            );
        }
        let listed = raw.call(2, "resources/list", json!({}));
        check(&doc, "ListResourcesResult", &listed);
        assert_eq!(listed["resources"].as_array().unwrap().len(), 2);
        let templates = raw.call(3, "resources/templates/list", json!({}));
        check(&doc, "ListResourceTemplatesResult", &templates);
        let prompts = raw.call(4, "prompts/list", json!({}));
        check(&doc, "ListPromptsResult", &prompts);
        for (id, uri) in [(5, "notes://index"), (6, "notes://logo"), (7, "notes://1")] {
            let read = raw.call(id, "resources/read", json!({"uri": uri}));
            check(&doc, "ReadResourceResult", &read);
            assert_eq!(read["contents"][0]["uri"], uri);
        }
        let missing = raw.answer(8, "resources/read", json!({"uri": "notes://404"}));
        assert_eq!(missing["error"]["code"], -32602, "{missing}");
        check(&doc, "JSONRPCErrorResponse", &missing);
        let got = raw.call(
            9,
            "prompts/get",
            json!({"name": "summarize_note", "arguments": {"id": "1"}}),
        );
        check(&doc, "GetPromptResult", &got);
        assert_eq!(
            got["messages"][1]["content"]["text"],
            "Summarize the note above as prose."
        );
        let unknown = raw.answer(10, "prompts/get", json!({"name": "nope"}));
        assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
        let no_id = raw.answer(
            11,
            "prompts/get",
            json!({"name": "summarize_note", "arguments": {}}),
        );
        assert_eq!(
            no_id["error"]["code"], -32602,
            "a required argument is missing: {no_id}"
        );
        if revision == LEGACY {
            let params = json!({"ref": {"type": "ref/resource", "uri": "notes://{id}"}, "argument": {"name": "id", "value": "1"}});
            let completed = raw.call(12, "completion/complete", params);
            check(&doc, "CompleteResult", &completed);
            assert_eq!(completed["completion"]["values"], json!(["1", "12"]));
        }
    }
}
