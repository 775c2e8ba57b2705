//! Where an article points for a file of the repository: the forge's page at the run's
//! commit, else the address the service serves it at.

use crate::source::forge::{self, Forge};

pub(crate) const IMAGE_EXTENSIONS: &[&str] =
    &[".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif"];

/// Where an article points for a file of the repository.
#[derive(Clone, Debug, Default)]
pub(crate) struct Links {
    /// The run's source commit.
    pub commit: String,
    pub forge: Option<Forge>,
}

impl Links {
    /// The URL an article uses for the repository file `path` at the run's commit: on a known
    /// forge its page (`raw`: its bytes, for images), else [`served_url`]. Every link, image
    /// and step capture goes through here.
    pub fn file(&self, path: &str, raw: bool) -> String {
        let forge = self.forge.as_ref().and_then(|forge| {
            if raw {
                forge.raw_url(&self.commit, path)
            } else {
                forge.file_url(&self.commit, path, None)
            }
        });
        forge.unwrap_or_else(|| served_url(path, &self.commit))
    }
}

/// The URL at which the service serves the repository file `path` as of `commit`, for
/// repositories without a known forge. Today: the site path `/` + `path`, as step captures
/// have always been published (the site copies them next to the articles). The service's own
/// endpoint (a later issue) will serve files at an article's commit; point this function at
/// it then, and every link and image follows.
pub(crate) fn served_url(path: &str, commit: &str) -> String {
    let _ = commit;
    format!("/{}", forge::encode_path(path))
}
