//! An OTLP/HTTP receiver on loopback for the trace tests: it answers every
//! `POST` with `200`, keeps the protobuf bodies sent to `/v1/traces` and
//! `/v1/metrics`, and decodes them into flat spans and histogram points.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, KeyValue};
use opentelemetry_proto::tonic::metrics::v1::metric;
use prost::Message;

/// One exported span, flattened.
#[derive(Debug, Clone)]
pub struct Span {
    pub name: String,
    /// `SERVER`, `CLIENT`, `INTERNAL`, …
    pub kind: &'static str,
    pub trace_id: String,
    pub span_id: String,
    /// Empty for a root span.
    pub parent_span_id: String,
    /// `ERROR`, `OK` or `UNSET`.
    pub status: &'static str,
    /// The status's description (empty when it has none).
    pub status_message: String,
    pub attributes: BTreeMap<String, String>,
}

/// One data point of a histogram.
#[derive(Debug, Clone)]
pub struct Point {
    pub metric: String,
    pub count: u64,
    pub attributes: BTreeMap<String, String>,
}

/// The bodies received, with the path each was sent to.
type Bodies = Mutex<Vec<(String, Vec<u8>)>>;

/// The receiver; stops accepting when the test process ends.
pub struct Receiver {
    /// `http://127.0.0.1:PORT`, for `OTEL_EXPORTER_OTLP_ENDPOINT`.
    pub endpoint: String,
    bodies: Arc<Bodies>,
}

impl Receiver {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&bodies);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = Arc::clone(&kept);
                std::thread::spawn(move || serve(stream, &kept));
            }
        });
        Self { endpoint, bodies }
    }

    fn bodies(&self, path: &str) -> Vec<Vec<u8>> {
        let bodies = self.bodies.lock().unwrap();
        bodies
            .iter()
            .filter(|(p, _)| p == path)
            .map(|(_, b)| b.clone())
            .collect()
    }

    /// Every span received so far.
    pub fn spans(&self) -> Vec<Span> {
        let mut spans = Vec::new();
        for body in self.bodies("/v1/traces") {
            let request = ExportTraceServiceRequest::decode(body.as_slice())
                .expect("a valid ExportTraceServiceRequest");
            for resource in request.resource_spans {
                for scope in resource.scope_spans {
                    for s in scope.spans {
                        spans.push(Span {
                            name: s.name,
                            kind: match s.kind {
                                1 => "INTERNAL",
                                2 => "SERVER",
                                3 => "CLIENT",
                                4 => "PRODUCER",
                                5 => "CONSUMER",
                                _ => "UNSPECIFIED",
                            },
                            trace_id: hex(&s.trace_id),
                            span_id: hex(&s.span_id),
                            parent_span_id: hex(&s.parent_span_id),
                            status_message: s
                                .status
                                .as_ref()
                                .map(|st| st.message.clone())
                                .unwrap_or_default(),
                            status: match s.status.map(|st| st.code) {
                                Some(1) => "OK",
                                Some(2) => "ERROR",
                                _ => "UNSET",
                            },
                            attributes: attributes(&s.attributes),
                        });
                    }
                }
            }
        }
        spans
    }

    /// Every histogram point received so far.
    pub fn points(&self) -> Vec<Point> {
        let mut points = Vec::new();
        for body in self.bodies("/v1/metrics") {
            let request = ExportMetricsServiceRequest::decode(body.as_slice())
                .expect("a valid ExportMetricsServiceRequest");
            for resource in request.resource_metrics {
                for scope in resource.scope_metrics {
                    for m in scope.metrics {
                        if let Some(metric::Data::Histogram(h)) = m.data {
                            for p in h.data_points {
                                points.push(Point {
                                    metric: m.name.clone(),
                                    count: p.count,
                                    attributes: attributes(&p.attributes),
                                });
                            }
                        }
                    }
                }
            }
        }
        points
    }

    /// Waits (bounded) until `find` finds something in what arrived.
    pub fn wait<T>(&self, what: &str, find: impl Fn(&Self) -> Option<T>) -> T {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(found) = find(self) {
                return found;
            }
            assert!(
                Instant::now() < deadline,
                "the OTLP receiver got no {what} within 30 s; spans: {:#?}",
                self.spans()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Attributes with their values as text (strings as they are).
fn attributes(pairs: &[KeyValue]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|kv| {
            let value = match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
                Some(any_value::Value::StringValue(s)) => s.clone(),
                Some(any_value::Value::IntValue(i)) => i.to_string(),
                Some(any_value::Value::BoolValue(b)) => b.to_string(),
                Some(any_value::Value::DoubleValue(d)) => d.to_string(),
                other => format!("{other:?}"),
            };
            (kv.key.clone(), value)
        })
        .collect()
}

/// Serves one connection's requests (HTTP/1.1, `Content-Length` bodies).
fn serve(stream: TcpStream, kept: &Bodies) {
    let mut reader = BufReader::new(stream.try_clone().expect("a second handle"));
    let mut writer = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
        let mut length = 0usize;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        kept.lock().unwrap().push((path, body));
        let answer =
            b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n";
        if writer.write_all(answer).is_err() {
            return;
        }
    }
}
