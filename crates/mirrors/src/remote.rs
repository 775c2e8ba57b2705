//! Repository URLs a workspace may connect.

use std::net::IpAddr;

use webhooks::AddressPolicy;

/// The longest URL accepted.
const MAX_URL_LEN: usize = 2048;

/// Why a repository URL is refused; the text is written for the person who typed it.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UrlError {
    #[error(
        "repo_url must be an https:// or ssh:// URL, or git@host:path (at most {MAX_URL_LEN} characters, no spaces or control characters)"
    )]
    Unsupported,
    #[error(
        "repo_url must not contain credentials: give a token or a deploy key to the repository's credential instead"
    )]
    Credentials,
    #[error("repo_url must name a host and a repository path")]
    Incomplete,
    #[error("repo_url points at a private, loopback or reserved address ({0})")]
    Private(IpAddr),
    #[error(
        "repo_url uses plain http, which is only allowed for hosts in the operator's allowed address ranges ({0} is not)"
    )]
    PlainHttp(String),
}

/// How the service talks to the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// `https://` (or `http://` to an address the operator allows).
    Http { tls: bool },
    /// `ssh://` or the scp-like `user@host:path`; needs a deploy key.
    Ssh,
}

/// A checked repository URL. `text` is what the user gave, `host` and `port` are what the
/// connection goes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoUrl {
    pub text: String,
    pub transport: Transport,
    pub host: String,
    pub port: u16,
}

impl RepoUrl {
    /// Parses and checks `raw`. A host given as a literal address must be one `policy`
    /// permits; host names are checked after resolution, when the mirror fetches.
    pub fn parse(raw: &str, policy: &AddressPolicy) -> Result<Self, UrlError> {
        if raw.is_empty()
            || raw.len() > MAX_URL_LEN
            || raw.starts_with('-')
            || raw.chars().any(|c| c.is_control() || c.is_whitespace())
        {
            return Err(UrlError::Unsupported);
        }
        let url = match raw.split_once("://") {
            Some(_) => url::Url::parse(raw).map_err(|_| UrlError::Unsupported)?,
            None => scp_like(raw)?,
        };
        let transport = match url.scheme() {
            "https" => Transport::Http { tls: true },
            "http" => Transport::Http { tls: false },
            "ssh" => Transport::Ssh,
            _ => return Err(UrlError::Unsupported),
        };
        if url.password().is_some() || (!url.username().is_empty() && transport != Transport::Ssh) {
            return Err(UrlError::Credentials);
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(UrlError::Unsupported);
        }
        let host = match url.host() {
            Some(url::Host::Domain(d)) if !d.starts_with('-') => d.to_owned(),
            Some(url::Host::Ipv4(v4)) => v4.to_string(),
            Some(url::Host::Ipv6(v6)) => v6.to_string(),
            _ => return Err(UrlError::Incomplete),
        };
        if url.path().trim_matches('/').is_empty() {
            return Err(UrlError::Incomplete);
        }
        if let Ok(ip) = host.parse::<IpAddr>() {
            if !policy.permits(ip) {
                return Err(UrlError::Private(ip));
            }
            if transport == (Transport::Http { tls: false }) && !policy.allows_explicitly(ip) {
                return Err(UrlError::PlainHttp(host));
            }
        }
        let port = url.port_or_known_default().unwrap_or(match transport {
            Transport::Ssh => 22,
            Transport::Http { tls: true } => 443,
            Transport::Http { tls: false } => 80,
        });
        Ok(Self {
            text: raw.to_owned(),
            transport,
            host,
            port,
        })
    }
}

/// `user@host:path` as an `ssh://` URL (for parsing only: the text given is what git uses).
fn scp_like(raw: &str) -> Result<url::Url, UrlError> {
    let (authority, path) = raw.split_once(':').ok_or(UrlError::Unsupported)?;
    // `./a:b` or `/srv/x:y` is a local path to git, never a remote.
    if authority.contains('/') || path.is_empty() || authority.is_empty() {
        return Err(UrlError::Unsupported);
    }
    let path = path.trim_start_matches('/');
    url::Url::parse(&format!("ssh://{authority}/{path}")).map_err(|_| UrlError::Unsupported)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &str) -> Result<RepoUrl, UrlError> {
        RepoUrl::parse(raw, &AddressPolicy::default())
    }

    #[test]
    fn accepts_the_forms_forges_show() {
        let https = parse("https://github.com/acme/docs.git").expect("https");
        assert_eq!((https.host.as_str(), https.port), ("github.com", 443));
        let scp = parse("git@gitlab.com:acme/docs.git").expect("scp-like");
        assert_eq!(
            (scp.transport, scp.host.as_str(), scp.port),
            (Transport::Ssh, "gitlab.com", 22)
        );
        let ssh = parse("ssh://git@gitea.example.com:2222/acme/docs.git").expect("ssh");
        assert_eq!(ssh.port, 2222);
    }

    #[test]
    fn refuses_credentials_other_schemes_and_private_literals() {
        assert_eq!(
            parse("https://user:tok@github.com/a/b"),
            Err(UrlError::Credentials)
        );
        assert_eq!(
            parse("https://tok@github.com/a/b"),
            Err(UrlError::Credentials)
        );
        assert_eq!(parse("ssh://git:pw@host/a/b"), Err(UrlError::Credentials));
        for bad in [
            "file:///srv/repo",
            "git://host/a",
            "/srv/repo",
            "./a:b",
            "ext::sh -c id",
            "-uhttps://x/y",
            "https://host/a b",
            "",
        ] {
            assert_eq!(parse(bad), Err(UrlError::Unsupported), "{bad}");
        }
        assert!(matches!(
            parse("https://127.0.0.1/a/b"),
            Err(UrlError::Private(_))
        ));
        assert!(matches!(
            parse("https://[::ffff:10.0.0.1]/a/b"),
            Err(UrlError::Private(_))
        ));
        assert_eq!(parse("https://github.com/"), Err(UrlError::Incomplete));
    }

    #[test]
    fn plain_http_only_to_allowed_ranges() {
        assert!(matches!(
            parse("http://93.184.215.14/a/b"),
            Err(UrlError::PlainHttp(_))
        ));
        let allowed = AddressPolicy::from_allowed_list("127.0.0.0/8").expect("cidrs");
        let url = RepoUrl::parse("http://127.0.0.1:8080/a.git", &allowed).expect("allowed");
        assert_eq!(url.transport, Transport::Http { tls: false });
    }
}
