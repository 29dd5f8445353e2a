//! `deploy/` checked against what the server really does (no container
//! runtime here): the Dockerfile is a multi-stage build whose final stage
//! runs the binary as a non-root user with flags the binary accepts,
//! listening on every interface at the port it exposes; the Kubernetes
//! manifests agree with it (args, container port, probes on `/healthz`,
//! Service, HPA target, one Redis store the replicas share for sessions
//! and rate limits); and the server started with the Deployment's
//! arguments answers the probes and the Host names they allow.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use saphyr_parser::{Event, Parser};
use serde_json::{Map, Value};

mod infra;

fn deploy(file: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../deploy")
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One YAML document as JSON (plain scalars: integers, booleans and null
/// resolved, everything else a string).
fn yaml(text: &str) -> Value {
    fn build<'a>(events: &mut impl Iterator<Item = Event<'a>>, first: Event<'a>) -> Value {
        match first {
            Event::Scalar(text, style, ..) => {
                if style == saphyr_parser::ScalarStyle::Plain {
                    if let Ok(n) = text.parse::<i64>() {
                        return Value::from(n);
                    }
                    match text.as_ref() {
                        "true" => return Value::Bool(true),
                        "false" => return Value::Bool(false),
                        "null" | "~" => return Value::Null,
                        _ => {}
                    }
                }
                Value::String(text.into_owned())
            }
            Event::SequenceStart(..) => {
                let mut items = Vec::new();
                loop {
                    match events.next().expect("sequence ends") {
                        Event::SequenceEnd => return Value::Array(items),
                        ev => items.push(build(events, ev)),
                    }
                }
            }
            Event::MappingStart(..) => {
                let mut map = Map::new();
                loop {
                    match events.next().expect("mapping ends") {
                        Event::MappingEnd => return Value::Object(map),
                        Event::Scalar(key, ..) => {
                            let first = events.next().expect("a value");
                            let value = build(events, first);
                            assert!(
                                map.insert(key.into_owned(), value).is_none(),
                                "duplicate key"
                            );
                        }
                        other => panic!("unexpected key {other:?}"),
                    }
                }
            }
            other => panic!("unexpected YAML event {other:?}"),
        }
    }
    let mut events = Parser::new_from_str(text)
        .map(|r| r.expect("valid YAML").0)
        .filter(|e| {
            !matches!(
                e,
                Event::StreamStart
                    | Event::StreamEnd
                    | Event::DocumentStart(_)
                    | Event::DocumentEnd
                    | Event::Nothing
            )
        });
    let first = events.next().expect("a document");
    let value = build(&mut events, first);
    assert!(events.next().is_none(), "one document per file");
    value
}

/// What `weather-server --help` prints.
fn usage() -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_weather-server"))
        .arg("--help")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "--help exits 0");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The flags `weather-server --help` documents.
fn documented_flags() -> Vec<String> {
    usage()
        .split(|c: char| c.is_whitespace() || c == '[' || c == ']')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(str::to_owned)
        .collect()
}

fn flags(args: &[String]) -> Vec<&str> {
    args.iter()
        .map(String::as_str)
        .filter(|a| a.starts_with("--"))
        .collect()
}

/// The value after `flag`.
fn after<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn port_of(addr: &str) -> i64 {
    addr.rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {addr}"))
}

/// Instructions of the Dockerfile, continuation lines joined, comments out.
fn instructions(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if current.is_empty() && (trimmed.is_empty() || trimmed.starts_with('#')) {
            continue;
        }
        match trimmed.strip_suffix('\\') {
            Some(part) => {
                current.push_str(part);
                current.push(' ');
            }
            None => {
                current.push_str(trimmed);
                let (op, rest) = current
                    .split_once(char::is_whitespace)
                    .unwrap_or((&current, ""));
                out.push((op.to_ascii_uppercase(), rest.trim().to_owned()));
                current.clear();
            }
        }
    }
    assert!(
        current.is_empty(),
        "the Dockerfile ends inside a continuation"
    );
    out
}

fn exec_form(rest: &str) -> Vec<String> {
    serde_json::from_str(rest)
        .unwrap_or_else(|e| panic!("exec form (JSON array) expected, got {rest}: {e}"))
}

#[test]
fn the_dockerfile_builds_in_stages_and_runs_the_server_unprivileged() {
    const KNOWN: [&str; 18] = [
        "FROM",
        "RUN",
        "CMD",
        "LABEL",
        "EXPOSE",
        "ENV",
        "ADD",
        "COPY",
        "ENTRYPOINT",
        "VOLUME",
        "USER",
        "WORKDIR",
        "ARG",
        "ONBUILD",
        "STOPSIGNAL",
        "HEALTHCHECK",
        "SHELL",
        "MAINTAINER",
    ];
    let all = instructions(&deploy("Dockerfile"));
    for (op, _) in &all {
        assert!(KNOWN.contains(&op.as_str()), "unknown instruction {op}");
    }
    let stages: Vec<usize> = all
        .iter()
        .enumerate()
        .filter(|(_, (op, _))| op == "FROM")
        .map(|(i, _)| i)
        .collect();
    assert!(stages.len() >= 2, "a multi-stage build");
    let build_stage = all[stages[0]].1.split_whitespace().collect::<Vec<_>>();
    assert!(
        build_stage.len() == 3 && build_stage[1].eq_ignore_ascii_case("AS"),
        "the first stage is named: {build_stage:?}"
    );
    let name = build_stage[2];
    assert!(
        all[..stages[1]].iter().any(|(op, rest)| op == "RUN"
            && rest.contains("cargo build --release")
            && rest.contains("weather-server")),
        "the build stage compiles the server"
    );
    let last = &all[*stages.last().unwrap()..];
    assert!(
        last.iter()
            .any(|(op, rest)| op == "COPY" && rest.contains(&format!("--from={name}"))),
        "the binary comes from the build stage"
    );
    let user = last
        .iter()
        .rev()
        .find(|(op, _)| op == "USER")
        .map(|(_, u)| u.clone())
        .expect("a USER in the final stage");
    assert!(
        user != "root" && user != "0" && !user.starts_with("0:"),
        "runs as non-root, not {user}"
    );
    let entry = exec_form(
        &last
            .iter()
            .find(|(op, _)| op == "ENTRYPOINT")
            .expect("ENTRYPOINT")
            .1,
    );
    assert!(entry[0].ends_with("/weather-server"), "{entry:?}");
    let cmd = exec_form(&last.iter().find(|(op, _)| op == "CMD").expect("CMD").1);
    let documented = documented_flags();
    for flag in flags(&cmd) {
        assert!(
            documented.iter().any(|d| d == flag),
            "CMD flag {flag} is not one weather-server knows: {documented:?}"
        );
    }
    let listen = after(&cmd, "--http").expect("CMD serves HTTP");
    assert!(
        listen.starts_with("0.0.0.0:"),
        "inside a container the server listens on every interface: {listen}"
    );
    let exposed: i64 = last
        .iter()
        .find(|(op, _)| op == "EXPOSE")
        .expect("EXPOSE")
        .1
        .parse()
        .unwrap();
    assert_eq!(port_of(listen), exposed, "EXPOSE matches --http");
    // The build context filter keeps build output and peers out.
    let ignore = deploy("Dockerfile.dockerignore");
    assert!(
        ignore.lines().any(|l| l.trim() == "target"),
        "target/ is not sent to the builder"
    );
}

struct K8s {
    deployment: Value,
    service: Value,
    hpa: Value,
    redis: Value,
    redis_service: Value,
}

fn k8s() -> K8s {
    K8s {
        deployment: yaml(&deploy("k8s/deployment.yaml")),
        service: yaml(&deploy("k8s/service.yaml")),
        hpa: yaml(&deploy("k8s/hpa.yaml")),
        redis: yaml(&deploy("k8s/redis.yaml")),
        redis_service: yaml(&deploy("k8s/redis-service.yaml")),
    }
}

fn container(deployment: &Value) -> &Value {
    &deployment["spec"]["template"]["spec"]["containers"][0]
}

fn args(container: &Value) -> Vec<String> {
    container["args"]
        .as_array()
        .expect("container args")
        .iter()
        .map(|a| a.as_str().expect("string args").to_owned())
        .collect()
}

#[test]
fn the_kubernetes_manifests_agree_with_the_server() {
    let K8s {
        deployment,
        service,
        hpa,
        ..
    } = k8s();
    assert_eq!(deployment["kind"], "Deployment");
    assert_eq!(service["kind"], "Service");
    assert_eq!(hpa["kind"], "HorizontalPodAutoscaler");
    let c = container(&deployment);
    let args = args(c);
    let documented = documented_flags();
    for flag in flags(&args) {
        assert!(
            documented.iter().any(|d| d == flag),
            "Deployment flag {flag} is not one weather-server knows"
        );
    }
    let port = port_of(after(&args, "--http").expect("--http"));
    assert!(after(&args, "--http").unwrap().starts_with("0.0.0.0:"));
    assert_eq!(
        c["ports"][0]["containerPort"], port,
        "containerPort is the port served"
    );
    for probe in ["readinessProbe", "livenessProbe"] {
        assert_eq!(c[probe]["httpGet"]["path"], "/healthz", "{probe} path");
        assert_eq!(c[probe]["httpGet"]["port"], port, "{probe} port");
    }
    assert_eq!(
        deployment["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"],
        true
    );
    let labels = &deployment["spec"]["template"]["metadata"]["labels"];
    for (key, value) in service["spec"]["selector"].as_object().expect("a selector") {
        assert_eq!(&labels[key], value, "the Service selects the pods");
    }
    assert_eq!(
        service["spec"]["ports"][0]["targetPort"], port,
        "the Service targets the port served"
    );
    assert_eq!(hpa["spec"]["scaleTargetRef"]["kind"], "Deployment");
    assert_eq!(
        hpa["spec"]["scaleTargetRef"]["name"],
        deployment["metadata"]["name"]
    );
    // The Host names the server allows include the Service's.
    let service_name = service["metadata"]["name"].as_str().unwrap();
    let hosts: Vec<&str> = args
        .iter()
        .enumerate()
        .filter(|(i, _)| *i > 0 && args[i - 1] == "--allow-host")
        .map(|(_, a)| a.as_str())
        .collect();
    assert!(
        hosts.iter().any(|h| h.starts_with(service_name)),
        "{hosts:?} allow the Service name {service_name}"
    );
}

/// The replicas share one store, so sessions move and rate limits hold
/// across them (and the autoscaler's new ones): the Deployment names the
/// Redis Service, which selects the Redis pods on the port they serve.
#[test]
fn the_kubernetes_replicas_share_one_store_for_sessions_and_rate_limits() {
    let K8s {
        deployment,
        redis,
        redis_service,
        ..
    } = k8s();
    let env = container(&deployment)["env"]
        .as_array()
        .expect("container env");
    let store = env
        .iter()
        .find(|e| e["name"] == "WEATHER_SESSION_STORE")
        .and_then(|e| e["value"].as_str())
        .expect("the Deployment sets WEATHER_SESSION_STORE");
    assert_eq!(redis["kind"], "Deployment");
    assert_eq!(redis_service["kind"], "Service");
    let name = redis_service["metadata"]["name"].as_str().unwrap();
    let port = &redis_service["spec"]["ports"][0]["port"];
    assert_eq!(
        store,
        format!("redis://{name}:{port}"),
        "the store is the Redis Service"
    );
    let labels = &redis["spec"]["template"]["metadata"]["labels"];
    for (key, value) in redis_service["spec"]["selector"]
        .as_object()
        .expect("a selector")
    {
        assert_eq!(
            &labels[key], value,
            "the Redis Service selects the Redis pods"
        );
    }
    assert_eq!(
        redis_service["spec"]["ports"][0]["targetPort"],
        container(&redis)["ports"][0]["containerPort"],
        "the Redis Service targets the port Redis serves"
    );
    // The variable is the one the server reads, for both jobs.
    let help = documented_flags();
    assert!(help.iter().any(|f| f == "--session-store"), "{help:?}");
    let usage = usage();
    assert!(
        usage.contains("WEATHER_SESSION_STORE") && usage.contains("rate limits"),
        "--help says the store holds the rate limits too:\n{usage}"
    );
}

#[test]
fn the_server_with_the_deployments_arguments_answers_probes_and_its_hosts() {
    let K8s {
        deployment,
        service,
        ..
    } = k8s();
    let mut args = args(container(&deployment));
    // Same arguments, on a loopback port of this machine.
    let at = args.iter().position(|a| a == "--http").unwrap() + 1;
    args[at] = "127.0.0.1:0".into();
    args.remove(at - 1);
    args.remove(at - 1);
    let extra: Vec<&str> = args.iter().map(String::as_str).collect();
    let replica = infra::Replica::start(&extra);
    // The kubelet probes with the pod's IP as Host.
    let (status, body) = infra::http(
        &replica.addr,
        "GET",
        "/healthz",
        &[("Host", "10.1.2.3:8080")],
        "",
    );
    assert_eq!(
        (status, body.as_str()),
        (200, r#"{"status":"ok"}"#),
        "/healthz for the probes"
    );
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"k8s","version":"1"}}}"#;
    let post = |host: &str| {
        let headers = [
            ("Host", host),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        infra::http(&replica.addr, "POST", "/mcp", &headers, initialize).0
    };
    let service_host = format!(
        "{}:{}",
        service["metadata"]["name"].as_str().unwrap(),
        service["spec"]["ports"][0]["port"]
    );
    assert_eq!(
        post(&service_host),
        200,
        "clients of the Service ({service_host}) are answered"
    );
    assert_eq!(
        post("attacker.example"),
        403,
        "other Host names are refused"
    );
}
