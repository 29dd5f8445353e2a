//! The example server's stdio transport against hostile or unusual
//! plumbing: stdin and stdout as one socket (socat `EXEC:`, inetd), a
//! stdout the parent made non-blocking, a regular file on stdin with a
//! message over the 32 MiB limit, bytes that are not UTF-8, and request ids
//! that a 64-bit integer cannot hold. Every reply must arrive whole, and
//! the server must keep serving.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

/// Generous bound on waiting for one reply, so a broken server fails the
/// test instead of hanging it. Not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(120);

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn server(stdin: Stdio, stdout: Stdio) -> Child {
    Command::new(env!("CARGO_BIN_EXE_weather-server"))
        .stdin(stdin)
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .expect("the example server starts")
}

/// `count` tools/list requests with ids 1..=count, after the handshake.
fn requests(count: usize) -> Vec<u8> {
    let mut text = format!("{INITIALIZE}\n{INITIALIZED}\n");
    for id in 1..=count {
        text.push_str(&format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/list\"}}\n"
        ));
    }
    text.into_bytes()
}

/// Reads replies until `count` tools/list answers came or the stream
/// ended; returns how many arrived whole and in order.
fn whole_replies(out: impl Read, count: usize) -> usize {
    let mut lines = BufReader::new(out).lines();
    let first: Value =
        serde_json::from_str(&lines.next().expect("an initialize reply").unwrap()).unwrap();
    assert_eq!(first["id"], 0, "{first}");
    let mut whole = 0;
    for line in lines {
        let Ok(line) = line else { break };
        let Ok(reply) = serde_json::from_str::<Value>(&line) else {
            break;
        };
        if reply["id"] != whole + 1
            || reply["result"]["tools"]
                .as_array()
                .is_none_or(Vec::is_empty)
        {
            break;
        }
        whole += 1;
        if whole == count {
            break;
        }
    }
    whole
}

#[test]
fn one_socket_as_stdin_and_stdout_carries_every_reply() {
    let (ours, theirs) = UnixStream::pair().unwrap();
    let (stdin, stdout) = (
        OwnedFd::from(theirs.try_clone().unwrap()),
        OwnedFd::from(theirs),
    );
    let mut child = server(Stdio::from(stdin), Stdio::from(stdout));
    ours.set_read_timeout(Some(PATIENCE)).unwrap();
    let count = 10_000;
    let mut writer = ours.try_clone().unwrap();
    let sender = std::thread::spawn(move || writer.write_all(&requests(count)));
    let whole = whole_replies(&ours, count);
    assert_eq!(
        whole, count,
        "replies that arrived whole over the shared socket"
    );
    sender.join().unwrap().unwrap();
    ours.shutdown(std::net::Shutdown::Write).unwrap();
    assert!(
        child.wait().unwrap().success(),
        "the server exits cleanly at end of input"
    );
}

#[test]
fn a_non_blocking_stdout_loses_no_reply() {
    let (ours, theirs) = UnixStream::pair().unwrap();
    // The parent hands over a non-blocking stdout: writes would block as
    // soon as the reader falls behind.
    theirs.set_nonblocking(true).unwrap();
    let mut child = server(Stdio::piped(), Stdio::from(OwnedFd::from(theirs)));
    let mut stdin = child.stdin.take().unwrap();
    let count = 2_000;
    let sender = std::thread::spawn(move || stdin.write_all(&requests(count)));
    // Not reading for a moment fills the socket, so the server meets EAGAIN.
    std::thread::sleep(Duration::from_millis(300));
    ours.set_read_timeout(Some(PATIENCE)).unwrap();
    assert_eq!(
        whole_replies(&ours, count),
        count,
        "replies that arrived whole"
    );
    sender.join().unwrap().unwrap();
    assert!(
        child.wait().unwrap().success(),
        "the server exits cleanly at end of input"
    );
}

/// Runs the server on `input` given as a regular file; its reply lines.
fn replies_from_file(input: &[u8]) -> Vec<Value> {
    let path = std::env::temp_dir().join(format!(
        "hostile-stdio-{}-{}.jsonl",
        std::process::id(),
        input.len()
    ));
    std::fs::write(&path, input).unwrap();
    let child = server(
        Stdio::from(std::fs::File::open(&path).unwrap()),
        Stdio::piped(),
    );
    let out = child.wait_with_output().unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_file_on_stdin_is_held_to_the_size_limit() {
    let padding = "x".repeat(33 << 20);
    let input = format!(
        "{INITIALIZE}\n{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"pad\":\"{padding}\"}}}}\n\
         {{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}}\n"
    );
    let replies = replies_from_file(input.as_bytes());
    assert_eq!(
        replies.len(),
        3,
        "{:?}",
        replies.iter().map(|r| &r["id"]).collect::<Vec<_>>()
    );
    assert_eq!(
        (
            replies[1]["id"].clone(),
            replies[1]["error"]["code"].clone()
        ),
        (Value::Null, json!(-32700))
    );
    let message = replies[1]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("limit of 33554432 bytes (32 MiB)"),
        "{message}"
    );
    assert_eq!(
        replies[2],
        json!({"jsonrpc":"2.0","id":2,"result":{}}),
        "the server keeps serving"
    );
}

/// A ping whose params hold the byte 0xff, which is not UTF-8.
fn ping_with_invalid_utf8(id: u32) -> Vec<u8> {
    let mut line =
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"x":""#).into_bytes();
    line.extend_from_slice(b"caf\xff\"}}\n");
    line
}

#[test]
fn invalid_utf8_in_a_file_is_a_parse_error() {
    let mut input = format!("{INITIALIZE}\n").into_bytes();
    input.extend(ping_with_invalid_utf8(1));
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
    let replies = replies_from_file(&input);
    assert_eq!(replies.len(), 3, "{replies:?}");
    assert_eq!(
        (
            replies[1]["id"].clone(),
            replies[1]["error"]["code"].clone()
        ),
        (Value::Null, json!(-32700))
    );
    assert_eq!(replies[2]["id"], 2);
}

#[test]
fn invalid_utf8_and_unechoable_ids_over_a_pipe() {
    let mut child = server(Stdio::piped(), Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut exchange = |bytes: &[u8]| -> String {
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        lines.next().expect("a reply").unwrap()
    };
    exchange(INITIALIZE.as_bytes());

    let reply: Value =
        serde_json::from_str(&exchange(ping_with_invalid_utf8(1).trim_ascii_end())).unwrap();
    assert_eq!(
        (reply["id"].clone(), reply["error"]["code"].clone()),
        (Value::Null, json!(-32700)),
        "{reply}"
    );
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not valid UTF-8"),
        "{reply}"
    );

    // The largest id a 64-bit integer holds comes back exactly as sent.
    let reply = exchange(br#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#);
    assert_eq!(
        reply,
        r#"{"jsonrpc":"2.0","id":18446744073709551615,"result":{}}"#
    );
    // Ids that would come back changed are refused instead.
    for id in [
        "18446744073709551616",
        "-9223372036854775809",
        "1e2",
        "1.5",
        "-0",
    ] {
        let reply: Value = serde_json::from_str(&exchange(
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#).as_bytes(),
        ))
        .unwrap();
        assert_eq!(
            (reply["id"].clone(), reply["error"]["code"].clone()),
            (Value::Null, json!(-32600)),
            "{id}: {reply}"
        );
    }
    let reply = exchange(br#"{"jsonrpc":"2.0","id":"1e2","method":"ping"}"#);
    assert_eq!(
        reply, r#"{"jsonrpc":"2.0","id":"1e2","result":{}}"#,
        "the server keeps serving"
    );
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// Waits for the server to exit on its own (bounded by [`PATIENCE`]; a
/// server still running then is killed and the test fails).
fn exits_by_itself(mut child: Child) -> std::process::ExitStatus {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > PATIENCE {
            let _ = child.kill();
            panic!("the server did not end after the end of its input");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_end_of_input_ends_the_server_whatever_stdout_is() {
    let input = requests(3);
    let file = std::env::temp_dir().join(format!("hostile-stdio-out-{}.jsonl", std::process::id()));
    for (what, stdout) in [
        (
            "a regular file",
            Stdio::from(std::fs::File::create(&file).unwrap()),
        ),
        ("/dev/null", Stdio::null()),
        ("a pipe", Stdio::piped()),
    ] {
        let mut child = server(Stdio::piped(), stdout);
        child.stdin.take().unwrap().write_all(&input).unwrap();
        let out = child.stdout.take();
        let status = exits_by_itself(child);
        assert!(status.success(), "stdout {what}: {status}");
        if let Some(out) = out {
            assert_eq!(whole_replies(out, 3), 3, "stdout {what}");
        }
    }
    let written = whole_replies(std::fs::File::open(&file).unwrap(), 3);
    let _ = std::fs::remove_file(&file);
    assert_eq!(written, 3, "every reply in the file");
}
