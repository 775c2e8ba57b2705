//! The product repository most tests run on, and the run request they start from.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::LazyLock;

use domain::Surface;
use pipeline::{GeneratedArticle, Limits, RunOutput, RunRequest, run, validate_mdx};
use testkit::Repo;

use crate::Recorded;

/// A run of `feature` in `repo`: the feature's surfaces, its whole history, no earlier
/// versions, the default limits. Tests change what they need with `..request(repo, feature)`.
pub fn request<'a>(repo: &'a Path, feature: &'a str) -> RunRequest<'a> {
    static NO_VERSIONS: BTreeMap<Surface, i64> = BTreeMap::new();
    static DEFAULT_LIMITS: LazyLock<Limits> = LazyLock::new(Limits::default);
    RunRequest {
        commit: None,
        repo,
        feature_id: feature,
        since_commit: None,
        surfaces: None,
        versions: &NO_VERSIONS,
        limits: &DEFAULT_LIMITS,
    }
}

/// A run of `feature` for its help-center and dev-docs articles, each checked to be valid MDX,
/// with what it logged.
pub fn help_and_dev_docs(repo: &Repo, feature: &str) -> (RunOutput, Recorded) {
    let mut log = Recorded::default();
    let output = run(
        &RunRequest {
            commit: None,
            surfaces: Some(&[Surface::HelpCenter, Surface::DevDocs]),
            ..request(&repo.path, feature)
        },
        &mut log,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for article in &output.articles {
        validate_mdx(&article.mdx_body)
            .unwrap_or_else(|e| panic!("{}: {e}\n{}", article.surface, article.mdx_body));
    }
    (output, log)
}

/// The article a run wrote on `surface`.
pub fn article(output: &RunOutput, surface: Surface) -> &GeneratedArticle {
    output
        .articles
        .iter()
        .find(|a| a.surface == surface)
        .unwrap_or_else(|| panic!("no {surface} article"))
}

pub const MANIFEST: &str = r#"
[[features]]
id = "csv-export"
title = "CSV export"
summary = "Export any report as a CSV file. Works with {placeholders} & <tags>."
paths = ["src/export/**", "docs/export.md"]
captures = "docs/captures/csv-export"

[[features.steps]]
title = "Open Reports"
body = "Choose **Reports** in the sidebar."
capture = "01-open-reports.png"

[[features.steps]]
title = "Pick <CSV> {format}"
body = "Click `Export` then pick {format} <here>.\n\n```text\nVec<T> {x}\n```"
capture = "02-export.png"

[[features.steps]]
title = "Download"
body = "Your file downloads."
capture = "03-missing.png"

[[features]]
id = "grounded"
title = "Grounded walkthrough"
paths = ["src/export/writer.rs"]
surfaces = ["help-center", "help-center"]
captures = "docs/captures/csv-export"

[[features.steps]]
title = "Open Reports"
capture = "01-open-reports.png"

[[features.steps]]
title = "Export"
capture = "02-export.png"
"#;

pub const WRITER_RS: &str = r#"//! CSV writing.

use std::io::Write;

/// Maximum rows in one export.
pub const MAX_ROWS: usize = 100_000;

/// Writes reports as CSV. Rows are buffered.
#[derive(Debug)]
pub struct CsvWriter<W: Write> {
    out: W,
    rows: usize,
}

impl<W: Write> CsvWriter<W> {
    /// Creates a writer over `out`.
    pub fn new(out: W) -> Self {
        CsvWriter { out, rows: 0 }
    }

    /// Writes one row and returns a `Vec<String>` of {cells} when a < b. More text.
    pub fn write_row(&mut self, cells: &[&str]) -> std::io::Result<Vec<String>> {
        self.rows += 1;
        writeln!(self.out, "{}", cells.join(","))?;
        Ok(cells.iter().map(|c| c.to_string()).collect())
    }

    fn helper(&self) -> usize {
        self.rows
    }
}

/// Where rows go.
pub trait Sink {
    /// Accepts one row.
    fn accept(&mut self, row: &str);
}

/// How cells are quoted.
pub enum Quote {
    Always,
    Minimal,
}

pub(crate) fn internal() {}

fn private_helper() {}
"#;

pub const FORMATS_PY: &str = r#""""Export formats."""

DEFAULT_DELIMITER = ","
_hidden = 1


class Exporter:
    """Turns reports into rows. Second sentence."""

    def to_rows(self, report):
        """Returns the rows of a report."""
        return [r for r in report]

    def _secret(self):
        return None


def export_csv(report, *, delimiter=",") -> str:
    """Exports a report as CSV text."""
    return delimiter.join(report)


def _private():
    pass
"#;

pub const CLIENT_TS: &str = r#"import { fetch } from "./net";

/**
 * Downloads a report as CSV.
 * @param id the report id
 */
export async function exportReport(id: string): Promise<Blob> {
  return fetch(`/reports/${id}.csv`);
}

/** Options for an export. */
export interface ExportOptions {
  delimiter: string;
  header?: boolean;
}

/** Supported formats. */
export type Format = "csv" | "tsv";

/** Default timeout in seconds. */
export const DEFAULT_TIMEOUT = 30;

/** Talks to the export API. */
export class ExportClient {
  /** Starts a download. */
  download(format: Format): void {}

  private secret(): void {}
}

function notExported(): void {}
"#;

pub const SERVER_GO: &str = r#"package export

// MaxRows caps one export.
const MaxRows = 1000

// Options configure an export.
type Options struct {
	Delimiter string
}

// Validate checks the options.
func (o *Options) Validate() error {
	return nil
}

// ExportHandler serves CSV exports over HTTP.
func ExportHandler(w Writer, r *Request) {
	helper()
}

func helper() {}
"#;

pub const EXPORT_MD: &str = "---\nsidebar: 2\n---\n# CSV export guide\n\nExports use {braces} and <angle> brackets.\n<!-- internal note -->\n\n## Limits\n\nSee <https://example.com/limits>.\n\n```rust\nlet rows: Vec<Row> = {};\n```\n";

pub const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0, 0, 0, 13, 1, 2, 3];

/// The product repository used by most tests, with its commits (oldest first).
pub struct Product {
    pub repo: Repo,
    pub commits: Vec<String>,
}

pub fn product() -> Product {
    let mut repo = Repo::new();
    let mut commits = Vec::new();
    repo.write(".content-pipeline/features.toml", MANIFEST)
        .write("src/export/writer.rs", WRITER_RS)
        .write("src/export/formats.py", FORMATS_PY)
        .write("src/export/client.ts", CLIENT_TS)
        .write("docs/export.md", EXPORT_MD)
        .write("docs/captures/csv-export/01-open-reports.png", PNG)
        .write("docs/captures/csv-export/02-export.png", PNG)
        .write("src/other/lib.rs", "/// Unrelated.\npub fn other() {}\n")
        .write("README.md", "# Product\n");
    commits.push(repo.commit("feat(export): add CSV writer for <Report> {rows}"));
    repo.write("src/export/server.go", SERVER_GO);
    commits.push(repo.commit_as("Add the Go export handler", "Grace Hopper"));
    repo.write(
        "src/export/formats.py",
        format!("{FORMATS_PY}\n# trailing comment\n"),
    );
    commits.push(repo.commit("fix: quote cells containing commas"));
    repo.write(
        "src/other/lib.rs",
        "/// Unrelated.\npub fn other() -> u8 { 1 }\n",
    );
    commits.push(repo.commit("feat(other): unrelated change"));
    repo.write("src/export/client.ts", format!("{CLIENT_TS}\n// v2\n"));
    commits.push(repo.commit("feat!: drop the legacy XLS path"));
    repo.write("docs/export.md", format!("{EXPORT_MD}\nMore.\n"));
    commits.push(repo.commit("fix(security): escape formula cells"));
    Product { repo, commits }
}

/// A repository of `files`, committed once.
pub fn repo_of(files: &[(&str, &str)]) -> Repo {
    let mut repo = Repo::new();
    for (path, content) in files {
        repo.write(path, content);
    }
    repo.commit("feat: api");
    repo
}

/// The dev-docs body and provenance of a run of `feature`, checked to be valid MDX.
pub fn dev_docs(repo: &Repo, feature: &str) -> (String, pipeline::Provenance) {
    let output = pipeline::run(
        &pipeline::RunRequest {
            commit: None,
            surfaces: Some(&[domain::Surface::DevDocs]),
            ..request(&repo.path, feature)
        },
        &mut pipeline::DiscardLog,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let article = output
        .articles
        .into_iter()
        .find(|a| a.surface == domain::Surface::DevDocs)
        .unwrap_or_else(|| panic!("no dev-docs article for {feature}"));
    pipeline::validate_mdx(&article.mdx_body).unwrap_or_else(|e| panic!("{e}"));
    (article.mdx_body, article.provenance)
}
