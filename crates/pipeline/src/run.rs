//! One run: resolve → collect → extract → render → validate. The caller stores the articles
//! and sends notifications.

use domain::{ArticleStatus, LogLevel, LogStage, Surface};
use git2::{ObjectType, Repository, Tree};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use crate::collect::{self, FeatureMatcher, RepoFile};
use crate::convert::Links;
use crate::error::PipelineError;
use crate::extract::{self, Extractor, FileText, GoExample, Language, Prose, Symbol};
use crate::feature::{self, Feature};
use crate::forge::Forge;
use crate::log::LogSink;
use crate::paths::MODE_LINK;
use crate::prose;
use crate::provenance::{FileRole, FileSource, Provenance, StepsSource, SymbolSource};
use crate::render::api::{self, ModuleDoc};
use crate::render::changelog::{self, Entry};
use crate::render::{self, Context, Renderer, StepView, blog};
use crate::repository;
use crate::validate;
use crate::walkthrough::{self, Walkthrough};

/// Template overrides larger than this are refused.
const MAX_TEMPLATE_BYTES: usize = 256 * 1024;

pub struct RunRequest<'a> {
    pub repo: &'a Path,
    pub feature_id: &'a str,
    /// Commit of this feature's previous successful run; `None` = whole history (capped).
    pub since_commit: Option<&'a str>,
    /// `Some` = only these surfaces (regenerating one article); `None` = the feature's.
    pub surfaces: Option<&'a [Surface]>,
    /// Version number each generated article will carry (frontmatter `version`); missing = 1.
    pub versions: &'a BTreeMap<Surface, i64>,
    /// The bounds of this run's work.
    pub limits: &'a crate::Limits,
}

#[derive(Clone, Debug)]
pub struct RunOutput {
    /// The source commit (HEAD when the run started).
    pub commit: String,
    pub feature: Feature,
    pub articles: Vec<GeneratedArticle>,
}

#[derive(Clone, Debug)]
pub struct GeneratedArticle {
    pub surface: Surface,
    pub title: String,
    pub description: String,
    /// Frontmatter and body; parses as MDX.
    pub mdx_body: String,
    /// Help center only: every step has a capture file that exists at the source commit.
    pub capture_grounded: bool,
    pub provenance: Provenance,
}

impl GeneratedArticle {
    /// The status a new version of this article gets.
    pub fn status(&self) -> ArticleStatus {
        if self.capture_grounded {
            ArticleStatus::CaptureGrounded
        } else {
            ArticleStatus::Draft
        }
    }
}

/// Runs stages resolve, collect, extract, render and validate, logging each to `log`. A
/// failure is logged at level error in the stage where it happened before it is returned.
pub fn run(req: &RunRequest, log: &mut dyn LogSink) -> Result<RunOutput, PipelineError> {
    let mut stage = LogStage::Resolve;
    let started = Instant::now();
    let result = run_stages(req, log, &mut stage);
    match &result {
        Ok(output) => log.log(
            LogLevel::Info,
            LogStage::Validate,
            "run finished",
            json!({
                "commit": output.commit,
                "articles": output.articles.len(),
                "elapsed_ms": started.elapsed().as_millis() as u64,
            }),
        ),
        Err(e) => log.log(
            LogLevel::Error,
            stage,
            &e.to_string(),
            json!({ "elapsed_ms": started.elapsed().as_millis() as u64 }),
        ),
    }
    result
}

fn run_stages(
    req: &RunRequest,
    log: &mut dyn LogSink,
    stage: &mut LogStage,
) -> Result<RunOutput, PipelineError> {
    // resolve
    log.log(
        LogLevel::Info,
        LogStage::Resolve,
        "resolving feature",
        json!({ "feature_id": req.feature_id }),
    );
    let repo = repository::open(req.repo)?;
    let head = repository::head_commit(&repo)?;
    let commit = head.id().to_string();
    let tree = head.tree()?;
    let feature = feature::resolve_in_tree(&repo, &tree, req.feature_id)?;
    let settings = feature::settings(&repo, &tree)?;
    // The run's forge: every surface links commits, pull requests and files with this one.
    let forge = Forge::detect(&repo, settings.forge.as_ref());
    let rules = changelog::Rules::new(&settings.changelog)?;
    let surfaces: Vec<Surface> = match req.surfaces {
        Some(list) => {
            let mut unique = Vec::new();
            for s in list {
                if !unique.contains(s) {
                    unique.push(*s);
                }
            }
            unique
        }
        None => feature.surfaces.clone(),
    };
    log.log(
        LogLevel::Info,
        LogStage::Resolve,
        "resolved feature",
        json!({
            "feature_id": feature.id,
            "title": feature.title,
            "paths": feature.paths,
            "surfaces": surfaces.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
            "steps": feature.steps.len(),
            "commit": commit,
        }),
    );

    // collect
    *stage = LogStage::Collect;
    let matcher = FeatureMatcher::new(&feature, &tree)?;
    let files = collect::files(&repo, &tree, &matcher, &feature.id, req.limits)?;
    if files.is_empty() {
        log.log(
            LogLevel::Warn,
            LogStage::Collect,
            "no file of the repository matches the feature's paths",
            json!({ "paths": feature.paths }),
        );
    }
    let tags = collect::Tags::read(&repo, &rules.tags)?;
    if tags.capped {
        log.log(
            LogLevel::Warn,
            LogStage::Collect,
            "the repository has more tags than are read; releases are found among the first",
            json!({ "max_tags": collect::MAX_TAGS }),
        );
    }
    let range = collect::Range {
        since: req.since_commit,
        releases: rules.releases,
        tags: &tags,
        listed: &|commit| changelog::entry(commit, &rules, None).group.is_some(),
    };
    let history = collect::history(
        &repo,
        &head,
        &range,
        &matcher,
        req.limits.max_commit_message_bytes,
    )?;
    if !history.since_found {
        log.log(
            LogLevel::Warn,
            LogStage::Collect,
            "the previous run's commit is not in the repository; reading the whole history",
            json!({ "since_commit": req.since_commit }),
        );
    }
    if history.cut > 0 {
        log.log(
            LogLevel::Warn,
            LogStage::Collect,
            "cut commit messages or author names longer than max_commit_message_bytes",
            json!({
                "commits": history.cut,
                "max_commit_message_bytes": req.limits.max_commit_message_bytes,
            }),
        );
    }
    log.log(
        LogLevel::Info,
        LogStage::Collect,
        "collected files and commits",
        json!({
            "files": files.len(),
            "bytes": files.iter().map(|f| f.bytes).sum::<u64>(),
            "commits": history.commits().count(),
            "commits_walked": history.walked,
            "truncated": history.truncated,
            "release_tags": tags.count,
            "releases": history.releases.iter().filter(|r| r.tag.is_some()).count(),
            "renames_followed": history.renames,
            "since_commit": req.since_commit.filter(|_| history.since_found),
        }),
    );

    // extract
    *stage = LogStage::Extract;
    let extracted = extract_files(
        &repo,
        &tree,
        &files,
        &feature.id,
        &feature.paths,
        req.limits,
        log,
    )?;
    let captures = captures(&tree, &feature);
    let grounded = !feature.steps.is_empty() && captures.iter().all(|c| c.blob.is_some());
    log.log(
        LogLevel::Info,
        LogStage::Extract,
        "extracted symbols and prose",
        json!({
            "source_files": extracted.code.len(),
            "symbols": extracted.symbols.len(),
            "symbols_by_kind": count_by(extracted.symbols.iter().map(|s| s.kind.as_str())),
            "symbols_by_language": count_by(extracted.symbols.iter().map(|s| s.language)),
            "prose_files": extracted.prose.len(),
            "prose_left_out": extracted.prose_left_out.len(),
            "skipped_files": extracted.skipped,
            "test_files": extracted.test_files,
            "internal_files": extracted.internal_files,
            "steps": feature.steps.len(),
            "captures_found": captures.iter().filter(|c| c.blob.is_some()).count(),
            "capture_grounded": grounded,
        }),
    );

    if !extracted.prose_left_out.is_empty() {
        let mut by_reason: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (path, why) in &extracted.prose_left_out {
            by_reason.entry(why).or_default().push(path);
        }
        for paths in by_reason.values_mut() {
            paths.truncate(20);
        }
        log.log(
            LogLevel::Info,
            LogStage::Extract,
            "left Markdown files out of the prose: documents about the project, translations, design records",
            json!({ "files": extracted.prose_left_out.len(), "by_reason": by_reason }),
        );
    }

    // render
    *stage = LogStage::Render;
    let overrides = template_overrides(&repo, &tree, &surfaces)?;
    let overridden: Vec<&str> = overrides.iter().map(|(s, _)| s.as_str()).collect();
    if !overridden.is_empty() {
        log.log(
            LogLevel::Info,
            LogStage::Render,
            "using the repository's templates",
            json!({ "surfaces": overridden }),
        );
    }
    let links = Links {
        commit: commit.clone(),
        forge: forge.clone(),
    };
    let walkthrough = if feature.steps.is_empty() && surfaces.contains(&Surface::HelpCenter) {
        walkthrough::derive(&extracted.prose)
    } else {
        None
    };
    // The help center shows the documents without the part its steps already walk through.
    let help_docs: Vec<Prose> = extracted
        .prose
        .iter()
        .map(|doc| match &walkthrough {
            Some(w) if w.path == doc.path => Prose {
                markdown: walkthrough::without(&doc.markdown, &w.used),
                ..doc.clone()
            },
            _ => doc.clone(),
        })
        .filter(|doc| !doc.markdown.is_empty())
        .collect();
    let help_prose = prose::for_help_center(&help_docs);
    let dev_prose = prose::for_dev_docs(&extracted.prose);
    for (surface, shown) in [
        (Surface::HelpCenter, &help_prose),
        (Surface::DevDocs, &dev_prose),
    ] {
        if surfaces.contains(&surface) && shown.iter().any(|doc| doc.path.is_empty()) {
            log.log(
                LogLevel::Info,
                LogStage::Render,
                &format!("the {surface} article lists, without showing them, the documents past its prose budget"),
                json!({ "surface": surface.as_str(), "max_prose_bytes": prose::MAX_PROSE_BYTES }),
            );
        }
    }
    let steps = step_views(&feature, walkthrough.as_ref(), &captures, &links);
    let renderer = Renderer::new(overrides, req.limits, links)?;
    let notes = changelog::notes(&history, &rules, forge.as_ref(), &commit);
    let entries = &notes.entries;
    let introducing = first_release(&repo, &notes.releases, &matcher);
    // A help-center article only when something walks the reader through the feature.
    let writes_help_center = !steps.is_empty() || renderer.is_overridden(Surface::HelpCenter);
    let post = blog::post(
        &feature,
        &notes.releases,
        introducing,
        forge.as_ref(),
        &commit,
    );
    let since_commit = req.since_commit.filter(|_| history.since_found);
    let link = |path: &str, line: usize| {
        forge
            .as_ref()?
            .file_url(&commit, path, u32::try_from(line).ok())
    };
    let symbol_groups = render::group_symbols(&extracted.symbols);
    let mut articles = Vec::with_capacity(surfaces.len());
    for surface in &surfaces {
        let help_center = *surface == Surface::HelpCenter;
        if help_center && !writes_help_center {
            log.log(
                LogLevel::Info,
                LogStage::Render,
                "no help-center article: nothing in the feature's documents describes how to use it (no manifest steps, no usage section, ordered procedure or shell commands)",
                json!({ "surface": surface.as_str(), "prose_files": extracted.prose.len() }),
            );
            continue;
        }
        // Nothing to announce or list: no article rather than one that says so (a later run
        // with nothing new writes no new version).
        let nothing = match (surface, &post) {
            (Surface::Changelog, _) if notes.releases.is_empty() => {
                Some(blog::NoPost::NothingListed)
            }
            (Surface::Blog, Err(why)) => Some(*why),
            _ => None,
        };
        if let Some(why) = nothing
            && !renderer.is_overridden(*surface)
        {
            log.log(
                LogLevel::Info,
                LogStage::Render,
                &format!("no {surface} article: {}", why.reason()),
                json!({ "surface": surface.as_str(), "commits": history.commits().count() }),
            );
            continue;
        }
        if help_center && let Some(w) = &walkthrough {
            log.log(
                LogLevel::Info,
                LogStage::Render,
                &format!("derived the walkthrough from {}", w.path),
                json!({ "path": w.path, "rule": w.rule, "steps": w.steps.len() }),
            );
        }
        let version = req.versions.get(surface).copied().unwrap_or(1);
        let (title, description) =
            title_and_description(*surface, &feature, &extracted, entries, post.as_ref().ok());
        let context = Context {
            feature: &feature,
            surface: surface.as_str(),
            version,
            title: title.clone(),
            description: description.clone(),
            commit: &commit,
            short_commit: short(&commit),
            date: render::date(head.time().seconds()),
            since_commit,
            since_short: since_commit.map(short),
            range_label: range_label(entries.len(), since_commit, history.truncated),
            files: extracted
                .code
                .iter()
                .chain(&extracted.prose_files)
                .map(|f| f.path.as_str())
                .collect(),
            symbol_count: extracted.symbols.len(),
            symbol_groups: &symbol_groups,
            modules: if *surface == Surface::DevDocs {
                api::modules(&extracted.symbols, &extracted.module_docs, &link)
            } else {
                Vec::new()
            },
            prose: if help_center { &help_prose } else { &dev_prose },
            commits: entries,
            changelog: &notes.all,
            releases: &notes.releases,
            post: post.as_ref().ok(),
            highlights: highlights(entries),
            contributors: contributors(entries),
            steps: steps.clone(),
            capture_grounded: grounded,
            steps_source: walkthrough.as_ref().map(|w| w.path.as_str()),
        };
        let body = renderer.render(*surface, &context)?;
        let mdx_body = format!(
            "{}\n{body}\n",
            render::frontmatter(
                &title,
                &description,
                &feature.id,
                *surface,
                version,
                &commit
            )
        );
        if mdx_body.len() > req.limits.max_article_bytes {
            return Err(PipelineError::LimitExceeded {
                what: format!("the rendered {surface} article"),
                limit: "max_article_bytes",
                value: req.limits.max_article_bytes as u64,
                detail: "with its frontmatter".into(),
            });
        }
        log.log(
            LogLevel::Info,
            LogStage::Render,
            &format!("rendered the {surface} article"),
            json!({
                "surface": surface.as_str(),
                "version": version,
                "bytes": mdx_body.len(),
                "template": if renderer.is_overridden(*surface) { "repository" } else { "built-in" },
            }),
        );
        // The documents the article shows (in whole or in part), and the walkthrough's.
        let shown: BTreeSet<&str> = if help_center {
            help_prose
                .iter()
                .map(|d| d.path.as_str())
                .chain(walkthrough.as_ref().map(|w| w.path.as_str()))
                .collect()
        } else {
            dev_prose.iter().map(|d| d.path.as_str()).collect()
        };
        let mut provenance = provenance(*surface, &commit, &extracted, &shown, &captures);
        if *surface == Surface::HelpCenter {
            provenance.steps = StepsSource::of(&feature);
        }
        provenance.body_hash = Some(body_hash(&mdx_body, version));
        articles.push(GeneratedArticle {
            surface: *surface,
            title,
            description,
            mdx_body,
            capture_grounded: *surface == Surface::HelpCenter && grounded,
            provenance,
        });
    }

    // validate
    *stage = LogStage::Validate;
    for article in &articles {
        validate::check_article(article.surface, &article.mdx_body, req.limits)?;
    }
    log.log(
        LogLevel::Info,
        LogStage::Validate,
        "every article parses as MDX and holds no code",
        json!({ "articles": articles.len() }),
    );
    Ok(RunOutput {
        commit,
        feature,
        articles,
    })
}

struct Extracted {
    code: Vec<RepoFile>,
    /// Rust module files outside the feature read for the visibility of its items.
    module_files: Vec<(String, git2::Oid)>,
    prose_files: Vec<RepoFile>,
    symbols: Vec<Symbol>,
    prose: Vec<Prose>,
    /// Markdown files that are no prose of the feature (see [`crate::prose`]), and why.
    prose_left_out: Vec<(String, &'static str)>,
    /// Overviews and package examples, by module (a Go package's folder, else a file).
    module_docs: BTreeMap<String, ModuleDoc>,
    skipped: usize,
    /// Test files and Go `internal/` packages: not API, left out of the developer docs.
    test_files: usize,
    internal_files: usize,
}

fn extract_files(
    repo: &Repository,
    tree: &Tree,
    files: &[RepoFile],
    feature_id: &str,
    feature_paths: &[String],
    limits: &crate::Limits,
    log: &mut dyn LogSink,
) -> Result<Extracted, PipelineError> {
    let mut extractor = Extractor::new(limits);
    let mut out = Extracted {
        code: Vec::new(),
        module_files: Vec::new(),
        prose_files: Vec::new(),
        symbols: Vec::new(),
        prose: Vec::new(),
        prose_left_out: Vec::new(),
        module_docs: BTreeMap::new(),
        skipped: 0,
        test_files: 0,
        internal_files: 0,
    };
    let mut go_examples: Vec<GoExample> = Vec::new();
    let translations = prose::translations(
        files
            .iter()
            .map(|f| f.path.as_str())
            .filter(|p| extract::is_markdown(p)),
    );
    // The `mod` declarations and `pub use`s of each Rust file read (`None`: no such file).
    let mut rust_modules: HashMap<String, Option<Arc<extract::RustModuleFacts>>> = HashMap::new();
    let paths: HashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    for file in files {
        let language = Language::from_path(&file.path);
        let markdown = extract::is_markdown(&file.path);
        if language.is_none() && !markdown {
            out.skipped += 1;
            continue;
        }
        if language.is_none() {
            let why = if translations.contains(&file.path) {
                Some("a translation of a document in its primary language")
            } else {
                prose::left_out(&file.path, feature_id, feature_paths)
            };
            if let Some(why) = why {
                out.prose_left_out.push((file.path.clone(), why));
                continue;
            }
        }
        // Go test files are read for their examples only.
        let test = language.is_some() && extract::is_test_file(&file.path);
        if test && language != Some(Language::Go) {
            out.test_files += 1;
            continue;
        }
        if language.is_some()
            && std::iter::once(feature_id)
                .chain(feature_paths.iter().map(String::as_str))
                .all(|scope| extract::is_hidden_internal(&file.path, scope))
        {
            out.internal_files += 1;
            continue;
        }
        // The `.d.ts` beside a `.js` file is what TypeDoc documents: the same API, typed.
        if language.is_some() && extract::has_declaration_file(&file.path, |p| paths.contains(p)) {
            out.skipped += 1;
            continue;
        }
        let text = match extract::read_text(repo, file.blob, limits)? {
            FileText::Text(text) => text,
            // One oversized file (a bundle, generated code) is left out, not fatal: the
            // feature's totals are bounded by collect.
            FileText::TooLarge(bytes) => {
                out.skipped += 1;
                log.log(
                    LogLevel::Warn,
                    LogStage::Extract,
                    "skipped a file larger than max_file_bytes",
                    json!({
                        "path": file.path,
                        "bytes": bytes,
                        "max_file_bytes": limits.max_file_bytes,
                    }),
                );
                continue;
            }
            FileText::Binary => {
                out.skipped += 1;
                log.log(
                    LogLevel::Warn,
                    LogStage::Extract,
                    "skipped a binary file",
                    json!({ "path": file.path }),
                );
                continue;
            }
        };
        if extract::is_generated_script(&file.path, &text) {
            out.skipped += 1;
            log.log(
                LogLevel::Info,
                LogStage::Extract,
                "skipped a generated or minified script",
                json!({ "path": file.path }),
            );
            continue;
        }
        match language {
            Some(language) => {
                let mut outline = extractor.outline(&file.path, language, &text)?;
                if language == Language::Rust {
                    let facts = Arc::new(std::mem::take(&mut outline.rust_modules));
                    rust_modules.insert(file.path.clone(), Some(facts));
                }
                let dir = file.path.rsplit_once('/').map_or("", |(d, _)| d);
                if test {
                    out.test_files += 1;
                    go_examples.extend(outline.go_examples.into_iter().map(|(name, example)| {
                        GoExample {
                            dir: dir.to_string(),
                            name,
                            example,
                        }
                    }));
                    continue;
                }
                let module = if language == Language::Go {
                    dir
                } else {
                    file.path.as_str()
                };
                let doc = out.module_docs.entry(module.to_string()).or_default();
                doc.language = language.fence_for(&file.path);
                // A Go package documents itself in one file, by convention `doc.go`.
                if !outline.overview.is_empty()
                    && (doc.overview.is_empty() || file.path.rsplit('/').next() == Some("doc.go"))
                {
                    doc.overview = outline.overview;
                }
                if doc.package.is_none() {
                    doc.package = outline.package;
                }
                out.symbols.extend(outline.symbols);
                if out.symbols.len() > limits.max_feature_symbols {
                    return Err(PipelineError::LimitExceeded {
                        what: "the number of symbols extracted from the feature".into(),
                        limit: "max_feature_symbols",
                        value: limits.max_feature_symbols as u64,
                        detail: format!("feature '{feature_id}', crossed at {}", file.path),
                    });
                }
                out.code.push(file.clone());
            }
            None => {
                out.prose.push(extract::prose(&file.path, &text));
                out.prose_files.push(file.clone());
            }
        }
    }
    if !rust_modules.is_empty() {
        // Which Rust modules are public is said by their parents, read from the commit when
        // they are outside the feature (within a budget of their own).
        let mut outside = extract::OutsideFiles::new(limits);
        let mut facts = |path: &str| -> Option<Arc<extract::RustModuleFacts>> {
            if let Some(found) = rust_modules.get(path) {
                return found.clone();
            }
            let found = repository::regular_file(tree, path)
                .and_then(|blob| outside.rust_facts(repo, &mut extractor, path, blob));
            rust_modules.insert(path.to_string(), found.clone());
            found
        };
        let read: Vec<String> = out
            .code
            .iter()
            .filter(|f| Language::from_path(&f.path) == Some(Language::Rust))
            .map(|f| f.path.clone())
            .collect();
        let (symbols, private_modules) = extract::rust_public_api(
            std::mem::take(&mut out.symbols),
            read.iter().map(String::as_str),
            &mut facts,
        );
        out.symbols = symbols;
        for module in private_modules {
            out.module_docs.remove(&module);
        }
        // Each crate's `Cargo.toml`, read and parsed once for both of its uses below.
        let mut manifests: HashMap<String, Option<Arc<extract::CrateManifest>>> = HashMap::new();
        let mut manifest_of = |path: &str| -> Option<Arc<extract::CrateManifest>> {
            let manifest = extract::rust_manifest(path)?;
            manifests
                .entry(manifest)
                .or_insert_with_key(|manifest| {
                    let blob = repository::regular_file(tree, manifest)?;
                    extract::CrateManifest::parse(&outside.text(repo, manifest, blob)?)
                        .map(Arc::new)
                })
                .clone()
        };
        // Items behind features docs.rs does not build the crate with are not in its docs.
        out.symbols.retain(|symbol| {
            let Some(requires) = &symbol.requires else {
                return true;
            };
            manifest_of(&symbol.path)
                .is_none_or(|m| m.docs_rs.as_ref().is_none_or(|d| d.shows(requires)))
        });
        // Rust paths start with the crate's name, as rustdoc shows them.
        let modules: BTreeSet<String> = out
            .symbols
            .iter()
            .filter(|s| s.language == "rust")
            .map(|s| s.module.clone())
            .chain(
                out.module_docs
                    .iter()
                    .filter(|(_, d)| d.language == "rust")
                    .map(|(m, _)| m.clone()),
            )
            .collect();
        for module in modules {
            if extract::rust_manifest(&module).is_none() {
                continue;
            }
            let name = manifest_of(&module).and_then(|m| m.name.clone());
            let doc = out.module_docs.entry(module).or_default();
            doc.language = "rust";
            doc.package = name;
        }
        outside.finish()?;
        out.module_files = outside.modules().to_vec();
    }
    for (dir, example) in extract::attach_go_examples(&mut out.symbols, go_examples) {
        if let Some(doc) = out.module_docs.get_mut(&dir) {
            doc.examples.push(example);
        }
    }
    Ok(out)
}

struct Capture {
    path: Option<String>,
    blob: Option<git2::Oid>,
}

/// Each step's capture, and its blob when it exists as a regular file at the commit.
fn captures(tree: &Tree, feature: &Feature) -> Vec<Capture> {
    feature
        .steps
        .iter()
        .map(|step| {
            let path = feature.capture_path(step);
            let blob = path
                .as_deref()
                .and_then(|p| repository::regular_file(tree, p));
            Capture { path, blob }
        })
        .collect()
}

/// The manifest's steps with their captures, else the walkthrough derived from the docs.
fn step_views<'a>(
    feature: &'a Feature,
    derived: Option<&'a Walkthrough>,
    captures: &[Capture],
    links: &Links,
) -> Vec<StepView<'a>> {
    if let Some(walkthrough) = derived.filter(|_| feature.steps.is_empty()) {
        return walkthrough
            .steps
            .iter()
            .enumerate()
            .map(|(i, step)| StepView {
                number: i + 1,
                title: &step.title,
                body: &step.body,
                source: &walkthrough.path,
                capture: None,
                image: None,
            })
            .collect();
    }
    feature
        .steps
        .iter()
        .zip(captures)
        .enumerate()
        .map(|(i, (step, capture))| StepView {
            number: i + 1,
            title: &step.title,
            body: &step.body,
            source: "",
            capture: capture.path.clone(),
            image: capture
                .blob
                .and(capture.path.as_ref())
                .map(|p| links.file(p, true)),
        })
        .collect()
}

fn template_overrides(
    repo: &Repository,
    tree: &Tree,
    surfaces: &[Surface],
) -> Result<Vec<(Surface, String)>, PipelineError> {
    let mut overrides = Vec::new();
    for surface in surfaces {
        let path = render::template_path(*surface);
        let Ok(entry) = tree.get_path(Path::new(&path)) else {
            continue;
        };
        if entry.kind() != Some(ObjectType::Blob) || entry.filemode() == MODE_LINK {
            return Err(PipelineError::InvalidTemplate(format!(
                "{path}: must be a regular file"
            )));
        }
        let blob = repo.find_blob(entry.id())?;
        if blob.size() > MAX_TEMPLATE_BYTES {
            return Err(PipelineError::InvalidTemplate(format!(
                "{path}: larger than {MAX_TEMPLATE_BYTES} bytes"
            )));
        }
        let source = String::from_utf8(blob.content().to_vec())
            .map_err(|_| PipelineError::InvalidTemplate(format!("{path}: not valid UTF-8")))?;
        overrides.push((*surface, source));
    }
    Ok(overrides)
}

/// What `surface`'s content depends on, which is what can make it drift (contract, Drift):
/// dev-docs the symbols they document and the prose they show; help-center its prose and its
/// steps' captures; changelog and blog record a range of history and depend on no file.
fn provenance(
    surface: Surface,
    commit: &str,
    extracted: &Extracted,
    prose_shown: &BTreeSet<&str>,
    captures: &[Capture],
) -> Provenance {
    let (code, captures): (&[RepoFile], &[Capture]) = match surface {
        Surface::DevDocs => (&extracted.code, &[]),
        Surface::HelpCenter => (&[], captures),
        Surface::Changelog | Surface::Blog => {
            return Provenance {
                commit: commit.to_string(),
                files: Vec::new(),
                symbols: Vec::new(),
                body_hash: None,
                steps: None,
            };
        }
    };
    let modules: &[(String, git2::Oid)] = if code.is_empty() {
        &[]
    } else {
        &extracted.module_files
    };
    let mut files: Vec<FileSource> = code
        .iter()
        .map(|f| (f, FileRole::Code))
        .chain(
            extracted
                .prose_files
                .iter()
                .filter(|f| prose_shown.contains(f.path.as_str()))
                .map(|f| (f, FileRole::Prose)),
        )
        .map(|(f, role)| FileSource {
            path: f.path.clone(),
            blob: f.blob.to_string(),
            role,
        })
        .collect();
    for (path, blob) in modules {
        files.push(FileSource {
            path: path.clone(),
            blob: blob.to_string(),
            role: FileRole::Module,
        });
    }
    for capture in captures {
        if let (Some(path), Some(blob)) = (&capture.path, capture.blob)
            && !files.iter().any(|f| &f.path == path)
        {
            files.push(FileSource {
                path: path.clone(),
                blob: blob.to_string(),
                role: FileRole::Capture,
            });
        }
    }
    let symbols = if code.is_empty() {
        Vec::new()
    } else {
        extracted
            .symbols
            .iter()
            .map(|s| SymbolSource {
                path: s.path.clone(),
                name: s.name.clone(),
                kind: s.kind.as_str().to_string(),
                hash: s.hash.clone(),
            })
            .collect()
    };
    Provenance {
        commit: commit.to_string(),
        files,
        symbols,
        body_hash: None,
        steps: None,
    }
}

/// SHA-256 (hex) of a generated article without its frontmatter `version` line, so that the
/// same content rendered for the next version number hashes the same.
fn body_hash(mdx_body: &str, version: i64) -> String {
    let version_line = format!("\nversion: {version}\n");
    match mdx_body.split_once(&version_line) {
        Some((before, after)) => crate::provenance::sha256_hex(&[before, after]),
        None => crate::provenance::sha256_hex(&[mdx_body]),
    }
}

fn title_and_description(
    surface: Surface,
    feature: &Feature,
    extracted: &Extracted,
    entries: &[Entry],
    post: Option<&blog::Post>,
) -> (String, String) {
    let summary = extract::first_sentence(std::slice::from_ref(&feature.summary));
    let or = |fallback: String| {
        if summary.is_empty() {
            fallback
        } else {
            summary.clone()
        }
    };
    let title = &feature.title;
    match surface {
        Surface::HelpCenter => (title.clone(), or(format!("How to use {title}."))),
        Surface::DevDocs => (
            format!("{title} reference"),
            format!(
                "Public API of {title}: {} in {}.",
                plural(extracted.symbols.len(), "symbol"),
                plural(extracted.code.len() + extracted.prose_files.len(), "file"),
            ),
        ),
        Surface::Changelog => (
            format!("{title} changelog"),
            format!(
                "What changed in {title}: {}.",
                plural(entries.len(), "change")
            ),
        ),
        Surface::Blog => match post {
            Some(post) => (post.title.clone(), or(post.lede.clone())),
            // A repository's own template writes a post with nothing to announce.
            None => (
                format!("What's new in {title}"),
                or(format!("News of {title}.")),
            ),
        },
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn short(sha: &str) -> String {
    sha.chars().take(7).collect()
}

fn range_label(count: usize, since: Option<&str>, truncated: bool) -> String {
    let mut label = plural(count, "commit");
    if let Some(since) = since {
        label.push_str(&format!(" since {}", short(since)));
    }
    if truncated {
        label.push_str(" (latest only)");
    }
    label
}

/// Whether the newest tagged release is the feature's first: no earlier release tag holds a
/// file of the feature.
fn first_release(
    repo: &Repository,
    releases: &[changelog::Release],
    matcher: &FeatureMatcher,
) -> bool {
    let Some(release) = releases.iter().find(|r| r.version.is_some()) else {
        return false;
    };
    let Some(previous) = &release.previous_tag else {
        return true;
    };
    let earlier = repo
        .find_reference(&format!("refs/tags/{previous}"))
        .and_then(|r| r.peel_to_commit())
        .and_then(|c| c.tree());
    match earlier {
        Ok(tree) => !matcher.matches_any(&tree),
        // An unreadable tag says nothing: no claim that the feature is new.
        Err(_) => false,
    }
}

/// The feature commits worth announcing: new features first, else the latest changes.
fn highlights(entries: &[Entry]) -> Vec<&Entry> {
    let features: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.kind == "feat" || e.kind == "feature")
        .take(8)
        .collect();
    if features.is_empty() {
        entries.iter().take(5).collect()
    } else {
        features
    }
}

fn contributors(entries: &[Entry]) -> Vec<&str> {
    let mut seen = BTreeSet::new();
    entries
        .iter()
        .map(|e| e.author.as_str())
        .filter(|a| !a.is_empty() && seen.insert(*a))
        .take(10)
        .collect()
}

fn count_by<'a>(items: impl Iterator<Item = &'a str>) -> BTreeMap<&'a str, usize> {
    let mut counts = BTreeMap::new();
    for item in items {
        *counts.entry(item).or_insert(0) += 1;
    }
    counts
}
