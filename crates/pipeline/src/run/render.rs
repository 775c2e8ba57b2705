//! Stage `render`: one article per surface from the model the earlier stages read, with its
//! frontmatter and its provenance.

use domain::{LogLevel, LogStage, Surface};
use git2::{ObjectType, Repository, Tree};
use serde_json::json;
use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::collect::Collected;
use super::extract::{Capture, Extracted};
use super::provenance::{body_hash, provenance};
use super::request::{GeneratedArticle, RunRequest};
use super::resolve::Resolved;
use super::titles::{plural, title_and_description};
use super::{details, example, removed, toolchain, written};
use crate::error::{PipelineError, is_missing_object};
use crate::limits::Limits;
use crate::log::LogSink;
use crate::provenance::StepsSource;
use crate::render::dev_docs::{Level, Shortened};
use crate::render::mdx::anchors::settle_links;
use crate::render::mdx::convert::Links;
use crate::render::mdx::frontmatter::Frontmatter;
use crate::render::{self, Context, Renderer, StepView, blog, dev_docs, handwritten};
use crate::source::code::{ModuleDoc, Symbol};
use crate::source::docs::walkthrough::{self, Walkthrough};
use crate::source::docs::{self, Prose};
use crate::source::history::{self, Entry, ReleaseNotes};
use crate::source::manifest::Feature;
use crate::source::paths::MODE_LINK;

/// Template overrides larger than this are refused.
const MAX_TEMPLATE_BYTES: usize = 256 * 1024;

pub(super) fn render(
    repo: &Repository,
    resolved: &Resolved,
    collected: &Collected,
    extracted: &Extracted,
    req: &RunRequest,
    log: &mut dyn LogSink,
) -> Result<Vec<GeneratedArticle>, PipelineError> {
    let Resolved {
        head,
        commit,
        tree,
        feature,
        forge,
        rules,
        surfaces,
    } = resolved;
    let overrides = template_overrides(repo, tree, surfaces, log)?;
    let overridden: Vec<&str> = overrides.iter().map(|(s, _)| s.as_str()).collect();
    if !overridden.is_empty() {
        log.log(
            LogLevel::Info,
            LogStage::Render,
            "using the repository's templates",
            json!({ "surfaces": overridden }),
        );
    }
    let site_urls = extracted
        .site
        .as_ref()
        .map(|s| s.urls.clone())
        .unwrap_or_default();
    let links = Links {
        commit: commit.clone(),
        forge: forge.clone(),
        files: tree_paths(tree).map(std::sync::Arc::new),
        site: std::sync::Arc::new(site_urls),
    };
    // The help center is for the current release: older ones' docs (`v1/`) are left out.
    let older: BTreeSet<&str> =
        docs::older_versions(extracted.prose.iter().map(|d| d.path.as_str()))
            .into_iter()
            .collect();
    let current: Vec<Prose> = extracted
        .prose
        .iter()
        .filter(|d| !older.contains(d.path.as_str()))
        .cloned()
        .collect();
    let site_rank = |path: &str| extracted.site.as_ref()?.rank.get(path).copied();
    let derives = feature.steps.is_empty() && surfaces.contains(&Surface::HelpCenter);
    // A docs site's navigation decides the whole article: its getting-started path, the
    // steps of its sequence page and the listing of the rest.
    let site_path = extracted
        .site
        .as_ref()
        .filter(|_| derives)
        .and_then(|site| walkthrough::along_site(&docs::for_help_center_pages(&current), site));
    let walkthrough = match &site_path {
        Some(path) => path.walkthrough.clone(),
        None if derives => walkthrough::derive(&current, extracted.site.as_ref()),
        None => None,
    };
    let (help_intro, help_prose) = match site_path {
        Some(path) => (path.intro, path.after),
        None => help_center_around(&current, walkthrough.as_ref(), &site_rank, extracted),
    };
    let overviews: Vec<&str> = extracted
        .module_docs
        .values()
        .map(|d| d.overview.as_str())
        .collect();
    // TypeDoc shows a package's README as its index page, wherever the feature's code is.
    let dev_sources: Vec<Prose> = extracted
        .package_readmes
        .iter()
        .chain(&extracted.prose)
        .cloned()
        .collect();
    let (mut dev_prose, readme_leads) =
        docs::for_dev_docs(&dev_sources, dev_docs_show_readmes(extracted), &overviews);
    // Nor are the examples a module's own doc comment shows.
    for doc in dev_prose
        .iter_mut()
        .filter(|doc| crate::source::files::is_readme(&doc.path))
    {
        doc.markdown = dev_docs::without_overview_repeats(&doc.markdown, &overviews);
    }
    // The summary above the article is not repeated as the README's first paragraph.
    if let Some(first) = dev_prose.first_mut().filter(|_| readme_leads) {
        first.markdown = docs::without_first_paragraph_if(&first.markdown, &feature.summary);
    }
    let (dev_intro, dev_rest) = dev_prose.split_at(usize::from(readme_leads));
    for (surface, shown) in [
        (Surface::HelpCenter, &help_prose),
        (Surface::DevDocs, &dev_prose),
    ] {
        if surfaces.contains(&surface) && shown.iter().any(|doc| doc.path.is_empty()) {
            log.log(
                LogLevel::Info,
                LogStage::Render,
                &format!("the {surface} article lists, without showing them, the documents past its prose budget"),
                json!({ "surface": surface.as_str(), "max_prose_bytes": docs::MAX_PROSE_BYTES }),
            );
        }
    }
    let steps = step_views(feature, walkthrough.as_ref(), &extracted.captures, &links);
    let page_links = links.clone();
    let renderer = Renderer::new(overrides, req.limits, links)?;
    let mut notes = history::notes(&collected.history, rules, forge.as_ref(), commit);
    // A later run shows only what is new; a first run fills its window.
    let first_run = !(collected.history.since_found && req.since_commit.is_some());
    // The project's own changelog: its releases for the changelog, its oldest version for
    // the post (a package whose changelog predates its first tag is not introduced).
    let written = if surfaces.contains(&Surface::Changelog) || surfaces.contains(&Surface::Blog) {
        history::changelog_file(repo, tree, &collected.matcher.prefixes).map(|file| {
            (
                handwritten::sections(&file.text, &file.path, forge.as_ref()),
                handwritten::unreleased(&file.text, &file.path, forge.as_ref()),
                file.path,
            )
        })
    } else {
        None
    };
    let written_versions: Vec<semver::Version> = written
        .iter()
        .flat_map(|(sections, _, _)| sections.iter().map(|s| s.version.clone()))
        .collect();
    let written_path = written.as_ref().map(|(_, _, path)| path.clone());
    let oldest_written = written_versions.iter().min().cloned();
    // The post tells a release from the same sections.
    if (surfaces.contains(&Surface::Changelog) || surfaces.contains(&Surface::Blog))
        && let Some((sections, unreleased, path)) = written
    {
        log.log(
            LogLevel::Info,
            LogStage::Render,
            &format!("released sections come from the project's {path}"),
            json!({ "path": path, "sections": sections.len() }),
        );
        let fill = if first_run { rules.releases } else { 0 };
        handwritten::apply(
            &mut notes.releases,
            sections,
            &path,
            fill,
            &collected.tag_versions,
            &collected.history.tags_in_range,
            unreleased,
        );
        written::tag_written_releases(&mut notes.releases, collected, forge.as_ref());
    }
    removed::for_changelog(
        repo,
        &mut notes.releases,
        feature.path.as_deref().unwrap_or(""),
        commit,
    );
    if surfaces.contains(&Surface::Changelog) {
        written::pending_changes(
            repo,
            tree,
            collected,
            feature,
            first_run,
            &mut notes.releases,
            log,
        );
    }
    // A first run's window says where the releases it leaves out are.
    let older = first_run
        .then(|| {
            written::older_releases(
                &notes.releases,
                collected,
                &written_versions,
                written_path.as_deref(),
                forge.as_ref(),
                commit,
            )
        })
        .flatten();
    let entries = &notes.entries;
    let introducing = first_release(&notes.releases, oldest_written.as_ref());
    // A help-center article only when something walks the reader through the feature.
    // (or, on a docs site, when its getting-started path has pages to show).
    let writes_help_center = !steps.is_empty()
        || renderer.is_overridden(Surface::HelpCenter)
        || (derives && extracted.site.is_some() && !help_intro.is_empty());
    let mut post = blog::post(
        feature,
        &notes.releases,
        introducing,
        forge.as_ref(),
        commit,
    );
    if surfaces.contains(&Surface::Blog)
        && let Ok(post) = &mut post
    {
        post.example = example::for_post(repo, post, commit, forge.as_ref());
        let folder = feature.path.as_deref().unwrap_or("");
        toolchain::for_post(repo, post, folder, commit);
        removed::for_post(repo, post, folder, commit);
        details::for_post(repo, post, commit);
    }
    let since_commit = req.since_commit.filter(|_| collected.history.since_found);
    let link = |path: &str, line: usize| {
        forge
            .as_ref()?
            .file_url(commit, path, u32::try_from(line).ok())
    };
    let symbol_groups = render::group_symbols(&extracted.symbols);
    let shortened_symbols = OnceCell::new();
    // A module's overview does not open with the summary the article opens with (a crate's
    // docs with its Cargo description).
    let module_docs: BTreeMap<String, crate::source::code::ModuleDoc> = extracted
        .module_docs
        .iter()
        .map(|(module, doc)| {
            let mut doc = doc.clone();
            doc.overview = docs::without_first_paragraph_if(&doc.overview, &feature.summary);
            (module.clone(), doc)
        })
        .collect();
    let api = Api {
        symbols: &extracted.symbols,
        docs: &module_docs,
        shortened: &shortened_symbols,
        link: &link,
    };
    let mut articles = Vec::with_capacity(surfaces.len());
    for surface in surfaces {
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
                json!({ "surface": surface.as_str(), "commits": collected.history.commits().count() }),
            );
            continue;
        }
        // Past the symbol cap the developer docs fail alone: the other articles are written.
        if *surface == Surface::DevDocs
            && let Some(e) = extracted.symbols_error(req.limits)
        {
            log.log(
                LogLevel::Warn,
                LogStage::Render,
                &format!("no {surface} article: {e}"),
                json!({ "surface": surface.as_str() }),
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
        let (title, description) = title_and_description(
            *surface,
            feature,
            extracted,
            entries,
            post.as_ref().ok(),
            &steps,
        );
        let mut context = Context {
            feature,
            surface: surface.as_str(),
            version,
            title: title.clone(),
            description: description.clone(),
            commit,
            short_commit: short(commit),
            date: history::date(head.time().seconds()),
            since_commit,
            since_short: since_commit.map(short),
            range_label: range_label(entries.len(), since_commit, collected.history.truncated),
            files: extracted
                .code
                .iter()
                .chain(&extracted.prose_files)
                .map(|f| f.path.as_str())
                .collect(),
            symbol_count: extracted.symbols.len(),
            symbol_groups: &symbol_groups,
            modules: if *surface == Surface::DevDocs {
                dev_docs::modules(&extracted.symbols, &module_docs, &link)
            } else {
                Vec::new()
            },
            shortened: None,
            intro: if help_center { &help_intro } else { dev_intro },
            summary_said: docs::summary_said(
                &feature.summary,
                &description,
                help_intro.first().or(help_prose.first()),
            ),
            prose: if help_center { &help_prose } else { dev_rest },
            commits: entries,
            changelog: &notes.all,
            releases: &notes.releases,
            older: older.clone(),
            post: post.as_ref().ok(),
            highlights: highlights(entries),
            contributors: contributors(entries),
            steps: steps.clone(),
            capture_grounded: extracted.grounded,
            steps_source: walkthrough.as_ref().map(|w| w.path.as_str()),
        };
        let frontmatter = Frontmatter {
            title: title.clone(),
            description: description.clone(),
            feature: feature.id.clone(),
            surface: *surface,
            version,
            source_commit: commit.clone(),
        }
        .render();
        // Our own developer docs are shortened to fit; a repository's template is not.
        let body = if *surface == Surface::DevDocs && !renderer.is_overridden(*surface) {
            let budget = req
                .limits
                .max_article_bytes
                .saturating_sub(frontmatter.len() + 2);
            dev_docs_body(&renderer, &mut context, &api, budget, req.limits, log)?
        } else {
            renderer.render(*surface, &context)?
        };
        // A help-center link to a document the article shows lands on its section.
        let body = if help_center {
            let shown = context.intro.iter().chain(context.prose);
            settle_links(&body, shown, &page_links, req.limits.max_nesting_depth)
        } else {
            body
        };
        let mdx_body = format!("{frontmatter}\n{body}\n");
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
            help_intro
                .iter()
                .chain(&help_prose)
                .map(|d| d.path.as_str())
                .chain(walkthrough.iter().map(|w| w.path.as_str()))
                .collect()
        } else {
            dev_prose.iter().map(|d| d.path.as_str()).collect()
        };
        let mut provenance = provenance(*surface, commit, extracted, &shown, &extracted.captures);
        if *surface == Surface::HelpCenter {
            provenance.steps = StepsSource::of(feature);
        }
        provenance.body_hash = Some(body_hash(&mdx_body, version));
        articles.push(GeneratedArticle {
            surface: *surface,
            title,
            description,
            mdx_body,
            capture_grounded: *surface == Surface::HelpCenter && extracted.grounded,
            provenance,
        });
    }
    // A run that writes nothing else fails on the cap, as it always did.
    if articles.is_empty()
        && surfaces.contains(&Surface::DevDocs)
        && let Some(e) = extracted.symbols_error(req.limits)
    {
        return Err(e);
    }
    Ok(articles)
}

/// What the developer docs are made of, for [`dev_docs_body`].
struct Api<'a, 'l> {
    symbols: &'a [Symbol],
    docs: &'a BTreeMap<String, ModuleDoc>,
    /// The symbols as shortened levels show them, made when first needed.
    shortened: &'a OnceCell<Vec<Symbol>>,
    link: &'l dyn Fn(&str, usize) -> Option<String>,
}

/// The built-in dev-docs body within `budget` bytes: the whole reference when it fits, else
/// the first shortened level that does (`render/dev_docs/shorten.rs`), at last the index of
/// as many modules as fit, which says how many it leaves out. Fails only when the article
/// would not fit even without any module (its summary and prose alone).
/// Whether the developer docs show the feature's READMEs, as each language's tool does:
/// pkg.go.dev and TypeDoc show a package's README above its reference; rustdoc and Sphinx
/// show what the code documents, so a Rust or Python feature's README is shown only when
/// none of its modules documents itself (nor when it has no code the article lists).
fn dev_docs_show_readmes(extracted: &Extracted) -> bool {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for symbol in &extracted.symbols {
        *counts.entry(symbol.language).or_default() += 1;
    }
    let language = counts
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .map(|(language, _)| language);
    match language {
        Some("rust" | "python") => extracted
            .module_docs
            .values()
            .all(|doc| doc.overview.trim().is_empty()),
        _ => true,
    }
}

fn dev_docs_body<'a>(
    renderer: &Renderer,
    context: &mut Context<'a>,
    api: &Api<'a, '_>,
    budget: usize,
    limits: &Limits,
    log: &mut dyn LogSink,
) -> Result<String, PipelineError> {
    let modules = context.modules.len();
    for level in Level::ALL {
        if level != Level::Full {
            let symbols = api
                .shortened
                .get_or_init(|| api.symbols.iter().map(dev_docs::shorten_symbol).collect());
            let mut views = dev_docs::modules(symbols, api.docs, api.link);
            dev_docs::shorten(&mut views, level);
            context.modules = views;
            context.shortened = Some(Shortened::new(
                level,
                limits.max_article_bytes,
                api.symbols.len(),
                modules,
            ));
        }
        if let Some(body) = within(renderer.render(Surface::DevDocs, context), budget)? {
            log_shortened(context, limits, body.len(), log);
            return Ok(body);
        }
    }
    // Even the index is too large: as many of its modules as fit, found by halving.
    let cut = |context: &mut Context<'a>, shown: usize| {
        let rest = context.modules.split_off(shown);
        if let Some(shortened) = context.shortened.as_mut() {
            shortened.left_out = modules - shown;
        }
        let body = within(renderer.render(Surface::DevDocs, context), budget);
        context.modules.extend(rest);
        body
    };
    let Some(mut body) = cut(context, 0)? else {
        return Err(PipelineError::LimitExceeded {
            what: "the rendered dev-docs article".into(),
            limit: "max_article_bytes",
            value: limits.max_article_bytes as u64,
            detail: "with its frontmatter, summary and prose, even without any module".into(),
        });
    };
    let (mut fits, mut too_many) = (0, modules);
    while too_many - fits > 1 {
        let shown = fits + (too_many - fits) / 2;
        match cut(context, shown)? {
            Some(shorter) => (fits, body) = (shown, shorter),
            None => too_many = shown,
        }
    }
    context.modules.truncate(fits);
    if let Some(shortened) = context.shortened.as_mut() {
        shortened.left_out = modules - fits;
    }
    log_shortened(context, limits, body.len(), log);
    Ok(body)
}

/// The body when it is within `budget`, none when it is larger or ran out of template fuel.
fn within(
    rendered: Result<String, PipelineError>,
    budget: usize,
) -> Result<Option<String>, PipelineError> {
    match rendered {
        Ok(body) if body.len() <= budget => Ok(Some(body)),
        Ok(_)
        | Err(PipelineError::LimitExceeded {
            limit: "max_article_bytes" | "max_template_fuel",
            ..
        }) => Ok(None),
        Err(e) => Err(e),
    }
}

fn log_shortened(context: &Context, limits: &Limits, bytes: usize, log: &mut dyn LogSink) {
    let Some(shortened) = &context.shortened else {
        return;
    };
    log.log(
        LogLevel::Warn,
        LogStage::Render,
        &format!(
            "the dev-docs article is shortened to level {} of 3 to fit max_article_bytes",
            shortened.level
        ),
        json!({
            "level": shortened.level,
            "max_article_bytes": limits.max_article_bytes,
            "bytes": bytes,
            "symbols": shortened.symbols,
            "modules": shortened.modules,
            "modules_left_out": shortened.left_out,
        }),
    );
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
    log: &mut dyn LogSink,
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
        let blob = match repo.find_blob(entry.id()) {
            Ok(blob) => blob,
            Err(e) if is_missing_object(&e) => {
                log.log(
                    LogLevel::Warn,
                    LogStage::Render,
                    "skipped a template whose content is missing from the repository's object store; the built-in one is used",
                    json!({ "path": path }),
                );
                continue;
            }
            Err(e) => return Err(e.into()),
        };
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

/// Whether the release a post announces is the package's first: tagged, after no earlier
/// release tag, and no older than every version the project's own changelog lists
/// (`oldest_written`: a project that kept a changelog before it tagged is not new).
fn first_release(releases: &[ReleaseNotes], oldest_written: Option<&semver::Version>) -> bool {
    let Some(release) = releases.iter().find(|r| r.version.is_some()) else {
        return false;
    };
    let version = release
        .version
        .as_deref()
        .and_then(|v| semver::Version::parse(v).ok());
    match version {
        Some(version) if release.tag.is_some() && release.previous_tag.is_none() => {
            oldest_written.is_none_or(|oldest| *oldest >= version)
        }
        _ => false,
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

/// Most paths of the repository listed for pointing links at its files; a larger tree's
/// links are pointed as written.
const MAX_TREE_PATHS: usize = 200_000;

/// Every file path of `tree`, or `None` past [`MAX_TREE_PATHS`] or when the walk fails.
fn tree_paths(tree: &Tree) -> Option<std::collections::HashSet<String>> {
    let mut paths = std::collections::HashSet::new();
    let mut over = false;
    let walked = tree.walk(git2::TreeWalkMode::PreOrder, |root, entry| {
        if entry.kind() == Some(git2::ObjectType::Blob)
            && let Ok(name) = entry.name()
        {
            if paths.len() >= MAX_TREE_PATHS {
                over = true;
                return git2::TreeWalkResult::Abort;
            }
            paths.insert(format!("{root}{name}"));
        }
        git2::TreeWalkResult::Ok
    });
    (walked.is_ok() && !over).then_some(paths)
}

/// The help center's documents before and after a walkthrough found without following a
/// docs site's navigation.
fn help_center_around(
    current: &[Prose],
    walkthrough: Option<&Walkthrough>,
    site_rank: &dyn Fn(&str) -> Option<usize>,
    extracted: &Extracted,
) -> (Vec<Prose>, Vec<Prose>) {
    // The help center shows the documents without the part its steps already walk through;
    // when they walk the docs site, a README the site does not list (the repository's front
    // page, saying again what the site says) is not shown.
    let on_site = walkthrough.is_some_and(|w| site_rank(&w.path).is_some());
    let help_docs: Vec<Prose> = current
        .iter()
        .filter(|doc| {
            !(on_site
                && crate::source::files::is_readme(&doc.path)
                && site_rank(&doc.path).is_none())
        })
        .map(|doc| match walkthrough {
            Some(w) if w.path == doc.path => Prose {
                markdown: walkthrough::without(&doc.markdown, &w.used),
                ..doc.clone()
            },
            _ => doc.clone(),
        })
        .filter(|doc| !doc.markdown.is_empty())
        .collect();
    // The site's pages before the walkthrough's first one come before the steps when they
    // introduce the project; the others after.
    let first = walkthrough.and_then(|w| site_rank(&w.path));
    docs::for_help_center_around(
        help_docs,
        |doc| first.is_some_and(|first| site_rank(&doc.path).is_some_and(|rank| rank < first)),
        extracted.site.is_some(),
    )
}
