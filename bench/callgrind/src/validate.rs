//! The argument validation of bench/callgrind.sh alone: the
//! weather example's `get_forecast` and `convert_temperature` input
//! schemas, checked N times (valid arguments with `is_valid`, invalid ones
//! with every error collected), by mcpgen's own validator or by the
//! `jsonschema` crate it replaced. The script runs each case under
//! callgrind with two N and prints instructions per validation.
//!
//! Usage: validate (ours|jsonschema) (forecast|convert|invalid4) N

use mcpgen_runtime::schema::{Draft, Schema};
use serde_json::{json, Value};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, validator, case, n] = args.as_slice() else {
        eprintln!("usage: validate (ours|jsonschema) (forecast|convert|invalid4) N");
        std::process::exit(2);
    };
    let n: usize = n.parse().expect("N is a number");
    let forecast = json!({"type": "object", "properties": {
        "city": {"type": "string", "minLength": 1, "maxLength": 100},
        "days": {"type": "integer", "minimum": 1, "maximum": 7, "default": 3},
        "units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"}
    }, "required": ["city"], "additionalProperties": false});
    let convert = json!({"type": "object", "properties": {
        "value": {"type": "number"},
        "from": {"type": "string", "enum": ["celsius", "fahrenheit", "kelvin"]},
        "to": {"type": "string", "enum": ["celsius", "fahrenheit", "kelvin"]}
    }, "required": ["value", "from", "to"]});
    let (schema, instance): (Value, Value) = match case.as_str() {
        "forecast" => (forecast, json!({"city": "Oslo"})),
        "convert" => (convert, json!({"value": 21.5, "from": "celsius", "to": "fahrenheit"})),
        "invalid4" => (forecast, json!({"city": "", "days": 9, "units": "kelvin", "extra": 1})),
        other => panic!("unknown case {other}"),
    };
    let mut outcomes = 0usize;
    match validator.as_str() {
        "ours" => {
            let s = Schema::compile(&schema, Draft::Draft202012).expect("compiles");
            for _ in 0..n {
                outcomes += match s.validate(std::hint::black_box(&instance)) {
                    Ok(()) => 1,
                    Err(errors) => errors.len(),
                };
            }
        }
        "jsonschema" => {
            let s = jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(&schema).expect("compiles");
            for _ in 0..n {
                let instance = std::hint::black_box(&instance);
                outcomes += if s.is_valid(instance) { 1 } else { s.iter_errors(instance).map(|e| e.to_string()).count() };
            }
        }
        other => panic!("unknown validator {other}"),
    }
    println!("{outcomes}");
}
