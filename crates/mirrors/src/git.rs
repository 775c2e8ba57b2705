//! The git program, run for one remote under the fetch's bounds: a clean environment, the
//! connection pinned to checked addresses, the credential out of band, every secret taken
//! out of what it says.

use std::io::Read;
use std::net::IpAddr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::credential::{Credential, basic_auth};
use crate::fetch::{
    FetchError, FetchRequest, INCOMING, POLL, STDERR_TAIL, clear_leftovers, dir_size,
};
use crate::remote::{RepoUrl, Transport};

/// What a fetch that met a redirect says (git never follows one itself; see `redirect`).
pub(crate) const REDIRECTED: &str = "the host answered with a redirect";

/// What a push says when the branch moved on the remote since it was fetched.
pub(crate) const PUSH_REJECTED: &str =
    "the push was rejected: the branch moved on the remote since it was fetched (non-fast-forward)";
/// What fetching a ref the remote does not have says (a publish target's branch before its
/// first push).
pub(crate) const NO_SUCH_BRANCH: &str = "the remote does not have this ref";

/// The git program set up for one remote: a clean environment, the connection pinned to the
/// checked addresses, redirects refused, the credential given out of band.
pub(crate) struct Session {
    git: PathBuf,
    mirror: PathBuf,
    url: String,
    env: Vec<(String, String)>,
    secrets: Vec<String>,
    max_bytes: u64,
    max_objects: u64,
    max_disk: u64,
    wall_seconds: u64,
    /// The deploy key's file, removed when the session ends.
    key_file: Option<PathBuf>,
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(path) = &self.key_file {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// How ssh names a host's key in known_hosts: `host`, or `[host]:port` off port 22.
fn host_key_name(url: &RepoUrl) -> String {
    if url.port == 22 {
        url.host.clone()
    } else {
        format!("[{}]:{}", url.host, url.port)
    }
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

impl Session {
    /// git for `url`, connecting only to `addresses`, with `credential` (which may be left
    /// out where `req`'s is not to be sent).
    pub(crate) fn new(
        req: &FetchRequest,
        url: &RepoUrl,
        credential: Option<&Credential>,
        addresses: &[IpAddr],
        mirror: &Path,
    ) -> Result<Self, FetchError> {
        let mut config: Vec<(&str, String)> = vec![
            ("protocol.allow", "never".into()),
            ("protocol.https.allow", "always".into()),
            ("protocol.http.allow", "always".into()),
            ("protocol.ssh.allow", "always".into()),
            ("http.followRedirects", "false".into()),
            ("credential.helper", String::new()),
            ("fetch.unpackLimit", "1".into()),
            ("gc.auto", "0".into()),
            ("maintenance.auto", "false".into()),
            ("core.hooksPath", "/dev/null".into()),
        ];
        let mut key_file = None;
        match url.transport {
            Transport::Http { .. } => {
                let pinned: Vec<String> = addresses
                    .iter()
                    .map(|ip| match ip {
                        IpAddr::V6(v6) => format!("[{v6}]"),
                        IpAddr::V4(v4) => v4.to_string(),
                    })
                    .collect();
                config.push((
                    "http.curloptResolve",
                    format!("{}:{}:{}", url.host, url.port, pinned.join(",")),
                ));
                if let Some(Credential::Token { username, token }) = credential {
                    config.push((
                        "http.extraHeader",
                        format!("Authorization: {}", basic_auth(username, token)),
                    ));
                }
            }
            Transport::Ssh => {
                let Some(Credential::DeployKey { private_key }) = credential else {
                    return Err(FetchError("an ssh URL needs a deploy key".into()));
                };
                let path = req.cache_dir.join(format!("{}.key", req.key));
                write_private(&path, private_key)?;
                let known_hosts = req.cache_dir.join(format!("{}.known_hosts", req.key));
                let address = addresses.first().map(IpAddr::to_string).unwrap_or_default();
                let command = [
                    "ssh -F /dev/null -o IdentitiesOnly=yes -o BatchMode=yes".to_owned(),
                    "-o StrictHostKeyChecking=accept-new -o ConnectTimeout=20".to_owned(),
                    "-o GlobalKnownHostsFile=/dev/null".to_owned(),
                    format!("-i {}", shell_quote(&path.to_string_lossy())),
                    format!(
                        "-o UserKnownHostsFile={}",
                        shell_quote(&known_hosts.to_string_lossy())
                    ),
                    // Keys are pinned per host and port, as ssh itself names them.
                    format!("-o HostKeyAlias={}", shell_quote(&host_key_name(url))),
                    format!("-o HostName={}", shell_quote(&address)),
                ]
                .join(" ");
                config.push(("core.sshCommand", command));
                key_file = Some(path);
            }
        }
        let mut env: Vec<(String, String)> = vec![
            ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
            ("HOME".into(), req.cache_dir.to_string_lossy().into_owned()),
            ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
            ("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()),
            ("GIT_TERMINAL_PROMPT".into(), "0".into()),
            ("GIT_CONFIG_COUNT".into(), config.len().to_string()),
        ];
        for (i, (key, value)) in config.into_iter().enumerate() {
            env.push((format!("GIT_CONFIG_KEY_{i}"), key.to_owned()));
            env.push((format!("GIT_CONFIG_VALUE_{i}"), value));
        }
        Ok(Self {
            git: req.git.clone(),
            mirror: mirror.to_path_buf(),
            url: url.text.clone(),
            env,
            secrets: req
                .credential
                .as_ref()
                .map(Credential::secrets)
                .unwrap_or_default(),
            max_bytes: req.limits.max_bytes,
            max_objects: req.limits.max_objects,
            max_disk: req.limits.max_disk_bytes,
            wall_seconds: req.limits.wall_seconds,
            key_file,
        })
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.git);
        cmd.env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .arg("--git-dir")
            .arg(&self.mirror)
            .args(args)
            .stdin(Stdio::null());
        // SAFETY: prctl is async-signal-safe; it only asks the kernel to kill git when the
        // thread that started it ends, so a killed fetch never leaves git writing the mirror.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        cmd
    }

    fn start(&self, mut cmd: Command) -> Result<Child, FetchError> {
        cmd.spawn()
            .map_err(|e| FetchError(format!("the git program could not be started: {e}")))
    }

    /// Runs git, killing it at the first bound it crosses; returns the bytes it added to the
    /// mirror. `before` is the mirror's size when it starts.
    pub(crate) fn bounded(
        &self,
        args: &[&str],
        deadline: Instant,
        before: u64,
    ) -> Result<u64, FetchError> {
        let mut cmd = self.command(args);
        cmd.stdout(Stdio::null()).stderr(Stdio::piped());
        let mut child = self.start(cmd)?;
        let objects = Arc::new(AtomicU64::new(0));
        let tail = Arc::new(Mutex::new(String::new()));
        let reader = child.stderr.take().map(|stderr| {
            let (objects, tail) = (objects.clone(), tail.clone());
            std::thread::spawn(move || read_progress(stderr, &objects, &tail))
        });
        let objects_dir = self.mirror.join("objects");
        let packs_dir = objects_dir.join("pack");
        let packs_before = pack_names(&packs_dir);
        let base = dir_size(&objects_dir);
        let packs_base = dir_size(&packs_dir);
        let over = |added: u64, objects: u64| -> Option<FetchError> {
            if objects > self.max_objects {
                Some(FetchError(format!(
                    "the fetch was stopped: the remote sends {objects} objects, over the limit of {} objects",
                    self.max_objects
                )))
            } else if added > self.max_bytes {
                Some(FetchError(format!(
                    "the fetch was stopped: it received more than the limit of {} MiB",
                    self.max_bytes / (1024 * 1024)
                )))
            } else if before + added > self.max_disk {
                Some(FetchError(format!(
                    "the fetch was stopped: the mirror would be larger than the disk limit of {} MiB per workspace",
                    self.max_disk / (1024 * 1024)
                )))
            } else {
                None
            }
        };
        let stopped = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Ok(status),
                Ok(None) => {}
                Err(e) => break Err(FetchError(format!("git could not be waited for: {e}"))),
            }
            if Instant::now() >= deadline {
                break Err(FetchError(format!(
                    "the fetch was stopped at its time limit ({} s)",
                    self.wall_seconds
                )));
            }
            // Received packs land in objects/pack (fetch.unpackLimit=1): cheap to measure.
            let added = dir_size(&packs_dir).saturating_sub(packs_base);
            if let Some(e) = over(added, objects.load(Ordering::Relaxed)) {
                break Err(e);
            }
            std::thread::sleep(POLL);
        };
        let status = match stopped {
            Ok(status) => status,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                if let Some(reader) = reader {
                    let _ = reader.join();
                }
                self.discard_incoming(&packs_before);
                return Err(e);
            }
        };
        if let Some(reader) = reader {
            let _ = reader.join();
        }
        if !status.success() {
            self.discard_incoming(&packs_before);
            let tail = tail.lock().map(|t| t.clone()).unwrap_or_default();
            return Err(FetchError(self.explain(&tail)));
        }
        // A fetch faster than the polling is measured once more, whole.
        let added = dir_size(&objects_dir).saturating_sub(base);
        if let Some(e) = over(added, objects.load(Ordering::Relaxed)) {
            self.discard_incoming(&packs_before);
            return Err(e);
        }
        Ok(added)
    }

    /// Forgets a fetch that is not promoted: its incoming refs and the packs it added (no
    /// other ref points into them).
    fn discard_incoming(&self, packs_before: &[std::ffi::OsString]) {
        let _ = std::fs::remove_dir_all(self.mirror.join(INCOMING));
        let packed = self.mirror.join("packed-refs");
        if let Ok(text) = std::fs::read_to_string(&packed) {
            let marker = format!(" {INCOMING}");
            let kept: String = text
                .lines()
                .filter(|line| !line.contains(&marker))
                .flat_map(|line| [line, "\n"])
                .collect();
            let _ = std::fs::write(&packed, kept);
        }
        let packs_dir = self.mirror.join("objects").join("pack");
        for name in pack_names(&packs_dir) {
            if !packs_before.contains(&name) {
                let _ = std::fs::remove_file(packs_dir.join(&name));
            }
        }
        clear_leftovers(&self.mirror);
    }

    /// The remote's default branch (`ls-remote --symref HEAD`).
    pub(crate) fn remote_head(&self, deadline: Instant) -> Result<String, FetchError> {
        let mut cmd = self.command(&[
            "ls-remote",
            "--symref",
            "--end-of-options",
            &self.url,
            "HEAD",
        ]);
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = self.start(cmd)?;
        let (mut out, mut err) = (String::new(), String::new());
        let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
        let readers = (
            stdout.map(|s| std::thread::spawn(move || read_capped(s))),
            stderr.map(|s| std::thread::spawn(move || read_capped(s))),
        );
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() < deadline => std::thread::sleep(POLL),
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(FetchError(
                        "the remote's default branch could not be read before the fetch's time limit"
                            .into(),
                    ));
                }
            }
        };
        if let Some(r) = readers.0 {
            out = r.join().unwrap_or_default();
        }
        if let Some(r) = readers.1 {
            err = r.join().unwrap_or_default();
        }
        if !status.success() {
            return Err(FetchError(self.explain(&err)));
        }
        out.lines()
            .find_map(|line| {
                line.strip_prefix("ref: refs/heads/")
                    .and_then(|rest| rest.strip_suffix("\tHEAD"))
            })
            .map(str::to_owned)
            .ok_or_else(|| {
                FetchError(
                    "the remote has no default branch (it may be empty): set default_branch".into(),
                )
            })
    }

    /// What went wrong, from git's last words, with every secret taken out.
    fn explain(&self, stderr: &str) -> String {
        let lower = stderr.to_lowercase();
        let why = if lower.contains("[rejected]")
            || lower.contains("non-fast-forward")
            || lower.contains("(fetch first)")
        {
            PUSH_REJECTED.to_owned()
        } else if let Some(line) = stderr.lines().find(|l| l.contains("[remote rejected]")) {
            format!("the host refused the push: {}", line.trim())
        } else if lower.contains("couldn't find remote ref") {
            NO_SUCH_BRANCH.to_owned()
        } else if lower.contains("authentication failed")
            || lower.contains("could not read username")
            || lower.contains("could not read password")
            || lower.contains("error: 401")
            || lower.contains("permission denied (publickey")
        {
            "authentication failed: the host refused the repository's credential (or none is set)"
                .to_owned()
        } else if lower.contains("error: 403") {
            "authentication failed: the credential may not read this repository (HTTP 403)".into()
        } else if [
            "error: 301",
            "error: 302",
            "error: 303",
            "error: 307",
            "error: 308",
        ]
        .iter()
        .any(|code| lower.contains(code))
        {
            REDIRECTED.into()
        } else if lower.contains("error: 404")
            || lower.contains("not found")
            || lower.contains("does not appear to be a git repository")
        {
            "the repository was not found at this URL (or the credential cannot see it)".into()
        } else if lower.contains("host key verification failed") {
            "the host's ssh key changed since the first fetch (host key verification failed)".into()
        } else {
            let last = stderr
                .lines()
                .rev()
                .map(str::trim)
                .find(|l| l.starts_with("fatal:") || l.starts_with("error:"))
                .unwrap_or("git fetch failed");
            format!("the fetch failed: {last}")
        };
        self.scrub(&why)
    }

    fn scrub(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for secret in &self.secrets {
            if !secret.is_empty() {
                text = text.replace(secret.as_str(), "[redacted]");
            }
        }
        text
    }
}

fn write_private(path: &Path, key: &str) -> Result<(), FetchError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let _ = std::fs::remove_file(path);
    let mut file = std::fs::OpenOptions::new()
        .create_new(true)
        .write(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| FetchError(format!("the deploy key could not be written: {e}")))?;
    file.write_all(key.as_bytes())
        .and_then(|()| {
            if key.ends_with('\n') {
                Ok(())
            } else {
                file.write_all(b"\n")
            }
        })
        .map_err(|e| FetchError(format!("the deploy key could not be written: {e}")))
}

/// The file names in a pack directory.
fn pack_names(dir: &Path) -> Vec<std::ffi::OsString> {
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default()
}

fn read_capped(mut from: impl Read) -> String {
    let mut buf = Vec::new();
    let _ = (&mut from).take(1024 * 1024).read_to_end(&mut buf);
    // Drain the rest so the writer never blocks.
    let _ = std::io::copy(&mut from, &mut std::io::sink());
    String::from_utf8_lossy(&buf).into_owned()
}

/// Reads git's progress: the object count of `Receiving objects: n% (a/b)` into `objects`,
/// and the last lines into `tail`.
fn read_progress(mut from: impl Read, objects: &AtomicU64, tail: &Mutex<String>) {
    let mut buf = [0u8; 4096];
    let mut line = Vec::new();
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for &b in &buf[..n] {
            if b == b'\r' || b == b'\n' {
                let text = String::from_utf8_lossy(&line).into_owned();
                if let Some(total) = receiving_total(&text) {
                    objects.fetch_max(total, Ordering::Relaxed);
                }
                if !text.trim().is_empty()
                    && !text.contains("objects:")
                    && !text.contains("deltas:")
                    && let Ok(mut t) = tail.lock()
                {
                    {
                        t.push_str(&text);
                        t.push('\n');
                        if t.len() > STDERR_TAIL {
                            let cut = t.len() - STDERR_TAIL;
                            let cut = (cut..t.len()).find(|i| t.is_char_boundary(*i)).unwrap_or(0);
                            t.drain(..cut);
                        }
                    }
                }
                line.clear();
            } else if line.len() < 4096 {
                line.push(b);
            }
        }
    }
}

/// `b` of `Receiving objects:  12% (a/b)`.
fn receiving_total(line: &str) -> Option<u64> {
    let rest = line.trim_start().strip_prefix("Receiving objects:")?;
    let inside = rest.split_once('(')?.1.split_once(')')?.0;
    inside.split_once('/')?.1.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_object_count_from_progress() {
        assert_eq!(
            receiving_total("Receiving objects:  45% (450/1000), 1.20 MiB | 2.00 MiB/s"),
            Some(1000)
        );
        assert_eq!(receiving_total("remote: Counting objects: 5"), None);
    }
}
