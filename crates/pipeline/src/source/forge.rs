//! Where a repository is browsed on the web, so that articles can link a symbol to its source
//! line, a changelog entry to its commit and pull request, and a release to its comparison.
//!
//! The forge is recognised from the `origin` remote (GitHub, GitLab, Bitbucket, Gitea and
//! Forgejo, by host name), or configured in `features.toml` (`[forge]`) for a self-hosted one:
//! a `kind` with the repository's web address, or URL templates of one's own. Anything else
//! gives no links: the articles name files and commits as plain text.
//!
//! The remote and the templates come from the tenant, so only http(s) addresses are used and
//! every value put into a URL is percent-encoded.

use git2::Repository;
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde::Deserialize;
use url::Url;

/// Characters escaped in one path segment (RFC 3986 `pchar` keeps the rest).
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'/')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// Longest configured template or web address accepted.
const MAX_URL_BYTES: usize = 2048;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ForgeKind {
    Github,
    Gitlab,
    Bitbucket,
    /// Gitea, Forgejo and Codeberg share one URL layout.
    Gitea,
}

/// `[forge]` in `features.toml`. Either `kind` + `url` (the repository's web address), or
/// templates: `file` (`{commit}`, `{path}`, `{line}`), `commit` (`{commit}`), `pull`
/// (`{number}`), `compare` (`{from}`, `{to}`), `raw` (`{commit}`, `{path}`: the file's bytes,
/// for images), `releases` (the list of releases, for a changelog's older releases); a
/// missing template means no such link.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForgeConfig {
    pub kind: Option<ForgeKind>,
    pub url: Option<String>,
    pub file: Option<String>,
    pub commit: Option<String>,
    pub pull: Option<String>,
    pub compare: Option<String>,
    pub raw: Option<String>,
    /// The list of the repository's releases (no placeholder).
    pub releases: Option<String>,
}

/// The URL layout of one repository's web host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forge {
    file: Option<String>,
    commit: Option<String>,
    pull: Option<String>,
    compare: Option<String>,
    raw: Option<String>,
    releases: Option<String>,
}

impl Forge {
    /// The configured forge when `features.toml` names one, else the one the `origin`
    /// remote points to, else none.
    pub fn detect(repo: &Repository, configured: Option<&ForgeConfig>) -> Option<Forge> {
        if let Some(config) = configured {
            return Forge::from_config(config);
        }
        let remote = repo.find_remote("origin").ok()?;
        Forge::from_remote(remote.url().ok()?)
    }

    /// The forge the `origin` remote of the repository at `path` points to: the repository
    /// at that path itself (no search upwards), which must be absolute.
    pub fn of_repository_at(path: &std::path::Path) -> Option<Forge> {
        if !path.is_absolute() {
            return None;
        }
        let repo = Repository::open_ext(
            path,
            git2::RepositoryOpenFlags::NO_SEARCH,
            [] as [&std::ffi::OsStr; 0],
        )
        .ok()?;
        Forge::detect(&repo, None)
    }

    /// A forge from a remote URL (`https://host/owner/repo.git`, `git@host:owner/repo.git`,
    /// `ssh://git@host/owner/repo`), when the host is a known forge.
    pub fn from_remote(remote: &str) -> Option<Forge> {
        let web = web_address(remote)?;
        let host = web.host_str()?.to_ascii_lowercase();
        let kind = if host == "github.com" || host.starts_with("github.") {
            ForgeKind::Github
        } else if host == "gitlab.com" || host.starts_with("gitlab.") {
            ForgeKind::Gitlab
        } else if host == "bitbucket.org" {
            ForgeKind::Bitbucket
        } else if host == "codeberg.org"
            || host.starts_with("gitea.")
            || host.starts_with("forgejo.")
        {
            ForgeKind::Gitea
        } else {
            return None;
        };
        Some(Forge::of_kind(kind, web.as_str().trim_end_matches('/')))
    }

    fn from_config(config: &ForgeConfig) -> Option<Forge> {
        if let (Some(kind), Some(url)) = (config.kind, config.url.as_deref()) {
            let web = http_url(url)?;
            return Some(Forge::of_kind(kind, web.as_str().trim_end_matches('/')));
        }
        let forge = Forge {
            file: usable_template(&config.file),
            commit: usable_template(&config.commit),
            pull: usable_template(&config.pull),
            compare: usable_template(&config.compare),
            raw: usable_template(&config.raw),
            releases: usable_template(&config.releases),
        };
        let any = forge.file.is_some()
            || forge.commit.is_some()
            || forge.pull.is_some()
            || forge.compare.is_some()
            || forge.raw.is_some()
            || forge.releases.is_some();
        any.then_some(forge)
    }

    fn of_kind(kind: ForgeKind, base: &str) -> Forge {
        let (file, commit, pull, compare, raw, releases) = match kind {
            ForgeKind::Github => (
                "/blob/{commit}/{path}#L{line}",
                "/commit/{commit}",
                "/pull/{number}",
                "/compare/{from}...{to}",
                "/raw/{commit}/{path}",
                "/releases",
            ),
            ForgeKind::Gitlab => (
                "/-/blob/{commit}/{path}#L{line}",
                "/-/commit/{commit}",
                "/-/merge_requests/{number}",
                "/-/compare/{from}...{to}",
                "/-/raw/{commit}/{path}",
                "/-/releases",
            ),
            ForgeKind::Bitbucket => (
                "/src/{commit}/{path}#lines-{line}",
                "/commits/{commit}",
                "/pull-requests/{number}",
                "/branches/compare/{to}%0D{from}",
                "/raw/{commit}/{path}",
                "/downloads/?tab=tags",
            ),
            ForgeKind::Gitea => (
                "/src/commit/{commit}/{path}#L{line}",
                "/commit/{commit}",
                "/pulls/{number}",
                "/compare/{from}...{to}",
                "/raw/commit/{commit}/{path}",
                "/releases",
            ),
        };
        let at = |layout: &str| Some(format!("{base}{layout}"));
        Forge {
            file: at(file),
            commit: at(commit),
            pull: at(pull),
            compare: at(compare),
            raw: at(raw),
            releases: at(releases),
        }
    }

    /// The file at `commit`, at `line` when given (a template's `#…{line}` fragment is
    /// dropped without one).
    pub fn file_url(&self, commit: &str, path: &str, line: Option<u32>) -> Option<String> {
        let filled = fill_file(self.file.as_deref()?, commit, path);
        Some(match line {
            Some(line) => filled.replace("{line}", &line.to_string()),
            None => match filled.find('#') {
                Some(i) if filled[i..].contains("{line}") => filled[..i].to_string(),
                _ => filled.replace("{line}", ""),
            },
        })
    }

    /// The file's bytes at `commit` (for images an article shows).
    pub fn raw_url(&self, commit: &str, path: &str) -> Option<String> {
        Some(fill_file(self.raw.as_deref()?, commit, path))
    }

    pub fn commit_url(&self, commit: &str) -> Option<String> {
        Some(
            self.commit
                .as_deref()?
                .replace("{commit}", &encode_segment(commit)),
        )
    }

    pub fn pull_url(&self, number: u64) -> Option<String> {
        Some(
            self.pull
                .as_deref()?
                .replace("{number}", &number.to_string()),
        )
    }

    /// The page listing the repository's releases.
    pub fn releases_url(&self) -> Option<String> {
        self.releases.clone()
    }

    /// Changes from `from` to `to` (tags or commits).
    pub fn compare_url(&self, from: &str, to: &str) -> Option<String> {
        Some(
            self.compare
                .as_deref()?
                .replace("{from}", &encode_segment(from))
                .replace("{to}", &encode_segment(to)),
        )
    }
}

/// A configured template, when it is an http(s) address.
fn usable_template(template: &Option<String>) -> Option<String> {
    template.clone().filter(|t| http_url(t).is_some())
}

fn fill_file(template: &str, commit: &str, path: &str) -> String {
    template
        .replace("{commit}", &encode_segment(commit))
        .replace("{path}", &encode_path(path))
}

/// A repository path with each segment percent-encoded, for a URL.
pub fn encode_path(path: &str) -> String {
    path.split('/')
        .map(encode_segment)
        .collect::<Vec<_>>()
        .join("/")
}

/// One path segment (a commit, a tag, a feature id) percent-encoded for a URL.
pub fn encode_segment(value: &str) -> String {
    utf8_percent_encode(value, SEGMENT).to_string()
}

fn http_url(text: &str) -> Option<Url> {
    if text.len() > MAX_URL_BYTES {
        return None;
    }
    let url = Url::parse(text).ok()?;
    matches!(url.scheme(), "http" | "https").then_some(url)
}

/// The https address of the repository a remote URL names, without `.git`, credentials,
/// query or fragment.
fn web_address(remote: &str) -> Option<Url> {
    if remote.len() > MAX_URL_BYTES {
        return None;
    }
    let remote = remote.trim();
    let (host, path) = if let Some((user_host, path)) = remote
        .split_once(':')
        .filter(|(head, _)| !head.contains('/') && head.contains('@'))
    {
        // scp-like: git@host:owner/repo.git
        (user_host.rsplit('@').next()?.to_string(), path.to_string())
    } else {
        let url = Url::parse(remote).ok()?;
        if !matches!(url.scheme(), "http" | "https" | "ssh" | "git") {
            return None;
        }
        (url.host_str()?.to_string(), url.path().to_string())
    };
    let path = path.trim_matches('/').trim_end_matches(".git");
    if host.is_empty() || path.is_empty() || path.split('/').count() < 2 {
        return None;
    }
    let mut web = Url::parse(&format!("https://{host}/")).ok()?;
    web.set_path(path);
    Some(web)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_remote_forms_give_the_same_links() {
        for remote in [
            "https://github.com/acme/widgets.git",
            "https://github.com/acme/widgets",
            "git@github.com:acme/widgets.git",
            "ssh://git@github.com/acme/widgets.git",
            "https://user:secret@github.com/acme/widgets.git",
        ] {
            let forge = Forge::from_remote(remote).expect(remote);
            assert_eq!(
                forge.file_url("abc123", "src/lib.rs", Some(42)).as_deref(),
                Some("https://github.com/acme/widgets/blob/abc123/src/lib.rs#L42"),
                "{remote}"
            );
            assert_eq!(
                forge.commit_url("abc123").as_deref(),
                Some("https://github.com/acme/widgets/commit/abc123")
            );
            assert_eq!(
                forge.pull_url(7).as_deref(),
                Some("https://github.com/acme/widgets/pull/7")
            );
            assert_eq!(
                forge.raw_url("abc123", "docs/shot 1.png").as_deref(),
                Some("https://github.com/acme/widgets/raw/abc123/docs/shot%201.png")
            );
            assert_eq!(
                forge.compare_url("v1.0.0", "v1.1.0").as_deref(),
                Some("https://github.com/acme/widgets/compare/v1.0.0...v1.1.0")
            );
        }
    }

    #[test]
    fn each_known_forge_has_its_layout() {
        let gitlab = Forge::from_remote("git@gitlab.com:group/sub/proj.git").unwrap();
        assert_eq!(
            gitlab.file_url("c", "a b.go", Some(3)).as_deref(),
            Some("https://gitlab.com/group/sub/proj/-/blob/c/a%20b.go#L3")
        );
        assert_eq!(
            gitlab.pull_url(9).as_deref(),
            Some("https://gitlab.com/group/sub/proj/-/merge_requests/9")
        );
        let bitbucket = Forge::from_remote("https://bitbucket.org/team/repo.git").unwrap();
        assert_eq!(
            bitbucket.file_url("c", "x.py", Some(1)).as_deref(),
            Some("https://bitbucket.org/team/repo/src/c/x.py#lines-1")
        );
        let codeberg = Forge::from_remote("https://codeberg.org/o/r.git").unwrap();
        assert_eq!(
            codeberg.file_url("c", "x.py", None).as_deref(),
            Some("https://codeberg.org/o/r/src/commit/c/x.py")
        );
    }

    #[test]
    fn unknown_or_unsafe_remotes_give_no_links() {
        for remote in [
            "/srv/git/repo.git",
            "file:///srv/git/repo.git",
            "https://git.example.com/o/r.git",
            "https://github.com/",
            "javascript:alert(1)",
        ] {
            assert_eq!(Forge::from_remote(remote), None, "{remote}");
        }
    }

    #[test]
    fn configured_templates_are_filled_and_escaped() {
        let config = ForgeConfig {
            file: Some("https://git.example.com/r/{commit}/{path}?plain=1#L{line}".into()),
            commit: Some("javascript:alert('{commit}')".into()),
            ..ForgeConfig::default()
        };
        let forge = Forge::from_config(&config).unwrap();
        assert_eq!(
            forge.file_url("c1", "docs/a#b.md", None).as_deref(),
            Some("https://git.example.com/r/c1/docs/a%23b.md?plain=1")
        );
        assert_eq!(
            forge.commit_url("c1"),
            None,
            "non-http templates are ignored"
        );
        let kind = ForgeConfig {
            kind: Some(ForgeKind::Gitea),
            url: Some("https://git.example.com/o/r/".into()),
            ..ForgeConfig::default()
        };
        assert_eq!(
            Forge::from_config(&kind)
                .unwrap()
                .commit_url("c1")
                .as_deref(),
            Some("https://git.example.com/o/r/commit/c1")
        );
    }
}
