//! A real ssh server on loopback: Debian's OpenSSH `sshd` (package `openssh-server`) with a
//! configuration, a host key and an `authorized_keys` of its own in a temp dir. Git reaches
//! the bare repositories on disk through it (`git-upload-pack` run by the user's shell), as it
//! reaches a forge over ssh with a deploy key.
//!
//! It logs in the user the tests run as (root in CI), by public key only.

use std::io::Write as _;
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The OpenSSH server program.
const SSHD: &str = "/usr/sbin/sshd";
/// How long sshd may take to listen.
const STARTUP: Duration = Duration::from_secs(10);

/// An OpenSSH server on `127.0.0.1`, killed when dropped.
pub struct SshServer {
    child: Child,
    port: u16,
    user: String,
    authorized_keys: PathBuf,
    log: PathBuf,
    // Last, so that the files go after the server has stopped.
    dir: tempfile::TempDir,
}

impl SshServer {
    /// Starts sshd on a free port of `127.0.0.1` and waits until it accepts connections;
    /// `None` when `/usr/sbin/sshd` is not installed. No key is authorized yet. Panics when
    /// sshd is installed but does not start (with its log).
    pub fn start() -> Option<SshServer> {
        if !Path::new(SSHD).exists() {
            return None;
        }
        let dir = tempfile::tempdir().expect("a temp dir for the ssh server");
        let user = current_user();
        if user == "root" {
            // sshd checks its privilege-separation directory before it starts.
            std::fs::create_dir_all("/run/sshd").expect("create /run/sshd");
        }
        new_host_key(dir.path());
        let authorized_keys = dir.path().join("authorized_keys");
        std::fs::write(&authorized_keys, "").expect("write authorized_keys");
        let log = dir.path().join("sshd.log");

        // A free port is picked by binding and letting go; another process may take it in
        // between, so a server that does not come up is tried again on another port.
        let mut last_log = String::new();
        for _ in 0..3 {
            let port = free_port();
            match spawn(dir.path(), &user, port) {
                Ok(child) => {
                    return Some(SshServer {
                        child,
                        port,
                        user,
                        authorized_keys,
                        log,
                        dir,
                    });
                }
                Err(log) => last_log = log,
            }
        }
        panic!("sshd did not start on 127.0.0.1; its log:\n{last_log}");
    }

    /// Restarts sshd on the same port with a new host key, as a host reinstalled (or a
    /// server in the middle) would answer.
    pub fn replace_host_key(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let dir = self.dir.path();
        new_host_key(dir);
        self.child = spawn(dir, &self.user, self.port)
            .unwrap_or_else(|log| panic!("sshd did not restart; its log:\n{log}"));
    }

    /// Makes `public_key_line` (`ssh-ed25519 AAAA… comment`) the only key that may log in,
    /// from the next connection on.
    pub fn authorize(&self, public_key_line: &str) {
        let mut file = std::fs::File::create(&self.authorized_keys).expect("write authorized_keys");
        writeln!(file, "{}", public_key_line.trim()).expect("write authorized_keys");
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The user that logs in (the one the tests run as).
    pub fn user(&self) -> &str {
        &self.user
    }

    /// `ssh://<user>@127.0.0.1:<port><absolute path>` of a repository on this machine.
    pub fn url(&self, bare_repo_path: &Path) -> String {
        let path = std::path::absolute(bare_repo_path).expect("an absolute repository path");
        format!(
            "ssh://{}@127.0.0.1:{}{}",
            self.user,
            self.port,
            path.display()
        )
    }

    /// What sshd has logged so far (connections, accepted and refused keys): for a failing
    /// test's message.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for SshServer {
    fn drop(&mut self) {
        // The listener; sessions still open end with their clients.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A new host key `<dir>/host_key` (replacing one there).
fn new_host_key(dir: &Path) {
    let host_key = dir.join("host_key");
    let _ = std::fs::remove_file(&host_key);
    let _ = std::fs::remove_file(host_key.with_extension("pub"));
    run(Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "testkit-sshd", "-f"])
        .arg(&host_key));
}

/// Writes `<dir>/sshd_config` for `port` and starts sshd on it, its log in `<dir>/sshd.log`;
/// the log when it did not come up.
fn spawn(dir: &Path, user: &str, port: u16) -> Result<Child, String> {
    let text = [
        format!("Port {port}"),
        "ListenAddress 127.0.0.1".to_owned(),
        format!("HostKey {}", dir.join("host_key").display()),
        format!("PidFile {}", dir.join("sshd.pid").display()),
        format!(
            "AuthorizedKeysFile {}",
            dir.join("authorized_keys").display()
        ),
        "PubkeyAuthentication yes".to_owned(),
        "PasswordAuthentication no".to_owned(),
        "KbdInteractiveAuthentication no".to_owned(),
        "UsePAM no".to_owned(),
        "StrictModes no".to_owned(),
        format!("AllowUsers {user}"),
        format!(
            "PermitRootLogin {}",
            if user == "root" {
                "prohibit-password"
            } else {
                "no"
            }
        ),
        "AllowTcpForwarding no".to_owned(),
        "X11Forwarding no".to_owned(),
        "PrintMotd no".to_owned(),
        "LogLevel VERBOSE".to_owned(),
        String::new(),
    ]
    .join("\n");
    let config = dir.join("sshd_config");
    std::fs::write(&config, text).expect("write sshd_config");
    let log = dir.join("sshd.log");
    let log_file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .expect("open the sshd log");
    let mut child = Command::new(SSHD)
        .arg("-D")
        .arg("-e")
        .arg("-f")
        .arg(&config)
        .arg("-p")
        .arg(port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log_file)
        .spawn()
        .expect("start /usr/sbin/sshd");
    if wait_for_listener(&mut child, port) {
        return Ok(child);
    }
    let _ = child.kill();
    let _ = child.wait();
    Err(std::fs::read_to_string(&log).unwrap_or_default())
}

/// The name of the user the tests run as (`id -un`).
fn current_user() -> String {
    let output = Command::new("id")
        .arg("-un")
        .output()
        .expect("run `id -un`");
    assert!(output.status.success(), "`id -un` failed");
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .expect("a free port on 127.0.0.1")
        .port()
}

/// Whether sshd accepts TCP on `port` before [`STARTUP`] has passed (false when it exited).
fn wait_for_listener(child: &mut Child, port: u16) -> bool {
    let deadline = Instant::now() + STARTUP;
    let address = SocketAddrV4::new(Ipv4Addr::LOCALHOST, port).into();
    while Instant::now() < deadline {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return false;
        }
        if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// Runs a program; panics with its stderr when it fails.
fn run(command: &mut Command) {
    let output = command.output().expect("run a program");
    assert!(
        output.status.success(),
        "{command:?} failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}
