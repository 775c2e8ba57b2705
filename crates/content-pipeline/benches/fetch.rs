//! Repositories by URL, measured (issue: "the code where it lives"): the sandboxed child that
//! fetches a workspace's remote into its mirror, against a real Git server on loopback
//! (`git http-backend`), on a generated repository of 5,000 commits and 2,000 files.
//!
//! - first clone, and a no-op fetch after it: wall time and the peak resident memory of the
//!   child and the git it runs (`wait4`'s rusage of the whole process tree);
//! - after a push of one commit: a run that fetches then reads the new commit, against the
//!   same run on a local checkout (the baseline, in the same process, alternated).
//!
//! `cargo bench -p content-pipeline --bench fetch` (release build of the binary it starts).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use testkit::{GitServer, push_to_bare};
use workers::sandbox::protocol::{Job, Work};
use workers::sandbox::{ResourceLimits, Source};

const COMMITS: usize = 5_000;
const FILES: usize = 2_000;
const ROUNDS: usize = 5;

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let server = runtime.block_on(GitServer::start());
    let dir = tempfile::tempdir().expect("tempdir");
    let work = dir.path().join("work");
    let generated = Instant::now();
    generate(&work);
    eprintln!(
        "generated {COMMITS} commits, {FILES} files in {:.1} s",
        generated.elapsed().as_secs_f64()
    );
    let bare = server.create_bare("bench");
    push_to_bare(&work, &bare, "+HEAD:refs/heads/main");
    let cache = dir.path().join("mirrors");
    let remote = |want: Option<String>| Source::Remote {
        fetch: Box::new(mirrors::FetchRequest {
            git: workers::sandbox::find_program("git").expect("git on the PATH"),
            cache_dir: cache.clone(),
            key: "ws_bench".into(),
            url: server.url("bench"),
            credential: None,
            default_branch: None,
            allowed_cidrs: "127.0.0.0/8".into(),
            limits: mirrors::FetchLimits::default(),
            want,
        }),
    };
    let fetch_only = |source: Source| Work::Drift {
        repo: source,
        git_ref: None,
        articles: Vec::new(),
    };

    let clone = measure(fetch_only(remote(None)));
    let noop = measure(fetch_only(remote(None)));
    println!("| first clone | {} |", clone.row());
    println!("| no-op fetch | {} |", noop.row());

    // One more commit on the server; then runs alternate between the local checkout and the
    // remote (each remote run after its own one-commit push, so it always fetches).
    let mut local = Vec::new();
    let mut fetched = Vec::new();
    for round in 0..ROUNDS {
        commit_one(&work, round);
        push_to_bare(&work, &bare, "+HEAD:refs/heads/main");
        local.push(measure(run(Source::Path { path: work.clone() })));
        fetched.push(measure(run(remote(None))));
    }
    let (l, f) = (median(&local), median(&fetched));
    println!(
        "| run on a local checkout (median of {ROUNDS}) | {} |",
        l.row()
    );
    println!(
        "| run after a one-commit push: fetch + run (median of {ROUNDS}) | {} |",
        f.row()
    );
    println!(
        "ratio fetch + run / local run: {:.2} (target at most 1.5)",
        f.seconds / l.seconds
    );
    drop(server);
}

fn run(source: Source) -> Work {
    Work::Run {
        repo: source,
        git_ref: None,
        feature_id: "core".into(),
        since_commit: None,
        previous_commit: None,
        surfaces: None,
        versions: Vec::new(),
    }
}

#[derive(Clone, Copy)]
struct Sample {
    seconds: f64,
    peak_mib: f64,
}

impl Sample {
    fn row(&self) -> String {
        format!("{:.2} s | {:.0} MiB", self.seconds, self.peak_mib)
    }
}

fn median(samples: &[Sample]) -> Sample {
    let mut by_time = samples.to_vec();
    by_time.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    by_time[by_time.len() / 2]
}

/// Runs one job in `content-pipeline sandbox`, as the workers do, and measures it.
// The child is waited for with `wait4` (for its rusage), which clippy does not see.
#[allow(clippy::zombie_processes)]
fn measure(work: Work) -> Sample {
    let job = Job {
        resources: ResourceLimits::default(),
        limits: pipeline::Limits::default(),
        work,
    };
    let body = serde_json::to_vec(&job).expect("job");
    let started = Instant::now();
    let mut child = Command::new(program())
        .arg("sandbox")
        .env_clear()
        .env("MIMALLOC_ARENA_RESERVE", "64MiB")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the sandbox");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&body)
        .expect("write the job");
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().expect("stdout"), &mut out)
        .expect("read");
    let (status, peak) = wait_with_rusage(child.id() as i32);
    let seconds = started.elapsed().as_secs_f64();
    assert!(status == 0, "the sandbox failed: {out}");
    let last = out.lines().last().unwrap_or_default();
    assert!(
        !last.contains("\"Err\""),
        "the job failed: {}",
        &last[..last.len().min(600)]
    );
    Sample {
        seconds,
        peak_mib: peak as f64 / 1024.0,
    }
}

/// Waits for `pid`; its exit status and the peak RSS (KiB) of it and the children it waited
/// for (the git it ran).
fn wait_with_rusage(pid: i32) -> (i32, i64) {
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our own child, not yet waited for; both pointers are valid.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4");
    (status, usage.ru_maxrss)
}

/// The release binary when built (`cargo bench` builds it), else the one cargo names.
fn program() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_content-pipeline"))
}

/// A repository of [`COMMITS`] commits over [`FILES`] documented Rust files in 20 folders, a
/// manifest with the feature `core` (one folder), written with `git fast-import`.
fn generate(work: &Path) {
    git(
        work.parent().expect("parent"),
        &["init", "-q", "-b", "main", &work.to_string_lossy()],
    );
    let mut stream = String::new();
    let mark_of_file = |i: usize, version: usize| -> String {
        format!(
            "//! Module {i}.\n\n/// Returns {version} plus `x` (file {i}).\npub fn f{i}(x: i64) -> i64 {{\n    x + {version}\n}}\n"
        )
    };
    let mut time = 1_700_000_000u64;
    for c in 0..COMMITS {
        time += 3600;
        let message = if c == 0 {
            "feat: start".to_owned()
        } else {
            format!("feat: change f{} ({c})", c % FILES)
        };
        stream.push_str(&format!(
            "commit refs/heads/main\ncommitter Bench <bench@example.com> {time} +0000\ndata {}\n{message}\n",
            message.len()
        ));
        if c == 0 {
            let manifest = "[[features]]\nid = \"core\"\ntitle = \"Core\"\nsummary = \"The core functions.\"\npaths = [\"src/m00/**\"]\nsurfaces = [\"dev-docs\", \"changelog\"]\n";
            stream.push_str(&inline(".content-pipeline/features.toml", manifest));
            for i in 0..FILES {
                stream.push_str(&inline(&path_of(i), &mark_of_file(i, 0)));
            }
        } else {
            let i = c % FILES;
            stream.push_str(&inline(&path_of(i), &mark_of_file(i, c)));
        }
        stream.push('\n');
    }
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(work)
        .stdin(Stdio::piped())
        .spawn()
        .expect("git fast-import");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stream.as_bytes())
        .expect("write the stream");
    assert!(child.wait().expect("wait").success(), "fast-import failed");
    git(work, &["reset", "-q", "--hard", "main"]);
}

fn inline(path: &str, content: &str) -> String {
    format!(
        "M 100644 inline {path}\ndata {}\n{content}\n",
        content.len()
    )
}

fn path_of(i: usize) -> String {
    format!("src/m{:02}/f{i}.rs", i % 20)
}

fn commit_one(work: &Path, round: usize) {
    let path = work.join("src/m00/f0.rs");
    std::fs::write(&path, format!("//! Module 0.\n\n/// Round {round}.\npub fn f0(x: i64) -> i64 {{\n    x - {round}\n}}\n"))
        .expect("write");
    git(work, &["add", "-A"]);
    git(
        work,
        &[
            "-c",
            "user.name=Bench",
            "-c",
            "user.email=bench@example.com",
            "commit",
            "-q",
            "-m",
            &format!("fix: round {round}"),
        ],
    );
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .status()
        .expect("git");
    assert!(status.success(), "git {args:?}");
}
