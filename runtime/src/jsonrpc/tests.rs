//! The framing's unit tests: classification, ids, errors, and the text
//! the writers produce.

use super::*;
use serde_json::json;

#[test]
fn not_json_is_a_parse_error_with_null_id() {
    match parse("{\"jsonrpc\":") {
        Incoming::Invalid { id, error } => {
            assert_eq!(id, Value::Null);
            assert_eq!(error.code, PARSE_ERROR);
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn requests_notifications_and_responses_are_told_apart() {
    assert_eq!(
        parse(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#),
        Incoming::Request {
            id: json!(7),
            method: "ping".into(),
            params: None
        }
    );
    assert_eq!(
        parse(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
        Incoming::Notification {
            method: "notifications/initialized".into(),
            params: None
        }
    );
    assert_eq!(
        parse(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#),
        Incoming::Response {
            id: json!("a"),
            outcome: Ok(json!({}))
        }
    );
}

#[test]
fn invalid_requests_echo_the_id_when_readable() {
    let cases = [
        (r#"{"id":1,"method":"ping"}"#, json!(1)),
        (r#"{"jsonrpc":"1.0","id":"x","method":"ping"}"#, json!("x")),
        (r#"{"jsonrpc":"2.0","id":2,"method":5}"#, json!(2)),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"a","params":[1]}"#,
            json!(3),
        ),
        (r#"{"jsonrpc":"2.0","id":4}"#, json!(4)),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            Value::Null,
        ),
        (r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#, Value::Null),
        ("[]", Value::Null),
        ("42", Value::Null),
    ];
    for (text, want_id) in cases {
        match parse(text) {
            Incoming::Invalid { id, error } => {
                assert_eq!(id, want_id, "{text}");
                assert_eq!(error.code, INVALID_REQUEST, "{text}");
            }
            other => panic!("{text}: unexpected {other:?}"),
        }
    }
}

#[test]
fn a_top_level_array_is_a_batch_whose_members_do_not_nest() {
    let items = match parse(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},[1]]"#) {
        Incoming::Batch(items) => items,
        other => panic!("unexpected {other:?}"),
    };
    assert_eq!(items.len(), 2);
    let mut members = items.into_iter().map(classify);
    assert_eq!(
        members.next(),
        Some(Incoming::Request {
            id: json!(1),
            method: "ping".into(),
            params: None
        })
    );
    match members.next() {
        Some(Incoming::Invalid { id, error }) => {
            assert_eq!((id, error.code), (Value::Null, INVALID_REQUEST));
            assert!(error.message.contains("an array"), "{}", error.message);
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn integer_ids_are_echoed_exactly_and_other_numbers_refused() {
    for id in [
        "18446744073709551615",
        "-9223372036854775808",
        "0",
        "\"1e2\"",
        "\"\\u00e9\"",
    ] {
        let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        let Incoming::Request { id: got, .. } = parse(&text) else {
            panic!("{text} is a request")
        };
        let echoed = error_response(&got, &RpcError::internal("x"));
        let back: Value = serde_json::from_str(&echoed).unwrap();
        assert_eq!(
            back["id"],
            serde_json::from_str::<Value>(id).unwrap(),
            "{echoed}"
        );
        let raw_id = id.replace("\\u00e9", "é");
        assert!(
            echoed.contains(&format!("\"id\":{raw_id},")),
            "{id} changed: {echoed}"
        );
    }
    for id in [
        "18446744073709551616",
        "-9223372036854775809",
        "1e2",
        "1.0",
        "-0",
        "1.5",
        "1E400",
    ] {
        let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        match parse(&text) {
            // 1E400 is beyond f64: serde_json refuses the text itself.
            Incoming::Invalid {
                id: Value::Null,
                error,
            } if id == "1E400" => assert_eq!(error.code, PARSE_ERROR),
            Incoming::Invalid {
                id: Value::Null,
                error,
            } => assert_eq!(error.code, INVALID_REQUEST, "{id}"),
            other => panic!("{id}: unexpected {other:?}"),
        }
    }
    let text = r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#;
    assert!(
        matches!(
            parse(text),
            Incoming::Invalid {
                id: Value::Null,
                ..
            }
        ),
        "a response with a float id"
    );
    let Incoming::Invalid { error, .. } = parse(r#"{"jsonrpc":"2.0","id":2.5,"method":"ping"}"#)
    else {
        panic!()
    };
    assert!(
        error.message.contains("got the number 2.5"),
        "{}",
        error.message
    );
}

#[test]
fn unreadable_placeholders_are_parse_errors_naming_the_problem() {
    for unreadable in [
        Unreadable::TooLarge { limit: 32 << 20 },
        Unreadable::NotUtf8 { offset: 7 },
    ] {
        let text = unreadable.placeholder();
        assert_eq!(Unreadable::from_placeholder(&text), Some(unreadable));
        match parse(&text) {
            Incoming::Invalid {
                id: Value::Null,
                error,
            } => {
                assert_eq!(error.code, PARSE_ERROR);
                assert_eq!(error.message, format!("Parse error: {unreadable}"));
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(Unreadable::TooLarge { limit: 32 << 20 }
        .to_string()
        .contains("32 MiB"));
    assert_eq!(
        Unreadable::from_placeholder("<unreadable message: not valid UTF-8 at byte x>"),
        None
    );
}

#[test]
fn built_messages_are_valid_json_rpc() {
    let r: Value = serde_json::from_str(&response(&json!(1), &json!({"a": 1}))).unwrap();
    assert_eq!(r, json!({"jsonrpc": "2.0", "id": 1, "result": {"a": 1}}));
    let e: Value = serde_json::from_str(&error_response(
        &json!("q"),
        &RpcError::method_not_found("nope").with_data(json!([1])),
    ))
    .unwrap();
    assert_eq!(
        e,
        json!({"jsonrpc": "2.0", "id": "q", "error": {"code": -32601, "message": "Method not found: nope", "data": [1]}})
    );
    let n: Value = serde_json::from_str(&notification("x/y", &json!({}))).unwrap();
    assert_eq!(n, json!({"jsonrpc": "2.0", "method": "x/y", "params": {}}));
}

#[test]
fn the_lean_path_answers_as_the_general_one() {
    // Taken by the lean path, with the general path's answer.
    let lean = [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"Oslo"}}}"#,
        " {\t\"method\" : \"ping\" ,\r\n \"id\" : \"a b\" , \"jsonrpc\" : \"2.0\" } \n",
        r#"{"jsonrpc":"2.0","id":-7,"method":"x/y","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":0,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"a","params":{"k":1,"k":2,"s":"q\"\\","z":[1,{"y":null}],"t":true,"n":-1.5e3,"e":"é😀"},"extra":{"q":[]}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"first","method":"second","params":{"a":1},"params":{"b":2}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"a","params":{"a":"}]\"{["},"x":"]"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":"p\"1"},"name":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"m","params":{"_meta":{"a":1},"name":"x"},"params":{"_meta":{"b":2}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"m","params":{"arguments":{"a":"x","b":-3,"c":true,"d":false,"e":null,"a":0,"f":18446744073709551615}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"m","params":{"arguments":{ "a" : 1 , "b" : [1] , "c" : 2.5 , "d" : -0 , "e" : 1e3 , "f" : "é" }}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"m","params":{"arguments":{}, "x": {"k": true}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"m","params":{"arguments":{"v":21.5,"w":-0,"x":1e300,"y":18446744073709551616,"z":-1.5E-3,"q":0.1}}}"#,
    ];
    for text in lean {
        let Some(mut l) = parse_lean(text) else {
            panic!("not lean: {text}")
        };
        assert!(l.read_meta(), "{text}");
        let method = l.method.into_owned();
        let params = l.params.map(Members::into_value);
        let got = match l.id {
            Some(id) => Incoming::Request { id, method, params },
            None => Incoming::Notification { method, params },
        };
        assert_eq!(got, parse_full(text), "{text}");
    }
    // Left to the general path.
    let general = [
        r#"{"jsonrpc":"2.0","id":1.0,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1e2,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":01,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":-0,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":-9223372036854775809,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":"a\"b","method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"x\/y"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"n\u0061me":1}}"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        r#"{"id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":[1]}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"a":tru}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"a":1,}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"_meta":{},"_meta":{}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"arguments":{"k":nul}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"arguments":{"k":truex}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"arguments":{"k":1,}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"arguments":{"k":1.}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"arguments":{"k":1e400}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"arguments":{"k":--1}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"arguments":{"k":01.5}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","x":[1,}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":5}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","error":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a"} x"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a""#,
        r#"[{"jsonrpc":"2.0","id":1,"method":"a"}]"#,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\tb\"}",
        "<unreadable message: not valid UTF-8 at byte 3>",
        "",
        "{}",
    ];
    for text in general {
        assert!(parse_lean(text).is_none(), "{text}");
    }
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"a","params":{{"a":{}1{}}}}}"#,
        "[".repeat(126),
        "]".repeat(126)
    );
    assert!(parse_lean(&deep).is_none());
    assert_eq!(parse(&deep).clone(), parse_full(&deep));
}

#[test]
fn members_behave_like_a_map() {
    let Some(Lean {
        params: Some(mut m),
        ..
    }) = parse_lean(r#"{"jsonrpc":"2.0","method":"a","params":{"k":1,"j":2,"k":3}}"#)
    else {
        panic!("not lean")
    };
    assert_eq!(m.get("k"), Some(&json!(3)));
    assert_eq!(m.clone().into_value(), json!({"k": 3, "j": 2}));
    assert_eq!(m.take_value("k"), Some(json!(3)));
    assert_eq!(m.get("k"), Some(&Value::Null));
    assert_eq!(m.into_value(), json!({"k": null, "j": 2}));
}
