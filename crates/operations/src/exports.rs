//! Exporting a workspace's published articles for a docs framework: the published version of
//! each, laid out by `exports` (pure), with the images each shows read by the published
//! site's rule (`pipeline::article_files`, at the commit `Operations::version_source` names),
//! packed as a `tar.gz` that is streamed as it is made. The API's route and the CLI (through
//! the API) are its front ends.
//!
//! Bounds: at most [`MAX_EXPORT_ARTICLES`] articles (a workspace with more is refused with a
//! conflict rather than exported in part), bodies read [`BODY_PAGE`] at a time, images at most
//! [`MAX_EXPORT_IMAGE_BYTES`] in all (an image beyond that is shown as its alt text, as one the
//! repository cannot give). The archive is never held whole: it goes out in chunks through a
//! bounded channel, so a slow reader slows the export down instead of filling memory.

use std::collections::HashMap;
use std::io::{self, Write};

use domain::{RunId, Scope, WorkspaceId};
use exports::{ArchiveWriter, ArticleEntry, Format, Layout, Site};
use pipeline::article_files::{CommitFiles, CommitSource};
use store::{PublishedArticle, PublishedBody, WorkspaceRecord};
use tokio::sync::mpsc;

use crate::error::{Error, Result};
use crate::{Caller, Operations};

/// The most articles one export holds.
pub const MAX_EXPORT_ARTICLES: usize = 2_000;
/// The most image bytes one export copies.
pub const MAX_EXPORT_IMAGE_BYTES: u64 = 256 * 1024 * 1024;
/// Bodies read from the store at a time.
pub const BODY_PAGE: i64 = 100;
/// Bytes gathered before a chunk of the archive is sent.
const CHUNK_BYTES: usize = 64 * 1024;
/// Chunks in flight between the export and its reader.
const CHUNKS_IN_FLIGHT: usize = 8;

/// An export under way: its file name and the archive's bytes as they are made. An `Err`
/// item means the archive is cut short (the reader must not take it as whole).
pub struct Export {
    pub file_name: String,
    pub chunks: mpsc::Receiver<io::Result<Vec<u8>>>,
}

/// The format named by the `format` parameter.
pub fn parse_format(value: Option<&str>) -> Result<Format> {
    let names = Format::ALL
        .iter()
        .map(|f| f.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    match value {
        None | Some("") => Err(Error::validation(
            "format",
            format!("format is required: one of {names}."),
        )),
        Some(value) => value.parse().map_err(|_| {
            let shown: String = value.chars().take(64).collect();
            Error::validation(
                "format",
                format!("Unknown format '{shown}': one of {names}."),
            )
        }),
    }
}

impl Operations {
    /// Starts exporting workspace `id`'s published articles in `format` (read scope). Every
    /// refusal (not found, scope, format, too many articles) comes before the first byte.
    /// A workspace that has published nothing gets the framework's skeleton: a site that
    /// builds and says that nothing is published yet.
    pub async fn export(
        &self,
        caller: &Caller,
        id: WorkspaceId,
        format: Option<&str>,
    ) -> Result<Export> {
        let workspace: WorkspaceRecord = self.load(caller, id, Scope::Read).await?;
        let format = parse_format(format)?;
        let (listed, layout) = self.layout(&workspace, format).await?;
        let mtime = listed
            .iter()
            .map(|a| a.created_at.unix_seconds())
            .max()
            .map_or(0, |s| u64::try_from(s).unwrap_or(0));
        let (sender, chunks) = mpsc::channel(CHUNKS_IN_FLIGHT);
        let ops = self.clone();
        let repository = workspace.repo_path.clone();
        let error_sender = sender.clone();
        tokio::spawn(async move {
            let job = Job {
                ops,
                workspace: id,
                repository,
                layout,
                writer: ArchiveWriter::new(ChunkWriter::new(sender), mtime),
                files: Files::default(),
            };
            let finished = match job.run().await {
                Ok(writer) => {
                    blocking(move || writer.finish().and_then(ChunkWriter::flush_all)).await
                }
                Err(e) => Err(e),
            };
            if let Err(e) = finished {
                tracing::warn!(workspace = %id, error = %e, "an export stopped");
                let _ = error_sender
                    .send(Err(io::Error::other("the export stopped")))
                    .await;
            }
        });
        Ok(Export {
            file_name: format!("{}-{}.tar.gz", workspace.id, format.as_str()),
            chunks,
        })
    }
}

impl Operations {
    /// The workspace's published articles and their layout in `format`; a conflict past
    /// [`MAX_EXPORT_ARTICLES`].
    pub(crate) async fn layout(
        &self,
        workspace: &WorkspaceRecord,
        format: Format,
    ) -> Result<(Vec<PublishedArticle>, Layout)> {
        let listed = self
            .store
            .published_articles(workspace.id, MAX_EXPORT_ARTICLES as i64 + 1)
            .await?;
        if listed.len() > MAX_EXPORT_ARTICLES {
            return Err(Error::conflict(format!(
                "This workspace has more than {MAX_EXPORT_ARTICLES} published articles; an export holds at most {MAX_EXPORT_ARTICLES}."
            )));
        }
        let entries = listed
            .iter()
            .map(|a| ArticleEntry {
                id: a.article_id.to_string(),
                feature_id: a.feature_id.clone(),
                surface: a.surface,
                title: a.title.clone(),
            })
            .collect();
        let site = Site {
            name: workspace.name.clone(),
            base_url: self.base_url.to_string(),
        };
        Ok((listed, Layout::new(format, site, entries)))
    }

    /// Every file of the workspace's export in `format`, in memory (a publish target's
    /// sync writes them into its folder): bounded like an export.
    pub(crate) async fn export_files(
        &self,
        workspace: &WorkspaceRecord,
        layout: Layout,
    ) -> Result<Vec<exports::File>> {
        let job = Job {
            ops: self.clone(),
            workspace: workspace.id,
            repository: workspace.repo_path.clone(),
            layout,
            writer: Collected::default(),
            files: Files::default(),
        };
        Ok(job.run().await?.0)
    }
}

/// Where an export's files go: the `tar.gz` being streamed, or a list in memory.
pub(crate) trait Sink: Send + 'static {
    fn add(&mut self, path: &str, bytes: &[u8]) -> io::Result<()>;
}

impl Sink for ArchiveWriter<ChunkWriter> {
    fn add(&mut self, path: &str, bytes: &[u8]) -> io::Result<()> {
        ArchiveWriter::add(self, path, bytes)
    }
}

/// The files of an export, kept.
#[derive(Default)]
pub(crate) struct Collected(Vec<exports::File>);

impl Sink for Collected {
    fn add(&mut self, path: &str, bytes: &[u8]) -> io::Result<()> {
        self.0.push(exports::File {
            path: path.to_owned(),
            bytes: bytes.to_vec(),
        });
        Ok(())
    }
}

/// The images read so far, per commit.
#[derive(Default)]
struct Files {
    /// Open repositories at a commit (`None`: gone).
    snapshots: HashMap<String, Option<CommitFiles>>,
    /// Images the current page reads and has not written, by (commit, repository path).
    pending: HashMap<(String, String), Vec<u8>>,
    /// What each (commit, path) gave: its blob id, or nothing.
    known: HashMap<(String, String), Option<String>>,
    image_bytes: u64,
}

impl Files {
    /// The blob id of `path` at `source`, reading the file the first time it is asked.
    fn blob(&mut self, source: Option<&CommitSource>, path: &str) -> Option<String> {
        let source = source?;
        let key = (source.commit.clone(), path.to_owned());
        if let Some(known) = self.known.get(&key) {
            return known.clone();
        }
        let snapshot = self
            .snapshots
            .entry(source.commit.clone())
            .or_insert_with(|| CommitFiles::open(source));
        let read = match snapshot.as_ref().map(|s| s.read(path)) {
            Some(Ok(file)) => file,
            Some(Err(e)) => {
                tracing::warn!(error = %e, "reading a repository file for an export");
                None
            }
            None => None,
        };
        let blob = read.and_then(|file| {
            let size = file.bytes.len() as u64;
            (self.image_bytes + size <= MAX_EXPORT_IMAGE_BYTES).then(|| {
                self.pending.insert(key.clone(), file.bytes);
                file.blob_id
            })
        });
        self.known.insert(key, blob.clone());
        blob
    }
}

struct Job<S: Sink> {
    ops: Operations,
    workspace: WorkspaceId,
    repository: Option<String>,
    layout: Layout,
    writer: S,
    files: Files,
}

impl<S: Sink> Job<S> {
    /// Writes every file of the export into the sink, and gives it back.
    async fn run(mut self) -> Result<S> {
        self = blocking(move || {
            for file in self.layout.skeleton() {
                self.writer.add(&file.path, &file.bytes)?;
            }
            Ok(self)
        })
        .await?;
        let mut after = None;
        let mut commits: HashMap<RunId, Option<String>> = HashMap::new();
        loop {
            let page = self
                .ops
                .store
                .published_bodies(self.workspace, after, BODY_PAGE)
                .await?;
            let Some(last) = page.last() else { break };
            after = Some(last.article_id);
            let mut sources = Vec::with_capacity(page.len());
            for body in &page {
                let commit = match commits.get(&body.run_id) {
                    Some(commit) => commit.clone(),
                    None => {
                        let commit = self.ops.run_commit(self.workspace, body.run_id).await?;
                        commits.insert(body.run_id, commit.clone());
                        commit
                    }
                };
                sources.push(
                    self.repository
                        .clone()
                        .zip(commit)
                        .map(|(repository, commit)| CommitSource { repository, commit }),
                );
            }
            self = blocking(move || {
                for (body, source) in page.into_iter().zip(sources) {
                    self.article(body, source.as_ref())?;
                }
                Ok(self)
            })
            .await?;
        }
        Ok(self.writer)
    }

    /// One article's page and its new images into the archive.
    fn article(&mut self, body: PublishedBody, source: Option<&CommitSource>) -> io::Result<()> {
        let files = &mut self.files;
        let mut image = |path: &str| files.blob(source, path);
        let Some(exported) =
            self.layout
                .article(&body.article_id.to_string(), &body.mdx_body, &mut image)
        else {
            // Published after the export began: not in its navigation, left out.
            return Ok(());
        };
        self.writer.add(&exported.page.path, &exported.page.bytes)?;
        let commit = source.map(|s| s.commit.clone()).unwrap_or_default();
        for image in exported.images {
            let key = (commit.clone(), image.repository_path);
            if let Some(bytes) = self.files.pending.remove(&key) {
                self.files.image_bytes += bytes.len() as u64;
                self.writer.add(&image.archive_path, &bytes)?;
            }
        }
        // Files read for this page that an earlier page already copied (the same blob).
        self.files.pending.clear();
        Ok(())
    }
}

/// Runs archive work (conversion, git reads, compression) off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> io::Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(Error::internal)?
        .map_err(Error::internal)
}

/// The archive's bytes out to the channel in chunks of [`CHUNK_BYTES`]; a reader that went
/// away makes every write fail, which ends the export.
struct ChunkWriter {
    sender: mpsc::Sender<io::Result<Vec<u8>>>,
    buffer: Vec<u8>,
}

impl ChunkWriter {
    fn new(sender: mpsc::Sender<io::Result<Vec<u8>>>) -> Self {
        Self {
            sender,
            buffer: Vec::with_capacity(CHUNK_BYTES),
        }
    }

    fn send(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.buffer, Vec::with_capacity(CHUNK_BYTES));
        self.sender
            .blocking_send(Ok(chunk))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the reader went away"))
    }

    fn flush_all(mut self) -> io::Result<()> {
        self.send()
    }
}

impl Write for ChunkWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= CHUNK_BYTES {
            self.send()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
