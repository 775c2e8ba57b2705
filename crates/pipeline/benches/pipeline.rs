//! `cargo bench --bench pipeline`: generates a repository of 2,000 source files in four
//! languages and 5,000 commits, then measures one run over a 200-file feature, a drift check
//! over 100 features, and the peak memory of the measuring process.
//!
//! The repository is generated (and later changed) by child processes of this same binary,
//! so the peak memory reported is the pipeline's, not the generator's.

use domain::Surface;
use git2::{FileMode, Oid, Repository, Signature, Time};
use pipeline::{DriftChecker, Provenance, RunRequest};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const PACKAGES: usize = 20;
const SUBS: usize = 5;
const FILES_PER_SUB: usize = 20; // 5 per language
const COMMITS: usize = 5_000;
const LANGUAGES: [&str; 4] = ["rs", "py", "ts", "go"];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(pos) = args.iter().position(|a| a == "--generate") {
        generate(Path::new(&args[pos + 1]));
        return;
    }
    if let Some(pos) = args.iter().position(|a| a == "--change") {
        change(Path::new(&args[pos + 1]));
        return;
    }

    let dir = tempfile::tempdir().expect("temporary folder");
    let repo_path = dir.path().join("bench-repo");
    let started = Instant::now();
    child("--generate", &repo_path);
    println!(
        "generated repository: {} files, {COMMITS} commits in {:.2} s",
        PACKAGES * SUBS * FILES_PER_SUB,
        started.elapsed().as_secs_f64()
    );

    let versions = BTreeMap::new();
    let request = RunRequest {
        commit: None,
        repo: &repo_path,
        feature_id: "bench-200",
        since_commit: None,
        surfaces: None,
        versions: &versions,
        limits: &pipeline::Limits::default(),
    };
    let started = Instant::now();
    let output = pipeline::run(&request, &mut pipeline::DiscardLog).expect("run");
    let run_time = started.elapsed();
    // The dev-docs article's provenance holds the code files and symbols (help-center's only
    // its documents and captures).
    let dev_docs = output
        .articles
        .iter()
        .find(|a| a.surface == domain::Surface::DevDocs)
        .expect("a dev-docs article");
    let files = dev_docs.provenance.files.len();
    let symbols = dev_docs.provenance.symbols.len();
    let articles = output.articles.len();
    println!(
        "run (feature of {files} files, {symbols} symbols, {articles} articles, first run over the whole history): {:.3} s   (target ≤ 2 s)",
        run_time.as_secs_f64()
    );
    let started = Instant::now();
    pipeline::run(&request, &mut pipeline::DiscardLog).expect("run");
    println!(
        "run again (warm caches): {:.3} s",
        started.elapsed().as_secs_f64()
    );

    let started = Instant::now();
    let provenances: Vec<Provenance> = (0..PACKAGES * SUBS)
        .map(|i| {
            let id = format!("f-{:02}-{}", i / SUBS, i % SUBS);
            let out = pipeline::run(
                &RunRequest {
                    commit: None,
                    repo: &repo_path,
                    feature_id: &id,
                    since_commit: None,
                    surfaces: Some(&[Surface::DevDocs]),
                    versions: &versions,
                    limits: &pipeline::Limits::default(),
                },
                &mut pipeline::DiscardLog,
            )
            .expect("run");
            out.articles[0].provenance.clone()
        })
        .collect();
    println!(
        "recorded provenance of 100 features (100 dev-docs runs): {:.2} s",
        started.elapsed().as_secs_f64()
    );

    child("--change", &repo_path);
    let started = Instant::now();
    let checker =
        DriftChecker::open(&repo_path, &pipeline::Limits::default()).expect("drift checker");
    let mut drifted = 0;
    let mut changes = 0;
    for provenance in &provenances {
        let found = checker.check(provenance).expect("check");
        drifted += usize::from(!found.is_empty());
        changes += found.len();
    }
    let drift_time = started.elapsed();
    println!(
        "drift check of 100 features after 60 more commits ({drifted} drifted, {changes} changes): {:.3} s   (target ≤ 1 s)",
        drift_time.as_secs_f64()
    );

    let peak = peak_memory_mib();
    println!("peak memory (pipeline process): {peak:.1} MiB   (target ≤ 200 MiB)");
    let ok = run_time.as_secs_f64() <= 2.0 && drift_time.as_secs_f64() <= 1.0 && peak <= 200.0;
    println!(
        "{}",
        if ok {
            "all targets met"
        } else {
            "TARGET MISSED"
        }
    );
}

fn child(mode: &str, repo: &Path) {
    let exe = std::env::current_exe().expect("own executable");
    let status = Command::new(exe)
        .arg(mode)
        .arg(repo)
        .status()
        .expect("start generator");
    assert!(status.success(), "{mode} failed");
}

fn peak_memory_mib() -> f64 {
    // SAFETY: getrusage only writes into the struct we pass.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    usage.ru_maxrss as f64 / 1024.0 // kilobytes on Linux
}

/// Deterministic pseudo-random numbers (an LCG), so every run benches the same repository.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % bound as u64) as usize
    }
}

fn file_name(sub_file: usize) -> String {
    let language = LANGUAGES[sub_file % 4];
    format!("m{sub_file:02}.{language}")
}

/// Source of one file at one revision: four documented public symbols and a private helper.
/// `rev` changes one function body, `order` reorders declarations without changing them.
fn source(language: &str, id: usize, rev: usize, order: bool) -> String {
    let mut parts: Vec<String> = (0..4)
        .map(|k| {
            let value = if k == rev % 4 { rev } else { 0 };
            match language {
                "rs" => format!(
                    "/// Computes value {k} of item {id}. Used by the report.\npub fn compute_{k}(input: u64) -> u64 {{\n    let base = input * {k};\n    base + {value}\n}}\n\n/// Options of step {k}.\npub struct Options{k} {{\n    pub size: usize,\n}}\n"
                ),
                "py" => format!(
                    "def compute_{k}(value: int) -> int:\n    \"\"\"Computes value {k} of item {id}.\"\"\"\n    base = value * {k}\n    return base + {value}\n\n\nclass Options{k}:\n    \"\"\"Options of step {k}.\"\"\"\n\n    def size(self) -> int:\n        \"\"\"Returns the size.\"\"\"\n        return {k}\n"
                ),
                "ts" => format!(
                    "/** Computes value {k} of item {id}. */\nexport function compute{k}(input: number): number {{\n  const base = input * {k};\n  return base + {value};\n}}\n\n/** Options of step {k}. */\nexport interface Options{k} {{\n  size: number;\n}}\n"
                ),
                _ => format!(
                    "// Compute{k} computes value {k} of item {id}.\nfunc Compute{k}(input int) int {{\n\tbase := input * {k}\n\treturn base + {value}\n}}\n\n// Options{k} are the options of step {k}.\ntype Options{k} struct {{\n\tSize int\n}}\n"
                ),
            }
        })
        .collect();
    if order {
        parts.reverse();
    }
    let header = match language {
        "rs" => "//! Generated module.\n\nfn helper() -> u32 {\n    7\n}\n\n".to_string(),
        "py" => "\"\"\"Generated module.\"\"\"\n\n\ndef _helper():\n    return 7\n\n\n".to_string(),
        "ts" => "function helper(): number {\n  return 7;\n}\n\n".to_string(),
        _ => "package generated\n\nfunc helper() int {\n\treturn 7\n}\n\n".to_string(),
    };
    format!("{header}{}", parts.join("\n"))
}

fn manifest() -> String {
    let mut out = String::from(
        "[[features]]\nid = \"bench-200\"\ntitle = \"Bench feature\"\nsummary = \"The two first packages.\"\npaths = [\"pkg00/**\", \"pkg01/**\"]\n\n[[features.steps]]\ntitle = \"Open it\"\nbody = \"Open the **thing**.\"\n",
    );
    for p in 0..PACKAGES {
        for s in 0..SUBS {
            out.push_str(&format!(
                "\n[[features]]\nid = \"f-{p:02}-{s}\"\ntitle = \"Feature {p} {s}\"\npaths = [\"pkg{p:02}/sub{s}/**\"]\n"
            ));
        }
    }
    out
}

/// The in-memory layout of the generated repository.
struct Layout {
    /// [pkg][sub][file] = (revision, reordered)
    revisions: Vec<Vec<Vec<(usize, bool)>>>,
    blobs: Vec<Vec<Vec<Oid>>>,
    names: Vec<Vec<Vec<String>>>,
}

fn write_tree(repo: &Repository, entries: &[(String, Oid, FileMode)]) -> Oid {
    let mut builder = repo.treebuilder(None).expect("treebuilder");
    for (name, oid, mode) in entries {
        builder
            .insert(name, *oid, i32::from(*mode))
            .expect("insert");
    }
    builder.write().expect("write tree")
}

fn root_tree(
    repo: &Repository,
    layout: &Layout,
    manifest: Oid,
    sub_trees: &mut [Vec<Option<Oid>>],
) -> Oid {
    let mut root = Vec::new();
    for (p, (pkg_blobs, pkg_trees)) in layout.blobs.iter().zip(sub_trees.iter_mut()).enumerate() {
        let mut pkg = Vec::new();
        for (s, (blobs, tree)) in pkg_blobs.iter().zip(pkg_trees.iter_mut()).enumerate() {
            let tree = *tree.get_or_insert_with(|| {
                let entries: Vec<_> = blobs
                    .iter()
                    .zip(&layout.names[p][s])
                    .map(|(oid, name)| (name.clone(), *oid, FileMode::Blob))
                    .collect();
                write_tree(repo, &entries)
            });
            pkg.push((format!("sub{s}"), tree, FileMode::Tree));
        }
        root.push((format!("pkg{p:02}"), write_tree(repo, &pkg), FileMode::Tree));
    }
    let config = write_tree(
        repo,
        &[("features.toml".to_string(), manifest, FileMode::Blob)],
    );
    root.push((".content-pipeline".to_string(), config, FileMode::Tree));
    write_tree(repo, &root)
}

const MESSAGES: [&str; 10] = [
    "feat(core): add option {n}",
    "fix: handle empty <input> in step {n}",
    "refactor: simplify step {n}",
    "Update item {n}",
    "docs: explain {braces} in step {n}",
    "perf: faster step {n}",
    "feat!: change the step {n} format",
    "chore: tidy {n}",
    "fix(security): escape value {n}",
    "test: cover step {n}",
];

fn generate(path: &Path) {
    let repo = Repository::init(path).expect("init");
    let odb = repo.odb().expect("odb");
    let mempack = odb.add_new_mempack_backend(1000).expect("mempack");
    let mut layout = Layout {
        revisions: vec![vec![vec![(0, false); FILES_PER_SUB]; SUBS]; PACKAGES],
        blobs: Vec::new(),
        names: Vec::new(),
    };
    for p in 0..PACKAGES {
        let mut pkg_blobs = Vec::new();
        let mut pkg_names = Vec::new();
        for s in 0..SUBS {
            let mut blobs = Vec::new();
            let mut names = Vec::new();
            for f in 0..FILES_PER_SUB {
                let name = file_name(f);
                let id = (p * SUBS + s) * FILES_PER_SUB + f;
                let language = LANGUAGES[f % 4];
                blobs.push(
                    repo.blob(source(language, id, 0, false).as_bytes())
                        .expect("blob"),
                );
                names.push(name);
            }
            pkg_blobs.push(blobs);
            pkg_names.push(names);
        }
        layout.blobs.push(pkg_blobs);
        layout.names.push(pkg_names);
    }
    let manifest = repo.blob(manifest().as_bytes()).expect("manifest");
    let mut sub_trees = vec![vec![None; SUBS]; PACKAGES];
    let authors = [
        "Ada Lovelace",
        "Grace Hopper",
        "Alan Turing",
        "Barbara Liskov",
    ];
    let mut rng = Lcg(42);
    let mut parent: Option<Oid> = None;
    for n in 0..COMMITS {
        if n > 0 {
            let (p, s, f) = (rng.next(PACKAGES), rng.next(SUBS), rng.next(FILES_PER_SUB));
            let (rev, order) = &mut layout.revisions[p][s][f];
            *rev += 1;
            if *rev % 5 == 0 {
                *order = !*order;
            }
            let id = (p * SUBS + s) * FILES_PER_SUB + f;
            let text = source(LANGUAGES[f % 4], id, *rev, *order);
            layout.blobs[p][s][f] = repo.blob(text.as_bytes()).expect("blob");
            sub_trees[p][s] = None;
        }
        let tree = root_tree(&repo, &layout, manifest, &mut sub_trees);
        let tree = repo.find_tree(tree).expect("tree");
        let when = Time::new(1_600_000_000 + n as i64 * 600, 0);
        let author = authors[n % authors.len()];
        let signature = Signature::new(author, "dev@example.com", &when).expect("signature");
        let message = if n == 0 {
            "chore: initial import".to_string()
        } else {
            MESSAGES[n % MESSAGES.len()].replace("{n}", &n.to_string())
        };
        let parents: Vec<git2::Commit> = parent
            .iter()
            .map(|p| repo.find_commit(*p).expect("parent"))
            .collect();
        let parent_refs: Vec<&git2::Commit> = parents.iter().collect();
        parent = Some(
            repo.commit(None, &signature, &signature, &message, &tree, &parent_refs)
                .expect("commit"),
        );
    }
    let mut pack = git2::Buf::new();
    mempack.dump(&repo, &mut pack).expect("dump");
    let mut writer = odb.packwriter().expect("packwriter");
    std::io::Write::write_all(&mut writer, &pack).expect("write pack");
    writer.commit().expect("commit pack");
    mempack.reset().expect("reset");
    let head = parent.expect("commits");
    repo.reference("refs/heads/main", head, true, "bench")
        .expect("ref");
    repo.set_head("refs/heads/main").expect("HEAD");
}

/// 60 more commits: 30 changed functions, 10 reordered files (not drift), 10 deleted and 10
/// renamed files, spread over the packages.
fn change(path: &Path) {
    let repo = Repository::open(path).expect("open");
    let mut rng = Lcg(7);
    for n in 0..60 {
        let head = repo.head().expect("head").peel_to_commit().expect("commit");
        let (p, s, f) = (rng.next(PACKAGES), rng.next(SUBS), rng.next(FILES_PER_SUB));
        let dir = PathBuf::from(format!("pkg{p:02}/sub{s}"));
        let name = file_name(f);
        let old = dir.join(&name);
        let mut index = git2::Index::new().expect("index");
        index
            .read_tree(&head.tree().expect("tree"))
            .expect("read tree");
        let Ok(entry) = head.tree().expect("tree").get_path(&old) else {
            continue;
        };
        let id = (p * SUBS + s) * FILES_PER_SUB + f;
        let language = LANGUAGES[f % 4];
        let add = |index: &mut git2::Index, path: &Path, text: &str| {
            let blob = repo.blob(text.as_bytes()).expect("blob");
            let mut e = index.get_path(&old, 0).expect("entry");
            e.id = blob;
            e.path = path.to_string_lossy().as_bytes().to_vec();
            index.add(&e).expect("add");
        };
        let message = match n % 6 {
            0..=2 => {
                add(&mut index, &old, &source(language, id, 10_001 + n, false));
                "fix: change a function"
            }
            3 => {
                let text =
                    String::from_utf8_lossy(repo.find_blob(entry.id()).expect("blob").content())
                        .into_owned();
                let moved = format!("{}\n", text.replacen("\n\n", "\n\n\n", 3));
                add(&mut index, &old, &moved);
                "style: spacing only"
            }
            4 => {
                index.remove_path(&old).expect("remove");
                "feat!: remove a module"
            }
            _ => {
                let text =
                    String::from_utf8_lossy(repo.find_blob(entry.id()).expect("blob").content())
                        .into_owned();
                add(&mut index, &dir.join(format!("renamed_{name}")), &text);
                index.remove_path(&old).expect("remove");
                "refactor: rename a module"
            }
        };
        let tree = repo
            .find_tree(index.write_tree_to(&repo).expect("tree"))
            .expect("tree");
        let signature = Signature::new(
            "Bench",
            "bench@example.com",
            &Time::new(1_700_000_000 + n as i64, 0),
        )
        .expect("sig");
        repo.commit(
            Some("HEAD"),
            &signature,
            &signature,
            message,
            &tree,
            &[&head],
        )
        .expect("commit");
    }
}
