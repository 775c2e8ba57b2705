//! What differs between frameworks: where files go, how pages link to each other and to
//! images, their frontmatter, and the configuration and navigation files. The module list of
//! `lib.rs` is the map of these.

use std::fmt::Write;

use domain::Surface;

use crate::paths::relative;
use crate::text::{escape, quoted};
use crate::{File, Format, Layout, Page, is_mdx};

/// The sidebar's name of a surface.
pub(crate) fn surface_label(surface: Surface) -> &'static str {
    match surface {
        Surface::HelpCenter => "Help center",
        Surface::DevDocs => "Developer docs",
        Surface::Changelog => "Changelog",
        Surface::Blog => "Blog",
    }
}

/// The folder holding the pages, from the archive's root.
fn pages_root(format: Format) -> &'static str {
    match format {
        Format::Docusaurus | Format::MkdocsMaterial => "docs/",
        Format::Mintlify => "",
        Format::Starlight => "src/content/docs/",
    }
}

fn extension(format: Format) -> &'static str {
    if is_mdx(format) { "mdx" } else { "md" }
}

/// A page's path from the pages' root.
fn page_in_root(format: Format, page: &Page) -> String {
    format!(
        "{}/{}.{}",
        page.surface.as_str(),
        page.slug,
        extension(format)
    )
}

/// A page's path in the archive.
pub(crate) fn page_path(format: Format, page: &Page) -> String {
    format!("{}{}", pages_root(format), page_in_root(format, page))
}

/// The home page's path in the archive.
fn home_path(format: Format) -> String {
    format!("{}index.{}", pages_root(format), extension(format))
}

/// A page's URL path for the frameworks that link by URL.
fn page_url(page: &Page, trailing_slash: bool) -> String {
    let slash = if trailing_slash { "/" } else { "" };
    format!("/{}/{}{slash}", page.surface.as_str(), page.slug)
}

/// The link from page `from` to page `to`: a relative file link where the framework resolves
/// those (Docusaurus, MkDocs, which then check it), else the page's URL.
pub(crate) fn page_link(format: Format, from: &Page, to: &Page) -> String {
    match format {
        Format::Docusaurus | Format::MkdocsMaterial => {
            relative(&page_in_root(format, from), &page_in_root(format, to))
        }
        Format::Starlight => page_url(to, true),
        Format::Mintlify => page_url(to, false),
    }
}

/// Where image `name` (its path under the images folder) goes in the archive.
pub(crate) fn image_archive_path(format: Format, name: &str) -> String {
    match format {
        Format::Docusaurus => format!("static/img/{name}"),
        Format::Mintlify => format!("images/{name}"),
        Format::Starlight => format!("public/images/{name}"),
        Format::MkdocsMaterial => format!("docs/assets/images/{name}"),
    }
}

/// The URL of image `name` from page `from`.
pub(crate) fn image_url(format: Format, from: &Page, name: &str) -> String {
    match format {
        Format::Docusaurus => format!("/img/{name}"),
        Format::Mintlify | Format::Starlight => format!("/images/{name}"),
        Format::MkdocsMaterial => relative(
            &page_in_root(format, from),
            &format!("assets/images/{name}"),
        ),
    }
}

/// A page's file: the framework's frontmatter, then the converted body.
pub(crate) fn page_file(
    layout: &Layout,
    page: &Page,
    description: Option<&str>,
    body: &str,
) -> String {
    let mut out = String::from("---\n");
    let _ = writeln!(out, "title: {}", quoted(&page.title));
    if let Some(description) = description.filter(|d| !d.trim().is_empty()) {
        let _ = writeln!(out, "description: {}", quoted(description));
    }
    match layout.format {
        Format::Docusaurus => {
            let _ = writeln!(out, "sidebar_position: {}", page.position);
        }
        Format::Starlight => {
            let _ = writeln!(out, "sidebar:\n  order: {}", page.position);
        }
        Format::Mintlify | Format::MkdocsMaterial => {}
    }
    out.push_str("---\n\n");
    out.push_str(body.trim());
    out.push('\n');
    out
}

/// The configuration, navigation and home page of `layout`'s framework.
pub(crate) fn skeleton(layout: &Layout) -> Vec<File> {
    let format = layout.format;
    let mut files = vec![File {
        path: home_path(format),
        bytes: home_page(layout).into_bytes(),
    }];
    let text = |path: &str, contents: String| File {
        path: path.to_owned(),
        bytes: contents.into_bytes(),
    };
    match format {
        Format::Docusaurus => {
            files.push(text("docusaurus.config.js", docusaurus_config(layout)));
            files.push(text(
                "sidebars.js",
                "// The sidebar follows the folders: `_category_.json` per surface, `sidebar_position` per page.\nexport default { docs: [{ type: \"autogenerate\", dirName: \".\" }] };\n".to_owned(),
            ));
            for (position, surface) in surfaces(layout).into_iter().enumerate() {
                let category = serde_json::json!({
                    "label": surface_label(surface),
                    "position": position + 1,
                    "collapsed": false,
                });
                files.push(text(
                    &format!("docs/{}/_category_.json", surface.as_str()),
                    format!("{category:#}\n"),
                ));
            }
        }
        Format::Mintlify => files.push(text("docs.json", mintlify_config(layout))),
        Format::Starlight => {
            files.push(text("astro.config.mjs", starlight_config(layout)));
            files.push(text(
                "src/content.config.ts",
                "import { defineCollection } from \"astro:content\";\nimport { docsLoader } from \"@astrojs/starlight/loaders\";\nimport { docsSchema } from \"@astrojs/starlight/schema\";\n\nexport const collections = {\n  docs: defineCollection({ loader: docsLoader(), schema: docsSchema() }),\n};\n".to_owned(),
            ));
        }
        Format::MkdocsMaterial => files.push(text("mkdocs.yml", mkdocs_config(layout))),
    }
    files
}

/// The surfaces that have pages, in sidebar order.
fn surfaces(layout: &Layout) -> Vec<Surface> {
    let mut out: Vec<Surface> = Vec::new();
    for page in &layout.pages {
        if out.last() != Some(&page.surface) {
            out.push(page.surface);
        }
    }
    out
}

/// The home page: every page by surface, or that nothing is published yet.
fn home_page(layout: &Layout) -> String {
    let format = layout.format;
    let mut out = String::from("---\n");
    let _ = writeln!(out, "title: {}", quoted(&layout.site.name));
    match format {
        Format::Docusaurus => out.push_str("slug: /\nsidebar_position: 0\n"),
        Format::Starlight => out.push_str("sidebar:\n  order: 0\n"),
        Format::Mintlify | Format::MkdocsMaterial => {}
    }
    out.push_str("---\n\n");
    if layout.pages.is_empty() {
        out.push_str("Nothing is published in this workspace yet.\n");
        return out;
    }
    out.push_str("The published articles of this workspace, by surface.\n");
    let home = Page {
        surface: Surface::HelpCenter,
        title: String::new(),
        slug: "index".to_owned(),
        position: 0,
    };
    let mut surface = None;
    for page in &layout.pages {
        if surface != Some(page.surface) {
            surface = Some(page.surface);
            let _ = write!(out, "\n## {}\n\n", surface_label(page.surface));
        }
        let link = match format {
            // From the root's home page: no folder to climb out of.
            Format::Docusaurus | Format::MkdocsMaterial => page_in_root(format, page),
            _ => page_link(format, &home, page),
        };
        let _ = writeln!(
            out,
            "- [{}]({})",
            escape(&page.title, is_mdx(format)),
            crate::paths::destination(&link)
        );
    }
    out
}

fn docusaurus_config(layout: &Layout) -> String {
    format!(
        "// Docusaurus configuration of an export of the Content Pipeline Service. Set `url` (and
// `baseUrl`) to where the site is served. Pages are under docs/, images under static/img/.
export default {{
  title: {},
  url: \"https://example.com\",
  baseUrl: \"/\",
  onBrokenLinks: \"warn\",
  markdown: {{ hooks: {{ onBrokenMarkdownLinks: \"warn\" }} }},
  presets: [
    [
      \"classic\",
      {{
        docs: {{ routeBasePath: \"/\", sidebarPath: \"./sidebars.js\" }},
        blog: false,
      }},
    ],
  ],
}};
",
        quoted(&layout.site.name)
    )
}

fn mintlify_config(layout: &Layout) -> String {
    let mut groups = vec![serde_json::json!({"group": "Overview", "pages": ["index"]})];
    for surface in surfaces(layout) {
        let pages: Vec<String> = layout
            .pages
            .iter()
            .filter(|p| p.surface == surface)
            .map(|p| format!("{}/{}", surface.as_str(), p.slug))
            .collect();
        groups.push(serde_json::json!({"group": surface_label(surface), "pages": pages}));
    }
    let config = serde_json::json!({
        "$schema": "https://mintlify.com/docs.json",
        "theme": "mint",
        "name": layout.site.name,
        "colors": {"primary": "#0D9373"},
        "navigation": {"groups": groups},
    });
    format!("{config:#}\n")
}

fn starlight_config(layout: &Layout) -> String {
    let mut sidebar = String::new();
    for surface in surfaces(layout) {
        let _ = writeln!(
            sidebar,
            "        {{ label: {}, autogenerate: {{ directory: {} }} }},",
            quoted(surface_label(surface)),
            quoted(surface.as_str())
        );
    }
    format!(
        "// Astro Starlight configuration of an export of the Content Pipeline Service. Pages are
// under src/content/docs/ (ordered by their `sidebar.order`), images under public/images/.
import {{ defineConfig }} from \"astro/config\";
import starlight from \"@astrojs/starlight\";

export default defineConfig({{
  integrations: [
    starlight({{
      title: {},
      sidebar: [
{sidebar}      ],
    }}),
  ],
}});
",
        quoted(&layout.site.name)
    )
}

fn mkdocs_config(layout: &Layout) -> String {
    let mut out = format!(
        "# MkDocs Material configuration of an export of the Content Pipeline Service. Pages are
# under docs/, images under docs/assets/images/.
site_name: {}
theme:
  name: material
markdown_extensions:
  - admonition
  - attr_list
  - md_in_html
  - tables
  - pymdownx.details
  - pymdownx.superfences
  - toc:
      permalink: true
nav:
  - Home: index.md
",
        quoted(&layout.site.name)
    );
    for surface in surfaces(layout) {
        let _ = writeln!(out, "  - {}:", quoted(surface_label(surface)));
        for page in layout.pages.iter().filter(|p| p.surface == surface) {
            let _ = writeln!(
                out,
                "      - {}: {}",
                quoted(&page.title),
                page_in_root(Format::MkdocsMaterial, page)
            );
        }
    }
    out
}
