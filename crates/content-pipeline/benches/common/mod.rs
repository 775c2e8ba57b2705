//! What the service's benchmarks share: the release binary started as a user starts it, its
//! CLI, a free port, and the process's CPU time. Each benchmark uses part of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The binary under measurement, built by Cargo for the benchmark.
pub const SERVER: &str = env!("CARGO_BIN_EXE_content-pipeline");

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Runs the CLI with `env` and `args`; its standard output, trimmed.
pub fn cli(env: &[(&str, String)], args: &[&str]) -> String {
    let out = Command::new(SERVER)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stderr(Stdio::inherit())
        .output()
        .expect("run the CLI");
    assert!(out.status.success(), "{args:?}: {}", out.status);
    String::from_utf8(out.stdout)
        .expect("text")
        .trim()
        .to_owned()
}

/// The server's process, stopped when the benchmark ends, however it ends.
pub struct Server(pub Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the binary with `args` (`serve`, `serve --no-workers`) and `env`, its log in
/// `dir/server.log`, and waits until `base/healthz` answers (at most 10 s).
pub async fn start(env: &[(&str, String)], args: &[&str], base: &str, dir: &Path) -> Server {
    let log = std::fs::File::create(dir.join("server.log")).expect("log file");
    let server = Server(
        Command::new(SERVER)
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start the server"),
    );
    let health = format!("{base}/healthz");
    for _ in 0..100 {
        if reqwest::get(&health)
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return server;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "the server did not answer within 10 s: {}",
        std::fs::read_to_string(dir.join("server.log")).unwrap_or_default()
    );
}

/// User plus system CPU time the process `pid` has used, all its threads together (not its
/// children).
pub fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/<pid>/stat");
    // After the command name in parentheses: state is field 3, utime 14, stime 15.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks: u64 =
        fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    // SAFETY: sysconf only reads a configuration value.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_micros(ticks * 1_000_000 / per_second)
}
