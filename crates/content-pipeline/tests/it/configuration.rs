//! The real binary, configured in every documented form (docs/configuration.md): from the
//! environment and from a TOML file (`--config`), durations as `15s`, `5m`, bare numbers and
//! `0`, a numeric-looking secret and model, CIDR lists and retry schedules. It must start and
//! answer `/healthz`; an invalid value must stop it with a message naming the setting.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const PREFIX: &str = "CONTENT_PIPELINE_";
const PATIENCE: Duration = Duration::from_secs(60);

/// `content-pipeline serve` in `dir` on a free port, with the test runner's own
/// `CONTENT_PIPELINE_*` variables removed, then `env` and `args` added.
fn serve(dir: &Path, env: &[(String, String)], args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_content-pipeline"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with(PREFIX) {
            command.env_remove(name);
        }
    }
    command
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("CONTENT_PIPELINE_LOG", "info")
        .args(args)
        .arg("serve")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    command
}

/// The database, key file and address of a server in `dir`, as environment variables, and
/// `more`.
fn place(dir: &Path, more: &[(&str, &str)]) -> Vec<(String, String)> {
    let database = format!("sqlite://{}", dir.join("service.db").display());
    let key_file = dir.join("service.key").display().to_string();
    [
        ("CONTENT_PIPELINE_DATABASE_URL", database.as_str()),
        ("CONTENT_PIPELINE_KEY_FILE", key_file.as_str()),
        ("CONTENT_PIPELINE_BIND", "127.0.0.1:0"),
    ]
    .iter()
    .chain(more)
    .map(|(name, value)| (name.to_string(), value.to_string()))
    .collect()
}

/// A started server, killed when dropped.
struct Running {
    child: Child,
    address: SocketAddr,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `command` and waits for the address it logs when it listens; the log is drained
/// until the process ends. Panics with the log when it exits instead.
fn start(mut command: Command) -> Running {
    let mut child = command.spawn().expect("start content-pipeline");
    let stderr = child.stderr.take().expect("stderr");
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { return };
            if lines.send(line).is_err() {
                return;
            }
        }
    });
    let deadline = Instant::now() + PATIENCE;
    let mut log = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match received.recv_timeout(left) {
            Ok(line) => {
                if let Some(address) = listening_address(&line) {
                    // Keep draining so the server never blocks on a full pipe.
                    std::thread::spawn(move || received.iter().for_each(drop));
                    return Running { child, address };
                }
                log.push(line);
            }
            Err(_) => {
                let _ = child.kill();
                let status = child.wait().ok();
                panic!("the server did not start ({status:?}):\n{}", log.join("\n"));
            }
        }
    }
}

/// The address in the start-up line `… listening address=127.0.0.1:PORT`.
fn listening_address(line: &str) -> Option<SocketAddr> {
    let plain = strip_ansi(line);
    if !plain.contains("listening") {
        return None;
    }
    let (_, rest) = plain.split_once("address=")?;
    rest.split_whitespace().next()?.parse().ok()
}

fn strip_ansi(line: &str) -> String {
    let mut plain = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters final-letter
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            plain.push(c);
        }
    }
    plain
}

/// The status line of `GET /healthz`.
fn healthz(address: SocketAddr) -> String {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .expect("request");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("response");
    response.lines().next().unwrap_or("").to_owned()
}

fn assert_serves(command: Command) {
    let server = start(command);
    assert_eq!(healthz(server.address), "HTTP/1.1 200 OK");
}

/// Runs `command` to its end; its status and what it wrote to stderr.
fn refused(mut command: Command) -> (ExitStatus, String) {
    let mut child = command.spawn().expect("start content-pipeline");
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let mut stderr = String::new();
            if let Some(mut pipe) = child.stderr.take() {
                pipe.read_to_string(&mut stderr).expect("stderr");
            }
            return (status, strip_ansi(&stderr));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the server started although its configuration is invalid");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn key() -> String {
    webhooks::SecretBox::generate_key_text()
}

#[test]
fn every_documented_form_from_the_environment() {
    let dir = tempfile::tempdir().expect("tempdir");
    let key = key();
    let env = place(
        dir.path(),
        &[
            ("CONTENT_PIPELINE_WEBHOOK_TIMEOUT", "15s"),
            ("CONTENT_PIPELINE_HTTP_IDLE_TIMEOUT", "5m"),
            ("CONTENT_PIPELINE_HTTP_HEADER_TIMEOUT", "10"),
            ("CONTENT_PIPELINE_LOG_STREAM_LIFETIME", "90"),
            ("CONTENT_PIPELINE_RUN_DEADLINE", "5m"),
            ("CONTENT_PIPELINE_RUN_CPU_LIMIT", "120"),
            ("CONTENT_PIPELINE_RUN_LEASE", "45s"),
            ("CONTENT_PIPELINE_SHUTDOWN_GRACE", "10s"),
            ("CONTENT_PIPELINE_DRIFT_INTERVAL", "0"),
            ("CONTENT_PIPELINE_WEBHOOK_RETRY_SCHEDULE", "0,5s,5m,2h"),
            ("CONTENT_PIPELINE_WEBHOOK_ALLOWED_CIDRS", "127.0.0.0/8, ::1"),
            ("CONTENT_PIPELINE_WEBHOOK_ATTEMPT_RETENTION", "30d"),
            ("CONTENT_PIPELINE_TRUSTED_PROXIES", "10.0.0.0/8, 192.0.2.10"),
            (
                "CONTENT_PIPELINE_POLISH_URL",
                "http://127.0.0.1:9/v1/chat/completions",
            ),
            ("CONTENT_PIPELINE_POLISH_API_KEY", "12345"),
            ("CONTENT_PIPELINE_POLISH_MODEL", "4"),
            ("CONTENT_PIPELINE_POLISH_TIMEOUT", "20"),
            ("CONTENT_PIPELINE_BASE_URL", "http://localhost:8080/"),
            ("CONTENT_PIPELINE_REDIS_URL", ""),
            ("CONTENT_PIPELINE_WORKERS", "true"),
            ("CONTENT_PIPELINE_LIMITS__MAX_FILE_BYTES", "2097152"),
            ("CONTENT_PIPELINE_SECRET_KEY", &key),
        ],
    );
    assert_serves(serve(dir.path(), &env, &[]));
}

#[test]
fn every_documented_form_from_a_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("service.toml");
    std::fs::write(
        &file,
        format!(
            r#"
database_url = "sqlite://{db}"
key_file = "{key_file}"
bind = "127.0.0.1:0"
secret_key = "{key}"
drift_interval = 0
run_lease = 45
shutdown_grace = 15
webhook_timeout = 15
http_idle_timeout = "5m"
http_header_timeout = "10s"
log_stream_lifetime = 90
webhook_retry_schedule = "0s,5s,5m,30m,2h,5h,10h,14h,20h,24h"
webhook_allowed_cidrs = "10.0.0.0/8,::1/128"
webhook_attempt_retention = "7d"
trusted_proxies = "10.0.0.0/8, 192.0.2.10"
polish_url = "https://polish.example.com/v1/chat/completions"
polish_api_key = "12345"
polish_model = 4
polish_timeout = "20s"

[limits]
max_file_bytes = 2097152
"#,
            db = dir.path().join("service.db").display(),
            key_file = dir.path().join("service.key").display(),
            key = key(),
        ),
    )
    .expect("write the file");
    let config = file.display().to_string();
    assert_serves(serve(dir.path(), &[], &["--config", &config]));
}

#[test]
fn a_bare_zero_drift_interval_turns_the_checker_off_and_starts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let env = place(
        dir.path(),
        &[
            ("CONTENT_PIPELINE_DRIFT_INTERVAL", "0"),
            // A numeric-looking file name is a file name.
            ("CONTENT_PIPELINE_KEY_FILE", "12345"),
        ],
    );
    assert_serves(serve(dir.path(), &env, &[]));
    assert!(dir.path().join("12345").is_file(), "the key file");
}

#[test]
fn an_invalid_value_stops_start_up_naming_the_setting() {
    let cases = [
        (
            "CONTENT_PIPELINE_WEBHOOK_TIMEOUT",
            "abc",
            "CONTENT_PIPELINE_WEBHOOK_TIMEOUT / webhook_timeout: expected a duration such as 15s, 5m, or a number of seconds, got 'abc'",
        ),
        (
            "CONTENT_PIPELINE_DRIFT_INTERVAL",
            "soon",
            "CONTENT_PIPELINE_DRIFT_INTERVAL / drift_interval:",
        ),
        (
            "CONTENT_PIPELINE_HTTP_IDLE_TIMEOUT",
            "0",
            "CONTENT_PIPELINE_HTTP_IDLE_TIMEOUT / http_idle_timeout:",
        ),
        (
            "CONTENT_PIPELINE_WEBHOOK_RETRY_SCHEDULE",
            "0s,5x",
            "CONTENT_PIPELINE_WEBHOOK_RETRY_SCHEDULE / webhook_retry_schedule:",
        ),
        (
            "CONTENT_PIPELINE_WEBHOOK_ALLOWED_CIDRS",
            "10.0.0.0/33",
            "CONTENT_PIPELINE_WEBHOOK_ALLOWED_CIDRS / webhook_allowed_cidrs:",
        ),
        (
            "CONTENT_PIPELINE_SECRET_KEY",
            "12345",
            "CONTENT_PIPELINE_SECRET_KEY / secret_key:",
        ),
        (
            "CONTENT_PIPELINE_DATABASE_URL",
            "mysql://db/cp",
            "CONTENT_PIPELINE_DATABASE_URL / database_url:",
        ),
        (
            "CONTENT_PIPELINE_POLISH_URL",
            "localhost:9",
            "CONTENT_PIPELINE_POLISH_URL / polish_url:",
        ),
        (
            "CONTENT_PIPELINE_DB_MAX_CONNECTIONS",
            "many",
            "CONTENT_PIPELINE_DB_MAX_CONNECTIONS / db_max_connections:",
        ),
    ];
    for (variable, value, message) in cases {
        let dir = tempfile::tempdir().expect("tempdir");
        let env = place(dir.path(), &[(variable, value)]);
        let (status, stderr) = refused(serve(dir.path(), &env, &[]));
        assert!(!status.success(), "{variable}={value} was accepted");
        assert!(stderr.contains(message), "{variable}={value}: {stderr}");
    }
}

#[test]
fn an_invalid_value_in_the_file_names_the_setting_and_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("service.toml");
    std::fs::write(&file, "webhook_timeout = \"abc\"\n").expect("write the file");
    let config = file.display().to_string();
    let env = place(dir.path(), &[]);
    let (status, stderr) = refused(serve(dir.path(), &env, &["--config", &config]));
    assert!(!status.success());
    assert!(
        stderr.contains(&format!(
            "CONTENT_PIPELINE_WEBHOOK_TIMEOUT / webhook_timeout: expected a duration such as 15s, 5m, or a number of seconds, got 'abc' (in {config})"
        )),
        "{stderr}"
    );
}
