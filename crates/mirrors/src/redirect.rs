//! Where a moved repository lives now. git is never let follow a redirect itself: libcurl
//! would resolve the new host on its own, past the address policy. When git reports one, the
//! fetch asks the host here instead, one hop at a time, the way git's smart HTTP client
//! starts (`GET <url>/info/refs?service=git-upload-pack`). Every target is parsed and checked
//! like a URL typed into the workspace, its addresses resolved, checked and pinned for that
//! request, and the fetch goes to the last one. The credential only goes where the workspace
//! URL's own scheme, host and port are (as curl drops it on a cross-host redirect).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use webhooks::AddressPolicy;

use crate::credential::{Credential, basic_auth};
use crate::fetch::{FetchError, permitted_addresses};
use crate::remote::{RepoUrl, Transport};

/// Redirects followed before the fetch gives up (git's own limit is 20; forges use one).
const MAX_REDIRECTS: usize = 5;
/// How long one request of the walk may take, within the fetch's deadline.
const HOP_TIMEOUT: Duration = Duration::from_secs(30);
const DISCOVERY: &str = "/info/refs";
const SERVICE: &str = "service=git-upload-pack";

/// Where the walk ended.
pub(crate) struct Moved {
    pub url: RepoUrl,
    /// Whether `url` has the scheme, host and port of the URL the walk started from.
    pub same_origin: bool,
}

fn origin(url: &RepoUrl) -> (Transport, String, u16) {
    (url.transport, url.host.to_ascii_lowercase(), url.port)
}

/// Follows the redirects of the HTTP remote `start` (at most [`MAX_REDIRECTS`]), each target
/// checked against `policy`; `credential` is sent to the hosts of `start`'s origin only.
pub(crate) fn follow(
    start: &RepoUrl,
    credential: Option<&Credential>,
    policy: &AddressPolicy,
    deadline: Instant,
) -> Result<Moved, FetchError> {
    let mut current = start.clone();
    for _ in 0..=MAX_REDIRECTS {
        let same_origin = origin(&current) == origin(start);
        match next_hop(
            &current,
            credential.filter(|_| same_origin),
            policy,
            deadline,
        )? {
            Some(target) => {
                if start.transport == (Transport::Http { tls: true })
                    && target.transport == (Transport::Http { tls: false })
                {
                    return Err(FetchError(format!(
                        "the host redirected from https to plain http ({}), which is refused",
                        target.text
                    )));
                }
                current = target;
            }
            None => {
                return Ok(Moved {
                    same_origin: origin(&current) == origin(start),
                    url: current,
                });
            }
        }
    }
    Err(FetchError(format!(
        "the host redirected more than {MAX_REDIRECTS} times: connect the repository's final URL"
    )))
}

/// The URL `url` redirects to, checked; `None` when it answers without a redirect.
fn next_hop(
    url: &RepoUrl,
    credential: Option<&Credential>,
    policy: &AddressPolicy,
    deadline: Instant,
) -> Result<Option<RepoUrl>, FetchError> {
    let addresses = permitted_addresses(url, policy)?;
    let pinned: Vec<SocketAddr> = addresses
        .iter()
        .map(|ip| SocketAddr::new(*ip, url.port))
        .collect();
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(FetchError(
            "the fetch's time limit was reached while following the host's redirects".into(),
        ));
    }
    let client = reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        // A proxy would resolve the name itself, past the check above.
        .no_proxy()
        .resolve_to_addrs(&url.host, &pinned)
        .timeout(left.min(HOP_TIMEOUT))
        .user_agent(concat!(
            "git/2 content-pipeline/",
            env!("CARGO_PKG_VERSION")
        ))
        .build()
        .map_err(|_| FetchError("an HTTP client could not be made".into()))?;
    let probe = format!("{}{DISCOVERY}?{SERVICE}", url.text.trim_end_matches('/'));
    let mut request = client.get(&probe);
    if let Some(Credential::Token { username, token }) = credential {
        request = request.header(reqwest::header::AUTHORIZATION, basic_auth(username, token));
    }
    let answer = request.send().map_err(|e| {
        FetchError(if e.is_timeout() {
            format!("following the redirects of '{}' took too long", url.host)
        } else {
            format!("'{}' could not be reached to follow its redirect", url.host)
        })
    })?;
    if !answer.status().is_redirection() {
        return Ok(None);
    }
    let location = answer
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| FetchError("the host answered a redirect without a Location".into()))?;
    let target = answer
        .url()
        .join(location)
        .map_err(|_| FetchError("the host redirected to a URL that cannot be read".into()))?;
    // As git does: the new base is the target without the discovery path and query.
    let base = target
        .path()
        .strip_suffix(DISCOVERY)
        .filter(|_| target.query() == Some(SERVICE))
        .map(|path| {
            let mut base = target.clone();
            base.set_path(path);
            base.set_query(None);
            base
        })
        .ok_or_else(|| {
            FetchError(
                "the host redirected to a page that is not a git repository: connect the repository's final URL"
                    .into(),
            )
        })?;
    RepoUrl::parse(base.as_str(), policy)
        .map(Some)
        .map_err(|e| FetchError(format!("the host redirected to a URL that is refused: {e}")))
}
