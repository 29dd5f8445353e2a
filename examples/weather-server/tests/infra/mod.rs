//! Real infrastructure for the multi-replica tests, each piece started on
//! free loopback ports with its own directory and stopped on drop (also
//! when a test fails): `weather-server --http` replicas, `nginx` round
//! robin in front of them, `redis-server`. A missing `nginx` or
//! `redis-server` skips the test with a message, except under `CI=true`
//! (`.ci/run` installs both), where it fails.

#![allow(dead_code)] // each test binary uses its own part

mod services;
pub mod tokens;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};

pub use services::*;

/// `weather-server --http 127.0.0.1:0 [extra args]`, its stderr (with the
/// audit log of every tool call) kept.
pub struct Replica {
    pub process: Process,
    pub url: String,
    pub addr: String,
    stderr: Arc<Mutex<String>>,
}

impl Replica {
    pub fn start(extra: &[&str]) -> Self {
        Self::start_with_env(extra, &[])
    }

    /// [`Replica::start`] with these environment variables set too.
    pub fn start_with_env(extra: &[&str], vars: &[(&str, &str)]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_weather-server"))
            .args(["--http", "127.0.0.1:0"])
            .args(extra)
            .envs(vars.iter().copied())
            .env("WEATHER_LOG", "info")
            .env("RUST_BACKTRACE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("weather-server starts");
        let pipe = child.stderr.take().expect("stderr piped");
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.strip_prefix("MCP endpoint: ") {
                    let _ = tx.send(url.trim().to_owned());
                }
                let mut sink = sink.lock().unwrap_or_else(|p| p.into_inner());
                sink.push_str(&line);
                sink.push('\n');
            }
        });
        let process = Process(Some(child));
        let url = match rx.recv_timeout(PATIENCE) {
            Ok(url) => url,
            Err(_) => panic!(
                "weather-server printed no `MCP endpoint:` line; stderr:\n{}",
                stderr.lock().unwrap()
            ),
        };
        let addr = url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_owned();
        Self {
            process,
            url,
            addr,
            stderr,
        }
    }

    pub fn stderr(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Tool calls this replica served (its audit log lines).
    pub fn calls_served(&self) -> usize {
        self.stderr()
            .lines()
            .filter(|l| l.contains("tool call"))
            .count()
    }

    /// Whether the replica's log shows a panic.
    pub fn panicked(&self) -> bool {
        self.stderr().contains("panicked")
    }
}
