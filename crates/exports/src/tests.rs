//! The layout of each format, on articles shaped as the pipeline writes them.

use domain::Surface;

use crate::{ArticleEntry, ExportedArticle, File, Format, Layout, Site};

const HELP: &str = r#"---
title: "CSV export"
description: "Export any report as a CSV file."
feature: "csv-export"
surface: "help-center"
version: 3
source_commit: "af62d8"
---

Export any report as a \{CSV\} file.

<Steps>
<Step title="Open Reports">

Choose **Reports** in the sidebar. See [the API](/published/art_02dev#api-reference).

<Frame>
  <img src="/docs/captures/01 open.png" alt="Open Reports" />
</Frame>

</Step>
<Step title="Export">

Press **Export**.

<Frame>
  <img src="/docs/captures/missing.png" alt="The export button" />
</Frame>

</Step>
</Steps>

<Note>
Large reports take a minute.
</Note>

## More

Read [elsewhere](https://example.com/a) or [a draft](/published/art_09gone).
"#;

const CHANGELOG: &str = r#"---
title: "CSV export changelog"
description: "What changed."
---

<Update label="v1.2.0" description="2026-11-01">

## Added

- **export:** Stream large reports (`abc1234`)

</Update>
"#;

const DEV: &str = r#"---
title: "CSV export API"
description: "The public API."
---

<a id="csv-Writer" />

### `Writer`

```rust
pub struct Writer;
```

<Warning>

**Deprecated.** Use the stream.

</Warning>
"#;

fn layout(format: Format) -> Layout {
    let entry = |id: &str, feature: &str, surface, title: &str| ArticleEntry {
        id: id.to_owned(),
        feature_id: feature.to_owned(),
        surface,
        title: title.to_owned(),
    };
    Layout::new(
        format,
        Site {
            name: "Acme <Docs>".to_owned(),
            base_url: "https://cp.example.com".to_owned(),
        },
        vec![
            entry("art_03log", "csv-export", Surface::Changelog, "CSV export changelog"),
            entry("art_01help", "csv-export", Surface::HelpCenter, "CSV export"),
            entry("art_02dev", "csv-export", Surface::DevDocs, "CSV export API"),
            entry("art_04root", ".", Surface::HelpCenter, "About Acme"),
        ],
    )
}

/// The repository gives every image but `missing.png`; its blob id is its path.
fn give(path: &str) -> Option<String> {
    (!path.ends_with("missing.png")).then(|| format!("blob:{path}"))
}

fn export(layout: &mut Layout, id: &str, mdx: &str) -> ExportedArticle {
    let exported = layout.article(id, mdx, &mut give);
    exported.unwrap_or_else(|| panic!("{id} is in the layout"))
}

fn text(file: &File) -> &str {
    std::str::from_utf8(&file.bytes).unwrap_or_default()
}

fn find<'f>(files: &'f [File], path: &str) -> &'f str {
    let file = files.iter().find(|f| f.path == path);
    text(file.unwrap_or_else(|| panic!("{path} in {:?}", paths(files))))
}

fn paths(files: &[File]) -> Vec<&str> {
    files.iter().map(|f| f.path.as_str()).collect()
}

#[test]
fn docusaurus_uses_folders_categories_and_admonitions() {
    let mut layout = layout(Format::Docusaurus);
    let skeleton = layout.skeleton();
    assert!(find(&skeleton, "docusaurus.config.js").contains("\"Acme <Docs>\""));
    assert!(find(&skeleton, "sidebars.js").contains("autogenerate"));
    let category: serde_json::Value =
        serde_json::from_str(find(&skeleton, "docs/help-center/_category_.json"))
            .unwrap_or_default();
    assert_eq!(category["label"], "Help center");
    assert_eq!(category["position"], 1);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(find(&skeleton, "docs/changelog/_category_.json"))
            .unwrap_or_default()["position"],
        3
    );
    assert!(find(&skeleton, "docs/index.mdx").contains("- [CSV export](help-center/csv-export.mdx)"));

    let help = export(&mut layout, "art_01help", HELP);
    assert_eq!(help.page.path, "docs/help-center/csv-export.mdx");
    let page = text(&help.page);
    assert!(page.starts_with("---\ntitle: \"CSV export\"\ndescription: \"Export any report as a CSV file.\"\nsidebar_position: 2\n---\n"), "{page}");
    assert!(!page.contains("source_commit"), "{page}");
    assert!(page.contains("Export any report as a \\{CSV\\} file."), "{page}");
    assert!(page.contains("## 1. Open Reports"), "{page}");
    assert!(page.contains("## 2. Export"), "{page}");
    assert!(page.contains("![Open Reports](/img/docs/captures/01-open.png)"), "{page}");
    assert!(!page.contains("missing.png") && page.contains("The export button"), "{page}");
    assert!(page.contains("[the API](../dev-docs/csv-export.mdx#api-reference)"), "{page}");
    assert!(page.contains("[a draft](https://cp.example.com/published/art_09gone)"), "{page}");
    assert!(page.contains("[elsewhere](https://example.com/a)"), "{page}");
    assert!(page.contains(":::note\n\nLarge reports take a minute.\n\n:::"), "{page}");
    assert!(!page.contains("<Steps>") && !page.contains("<Frame>") && !page.contains("<Note>"));
    assert_eq!(
        help.images,
        vec![crate::ImageFile {
            repository_path: "docs/captures/01 open.png".to_owned(),
            archive_path: "static/img/docs/captures/01-open.png".to_owned(),
        }]
    );

    let log = export(&mut layout, "art_03log", CHANGELOG);
    let page = text(&log.page);
    assert!(page.contains("## v1.2.0\n\n_2026-11-01_\n\n### Added"), "{page}");
    let dev = export(&mut layout, "art_02dev", DEV);
    let page = text(&dev.page);
    assert!(page.contains("<a id=\"csv-Writer\" />"), "{page}");
    assert!(page.contains(":::warning\n\n**Deprecated.** Use the stream.\n\n:::"), "{page}");
    assert!(page.contains("```rust\npub struct Writer;\n```"), "{page}");
}

#[test]
fn mintlify_keeps_our_components_and_lists_pages_in_docs_json() {
    let mut layout = layout(Format::Mintlify);
    let skeleton = layout.skeleton();
    let config: serde_json::Value =
        serde_json::from_str(find(&skeleton, "docs.json")).unwrap_or_default();
    assert_eq!(config["theme"], "mint");
    assert_eq!(config["name"], "Acme <Docs>");
    let groups = &config["navigation"]["groups"];
    assert_eq!(groups[0]["pages"][0], "index");
    assert_eq!(groups[1]["group"], "Help center");
    assert_eq!(
        groups[1]["pages"],
        serde_json::json!(["help-center/repository", "help-center/csv-export"])
    );
    assert_eq!(groups[2]["pages"], serde_json::json!(["dev-docs/csv-export"]));

    let help = export(&mut layout, "art_01help", HELP);
    assert_eq!(help.page.path, "help-center/csv-export.mdx");
    let page = text(&help.page);
    assert!(page.contains("<Steps>\n<Step title=\"Open Reports\">"), "{page}");
    assert!(page.contains("<Frame>\n  ![Open Reports](/images/docs/captures/01-open.png)\n</Frame>"), "{page}");
    assert!(page.contains("<Note>\nLarge reports take a minute.\n</Note>"), "{page}");
    assert!(page.contains("[the API](/dev-docs/csv-export#api-reference)"), "{page}");
    assert_eq!(help.images[0].archive_path, "images/docs/captures/01-open.png");
    let log = export(&mut layout, "art_03log", CHANGELOG);
    assert!(text(&log.page).contains("<Update label=\"v1.2.0\" description=\"2026-11-01\">"));
}

#[test]
fn starlight_uses_its_steps_asides_and_sidebar_order() {
    let mut layout = layout(Format::Starlight);
    let skeleton = layout.skeleton();
    let config = find(&skeleton, "astro.config.mjs");
    assert!(config.contains("{ label: \"Help center\", autogenerate: { directory: \"help-center\" } }"), "{config}");
    assert!(find(&skeleton, "src/content.config.ts").contains("docsLoader()"));
    assert!(find(&skeleton, "src/content/docs/index.mdx").contains("](/help-center/csv-export/)"));

    let help = export(&mut layout, "art_01help", HELP);
    assert_eq!(help.page.path, "src/content/docs/help-center/csv-export.mdx");
    let page = text(&help.page);
    assert!(page.contains("sidebar:\n  order: 2\n"), "{page}");
    assert!(page.contains("import { Steps } from \"@astrojs/starlight/components\";"), "{page}");
    assert!(page.contains("<Steps>\n\n1. Open Reports\n\n   Choose **Reports**"), "{page}");
    assert!(page.contains("   ![Open Reports](/images/docs/captures/01-open.png)"), "{page}");
    assert!(page.contains("2. Export\n\n   Press **Export**."), "{page}");
    assert!(page.contains(":::note\n\nLarge reports take a minute.\n\n:::"), "{page}");
    assert!(page.contains("[the API](/dev-docs/csv-export/#api-reference)"), "{page}");
    assert_eq!(help.images[0].archive_path, "public/images/docs/captures/01-open.png");
    let dev = export(&mut layout, "art_02dev", DEV);
    assert!(text(&dev.page).contains(":::caution"));
}

#[test]
fn mkdocs_writes_plain_markdown_with_admonitions_and_a_nav() {
    let mut layout = layout(Format::MkdocsMaterial);
    let skeleton = layout.skeleton();
    let config = find(&skeleton, "mkdocs.yml");
    assert!(config.contains("site_name: \"Acme <Docs>\""), "{config}");
    assert!(config.contains("  - \"Help center\":\n      - \"About Acme\": help-center/repository.md\n      - \"CSV export\": help-center/csv-export.md\n"), "{config}");
    assert!(config.contains("name: material"));
    assert!(find(&skeleton, "docs/index.md").contains("](help-center/csv-export.md)"));

    let help = export(&mut layout, "art_01help", HELP);
    assert_eq!(help.page.path, "docs/help-center/csv-export.md");
    let page = text(&help.page);
    assert!(page.contains("Export any report as a \\{CSV\\} file."), "{page}");
    assert!(page.contains("## 1. Open Reports"), "{page}");
    assert!(page.contains("![Open Reports](../assets/images/docs/captures/01-open.png)"), "{page}");
    assert!(page.contains("!!! note\n\n    Large reports take a minute."), "{page}");
    assert!(page.contains("[the API](../dev-docs/csv-export.md#api-reference)"), "{page}");
    assert!(!page.contains('<') || !page.contains("<Steps"), "{page}");
    assert_eq!(help.images[0].archive_path, "docs/assets/images/docs/captures/01-open.png");
    let dev = export(&mut layout, "art_02dev", DEV);
    let page = text(&dev.page);
    assert!(page.contains("<a id=\"csv-Writer\"></a>"), "{page}");
    assert!(page.contains("!!! warning\n\n    **Deprecated.** Use the stream."), "{page}");
    let log = export(&mut layout, "art_03log", CHANGELOG);
    assert!(text(&log.page).contains("## v1.2.0\n\n_2026-11-01_\n\n### Added"));
}

#[test]
fn an_image_is_copied_once_and_different_files_get_different_names() {
    let mut layout = layout(Format::Docusaurus);
    let first = export(&mut layout, "art_01help", HELP);
    assert_eq!(first.images.len(), 1);
    // The same file again: no new image.
    let again = export(&mut layout, "art_01help", HELP);
    assert!(again.images.is_empty());
    // The same path at another commit (another blob): a name of its own.
    let mut other = |path: &str| Some(format!("other:{path}"));
    let changed = layout.article("art_04root", HELP, &mut other);
    let images = changed.map(|c| c.images).unwrap_or_default();
    assert_eq!(images[0].archive_path, "static/img/docs/captures/01-open-2.png");
}

#[test]
fn an_empty_workspace_gets_a_skeleton_that_says_so() {
    for format in Format::ALL {
        let layout = Layout::new(
            *format,
            Site {
                name: "Empty".to_owned(),
                base_url: "http://x".to_owned(),
            },
            Vec::new(),
        );
        let skeleton = layout.skeleton();
        assert!(
            skeleton
                .iter()
                .any(|f| text(f).contains("Nothing is published in this workspace yet.")),
            "{format}"
        );
        assert!(skeleton.iter().all(|f| crate::is_safe_path(&f.path)));
    }
}

#[test]
fn an_article_outside_the_layout_is_refused() {
    let mut layout = layout(Format::Mintlify);
    assert!(layout.article("art_nope", HELP, &mut give).is_none());
}
