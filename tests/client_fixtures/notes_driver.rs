// Driver for tests/cli_introspect_surface.rs: a client generated from the
// manifest `mcpgen introspect` wrote for examples/notes-server, reading its
// static resources and template and getting its prompts through the typed
// methods generated from the introspected sections. Prints "ok <step>"
// per passed step; panics otherwise.

use std::time::Duration;

use client::{Client, ClientError};
use tools::*;

fn json_of<T: serde::Serialize>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).unwrap()
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let program = args.next().expect("usage: driver PROGRAM [ARGS...]");
    let rest: Vec<String> = args.collect();
    let c = Client::spawn_with(&program, &rest, client::default_options().timeout(Duration::from_secs(60)))
        .await
        .expect("handshake with notes-server");

    let index = json_of(&c.read_resource(StaticResource::Index).await.expect("read notes://index"));
    assert_eq!(index["contents"][0]["uri"], "notes://index");
    assert!(index["contents"][0]["text"].as_str().unwrap().contains("Call the plumber"), "{index}");
    let logo = json_of(&c.read_resource(StaticResource::Logo).await.expect("read notes://logo"));
    assert_eq!(logo["contents"][0]["mimeType"], "image/png");
    assert!(logo["contents"][0]["blob"].is_string(), "{logo}");
    println!("ok static");

    let note = json_of(&c.read_note(NoteParams { id: "12".into() }).await.expect("read notes://12"));
    assert_eq!(note["contents"][0]["uri"], "notes://12");
    assert_eq!(note["contents"][0]["text"], "Call the plumber about the kitchen tap.");
    match c.read_note(NoteParams { id: "404".into() }).await {
        Err(ClientError::Protocol { code, .. }) => assert_eq!(code, -32602),
        other => panic!("reading a missing note: {other:?}"),
    }
    println!("ok template");

    // The required argument is a String, the optional one an Option.
    let args = SummarizeNoteArgs { id: "2".into(), style: Some("prose".into()) };
    let prompt = json_of(&c.get_summarize_note(args).await.expect("get summarize_note"));
    assert_eq!(prompt["messages"][0]["content"]["resource"]["uri"], "notes://2");
    assert_eq!(prompt["messages"][1]["content"]["text"], "Summarize the note above as prose.");
    let review = json_of(&c.get_daily_review(DailyReviewArgs::default()).await.expect("get daily-review"));
    assert!(review["messages"][0]["content"]["text"].as_str().unwrap().starts_with("Review my 3 notes"), "{review}");
    println!("ok prompts");

    assert_eq!(c.count_notes(CountNotesInput::default()).await.expect("count_notes").count, 3);
    println!("ok tool");
}
