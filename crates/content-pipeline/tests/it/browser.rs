//! Browser tests: real headless Chromium (Debian's `chromium` and `chromium-driver`) driven
//! over WebDriver, against the real service that `app!()` starts on port 0.
//!
//! ```ignore
//! let browser = browser!();   // or: ends the test as skipped when Chromium is not installed
//! let app = app!();
//! browser.goto(&app.url("/docs")).await;
//! browser.wait_for_text(&by_test("run-row"), "succeeded").await;
//! browser.submit_form(&by_test("sign-in"), &[("email", "a@b.c"), ("password", "…")]).await;
//! browser.wait_for_path("/portal").await;
//! browser.screenshot().await;   // target/browser-screenshots/<module>-<test>.png
//! ```
//!
//! - Pages mark what tests look for with `data-test-*` attributes (as crates.io's e2e tests
//!   do): `<tr data-test-run-row>` is found with `by_test("run-row")`, which is plain CSS, so
//!   it composes (`format!("{} a", by_test("run-row"))`).
//! - Every `wait_for…` polls for at most [`WAIT`] and then fails the test naming what it
//!   waited for. A test that fails for any reason while its browser is open leaves
//!   `<module>-<test>--failed.png` beside its screenshots.
//! - Each test gets its own chromedriver (on a port it picks itself) and browser profile, both
//!   gone when the [`Browser`] is dropped. At most [`CONCURRENT_BROWSERS`] run at once.
//! - Without Chromium the test prints `SKIPPED` and passes, unless
//!   `CONTENT_PIPELINE_REQUIRE_BROWSER=1` (set by `.ci/run`) makes that a failure.
//! - Every portal and published page a test reaches (after `goto`, `wait_for_path` and any
//!   `wait_for…`) is audited once per address ([`Browser::audit`]): axe-core finds no serious
//!   or critical violation, the page does not scroll sideways at its width nor at [`NARROW`],
//!   and the console has no error.
//!
//! The WebDriver client is thirtyfour (without default features): it speaks HTTP through the
//! reqwest 0.13 the tests already use, so it adds nine small crates. fantoccini 0.22 would
//! bring its own hyper client, Mozilla's `webdriver` crate with a second `http` and ICU's
//! segmenter: twenty-three crates, some duplicates of ours in older versions.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use base64::Engine as _;
use testkit::eventually;
use thirtyfour::prelude::*;
use thirtyfour::{ChromeCapabilities, LoggingPrefsLogLevel};
use tokio::sync::{Semaphore, SemaphorePermit};
use url::Url;

/// How long a `wait_for…` polls before it fails the test.
pub const WAIT: Duration = Duration::from_secs(10);
/// A laptop's viewport, the size every browser starts with.
pub const DESKTOP: (u32, u32) = (1280, 900);
/// A phone's viewport (an iPhone 14's CSS pixels).
pub const PHONE: (u32, u32) = (390, 844);
/// The most presses of Tab [`Browser::tab_to`] tries.
pub const MAX_TABS: usize = 80;
/// The narrowest width every page is checked at: headless Chromium's smallest window.
pub const NARROW: (u32, u32) = (500, 900);
/// axe-core, installed by `npm ci` in `tests/axe` (`.ci/run` does it).
const AXE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/axe/node_modules/axe-core/axe.min.js"
);
/// Runs axe-core on the page and answers its serious and critical violations, one line each.
const AXE_RUN: &str = r#"
const done = arguments[arguments.length - 1];
axe.run(document, { resultTypes: ['violations'] })
  .then(r => done(r.violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => `${v.id} (${v.impact}): ${v.help}: ` +
      v.nodes.slice(0, 5).map(n => n.target.join(' ') + ' ' + n.failureSummary).join(' | '))))
  .catch(e => done(['axe-core failed: ' + e]));
"#;
/// True when the page is wider than its viewport: it scrolls sideways.
const SCROLLS_SIDEWAYS: &str = "return document.documentElement.scrollWidth > \
     document.documentElement.clientWidth;";
/// Browsers alive at once in this test binary. Chromium takes most of a core while it starts
/// and renders, and a few hundred MiB. On the 2-core development machine (busy with other
/// builds) two at once did not make the suite measurably faster than one: 63–72 s either way,
/// about 50 s without the browser tests, which alone took 11–18 s.
pub const CONCURRENT_BROWSERS: usize = 1;

/// The flags Chromium needs in a container without a display, a GPU or network access, and
/// with no background traffic of its own that could slow a test or make it flaky.
const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

static BROWSERS: Semaphore = Semaphore::const_new(CONCURRENT_BROWSERS);

/// Starts a [`Browser`], or ends the test as skipped when Chromium is not installed and not
/// required.
#[macro_export]
macro_rules! browser {
    () => {
        match $crate::browser::Browser::skip_or_start().await {
            Some(browser) => browser,
            None => return,
        }
    };
}

/// The CSS selector of the elements marked `data-test-{name}`.
pub fn by_test(name: &str) -> String {
    format!("[data-test-{name}]")
}

/// The CSS selector of the element marked `data-test="{name}"`.
pub fn t(name: &str) -> String {
    format!("[data-test=\"{name}\"]")
}

/// Signs `email` in with the portal tests' password and waits for the workspaces page.
pub async fn sign_in(b: &Browser, app: &crate::helpers::TestApp, email: &str) {
    b.goto(&app.url("/portal/sign-in")).await;
    b.submit_form(
        &t("sign-in-form"),
        &[("email", email), ("password", crate::portal::PASSWORD)],
    )
    .await;
    b.wait_for_path("/portal/workspaces").await;
}

/// A headless Chromium of the test's own, driven over WebDriver.
pub struct Browser {
    driver: Option<WebDriver>,
    /// The test's name as a file name: `module-test`.
    test: String,
    screenshots: PathBuf,
    chromedriver: Chromedriver,
    /// The addresses audited so far ([`Browser::audit`]).
    audited: std::sync::Mutex<std::collections::HashSet<String>>,
    _profile: tempfile::TempDir,
    _turn: SemaphorePermit<'static>,
}

impl Browser {
    /// A browser with a [`DESKTOP`] window, or `None` after a `SKIPPED` line when chromium or
    /// chromedriver is missing (a failure instead with `CONTENT_PIPELINE_REQUIRE_BROWSER=1`).
    pub async fn skip_or_start() -> Option<Browser> {
        let (chromedriver, chromium) = match installed() {
            Ok(programs) => programs,
            Err(missing)
                if std::env::var("CONTENT_PIPELINE_REQUIRE_BROWSER").as_deref() == Ok("1") =>
            {
                panic!("CONTENT_PIPELINE_REQUIRE_BROWSER=1 but {missing}")
            }
            Err(missing) => {
                eprintln!(
                    "SKIPPED: {missing}; install Debian's chromium and chromium-driver to run the browser tests, \
                     or set CONTENT_PIPELINE_REQUIRE_BROWSER=1 to fail instead"
                );
                return None;
            }
        };
        let turn = BROWSERS
            .acquire()
            .await
            .expect("the browsers' semaphore is never closed");
        let test = test_name();
        let screenshots = target_dir().join("browser-screenshots");
        std::fs::create_dir_all(&screenshots).expect("create target/browser-screenshots");
        // A failure picture from an earlier run would pass for this run's.
        let _ = std::fs::remove_file(screenshots.join(format!("{test}--failed.png")));
        let profile = tempfile::tempdir().expect("a browser profile directory");
        let chromedriver = Chromedriver::start(&chromedriver, profile.path()).await;
        let driver = new_session(&chromedriver, &chromium, profile.path()).await;
        let browser = Browser {
            driver: Some(driver),
            test,
            screenshots,
            chromedriver,
            audited: Default::default(),
            _profile: profile,
            _turn: turn,
        };
        browser.resize(DESKTOP).await;
        Some(browser)
    }

    /// Presses Tab until the focused element matches `css` (at most [`MAX_TABS`] times), as a
    /// person without a mouse reaches it; fails the test when Tab never gets there.
    pub async fn tab_to(&self, css: &str) {
        let matches = format!(
            "return document.activeElement !== null && document.activeElement.matches({});",
            serde_json::Value::String(css.to_owned())
        );
        for _ in 0..MAX_TABS {
            let focused = self
                .driver()
                .execute(matches.as_str(), Vec::new())
                .await
                .is_ok_and(|answer| answer.json() == &serde_json::Value::Bool(true));
            if focused {
                return;
            }
            self.press(Key::Tab).await;
        }
        let shot = self.failure(&format!("Tab to reach `{css}`"));
        panic!("{MAX_TABS} presses of Tab did not do it: {shot}");
    }

    /// Presses `key` on whatever has the focus.
    pub async fn press(&self, key: Key) {
        self.driver()
            .action_chain()
            .send_keys(key)
            .perform()
            .await
            .unwrap_or_else(|e| panic!("press a key: {e}"));
    }

    /// Types `text` into whatever has the focus.
    pub async fn type_text(&self, text: &str) {
        self.driver()
            .action_chain()
            .send_keys(text)
            .perform()
            .await
            .unwrap_or_else(|e| panic!("type {text:?}: {e}"));
    }

    /// The WebDriver session, for what the helpers here do not cover.
    pub fn driver(&self) -> &WebDriver {
        self.driver
            .as_ref()
            .expect("the session lives as long as the browser")
    }

    /// Opens `url` and waits until it has loaded (its `load` event).
    pub async fn goto(&self, url: &str) {
        self.driver()
            .goto(url)
            .await
            .unwrap_or_else(|e| panic!("open {url}: {e}"));
        self.audit().await;
    }

    /// Audits the page the browser shows, once per address, when it is one of the portal's or
    /// the published site's: axe-core finds no serious or critical violation, the page does
    /// not scroll sideways at its width nor at [`NARROW`], and its console reports no error.
    pub async fn audit(&self) {
        let Ok(url) = self.driver().current_url().await else {
            return;
        };
        if !(url.path().starts_with("/portal") || url.path().starts_with("/published")) {
            return;
        }
        // The refusal a test asks for on purpose (a 403 or 404 page) is logged as the page's
        // own failed load: that is the page, not an error in it.
        let own_status =
            format!("{url} - Failed to load resource: the server responded with a status of 4");
        let errors: Vec<String> = self
            .console_errors()
            .await
            .into_iter()
            .filter(|e| !e.starts_with(&own_status))
            .collect();
        let address = format!("{}?{}", url.path(), url.query().unwrap_or(""));
        assert!(
            errors.is_empty(),
            "{address}: the page reported errors: {errors:#?}"
        );
        let first = self
            .audited
            .lock()
            .expect("the audit list is never poisoned")
            .insert(address.clone());
        if !first {
            return;
        }
        let violations = self.axe().await;
        assert!(
            violations.is_empty(),
            "{address}: axe-core found serious or critical violations:\n{}",
            violations.join("\n")
        );
        let width = self.viewport_width().await;
        assert!(
            !self.scrolls_sideways().await,
            "{address} scrolls sideways at {width} px"
        );
        if width > NARROW.0 {
            let (_, height) = DESKTOP;
            self.resize(NARROW).await;
            let sideways = self.scrolls_sideways().await;
            self.resize((width, height)).await;
            assert!(!sideways, "{address} scrolls sideways at {} px", NARROW.0);
        }
    }

    /// The serious and critical violations axe-core finds in the page, one line each.
    async fn axe(&self) -> Vec<String> {
        let source = match std::fs::read_to_string(AXE) {
            Ok(source) => source,
            Err(e) if std::env::var("CONTENT_PIPELINE_REQUIRE_BROWSER").as_deref() == Ok("1") => {
                panic!(
                    "CONTENT_PIPELINE_REQUIRE_BROWSER=1 but axe-core is missing ({AXE}: {e}); run `npm ci` in crates/content-pipeline/tests/axe"
                )
            }
            Err(_) => {
                eprintln!(
                    "SKIPPED: the accessibility audit; run `npm ci` in crates/content-pipeline/tests/axe"
                );
                return Vec::new();
            }
        };
        let driver = self.driver();
        let present = driver
            .execute("return typeof window.axe !== 'undefined';", Vec::new())
            .await
            .is_ok_and(|answer| answer.json() == &serde_json::Value::Bool(true));
        if !present {
            driver
                .execute(format!("{source}\nreturn true;"), Vec::new())
                .await
                .unwrap_or_else(|e| panic!("load axe-core into the page: {e}"));
        }
        driver
            .execute_async(AXE_RUN, Vec::new())
            .await
            .and_then(|answer| answer.convert())
            .unwrap_or_else(|e| panic!("run axe-core: {e}"))
    }

    async fn viewport_width(&self) -> u32 {
        self.driver()
            .execute("return window.innerWidth;", Vec::new())
            .await
            .and_then(|answer| answer.convert())
            .expect("the viewport's width")
    }

    async fn scrolls_sideways(&self) -> bool {
        self.driver()
            .execute(SCROLLS_SIDEWAYS, Vec::new())
            .await
            .and_then(|answer| answer.convert())
            .expect("the page's width")
    }

    pub async fn current_url(&self) -> Url {
        self.driver().current_url().await.expect("the current URL")
    }

    pub async fn title(&self) -> String {
        self.driver().title().await.expect("the page title")
    }

    /// Gives the page a viewport of `(width, height)` CSS pixels, e.g. [`PHONE`] or
    /// [`DESKTOP`]. The window is larger: headless Chromium still counts a toolbar in it.
    pub async fn resize(&self, (width, height): (u32, u32)) {
        let driver = self.driver();
        let set = |w: u32, h: u32| async move {
            driver
                .set_window_rect(0, 0, w, h)
                .await
                .expect("resize the window");
        };
        set(width, height).await;
        let viewport: (u32, u32) = driver
            .execute(
                "return [window.innerWidth, window.innerHeight];",
                Vec::new(),
            )
            .await
            .and_then(|answer| answer.convert())
            .expect("the viewport's size");
        if viewport != (width, height) {
            set(2 * width - viewport.0, 2 * height - viewport.1).await;
        }
    }

    /// The first element matching `css`, once there is one.
    pub async fn wait_for(&self, css: &str) -> WebElement {
        let what = self.failure(&format!("an element matching `{css}`"));
        let found = eventually(WAIT, &what, || async {
            self.driver()
                .find_all(By::Css(css))
                .await
                .ok()?
                .into_iter()
                .next()
        })
        .await;
        self.audit().await;
        found
    }

    /// The first element matching `css` whose text contains `text`, once there is one.
    pub async fn wait_for_text(&self, css: &str, text: &str) -> WebElement {
        let what = self.failure(&format!(
            "an element matching `{css}` with the text {text:?}"
        ));
        let found = eventually(WAIT, &what, || async {
            for element in self.driver().find_all(By::Css(css)).await.ok()? {
                if element.text().await.is_ok_and(|t| t.contains(text)) {
                    return Some(element);
                }
            }
            None
        })
        .await;
        self.audit().await;
        found
    }

    /// Waits until no element matches `css`.
    pub async fn wait_gone(&self, css: &str) {
        let what = self.failure(&format!("no element matching `{css}`"));
        eventually(WAIT, &what, || async {
            let found = self.driver().find_all(By::Css(css)).await.ok()?;
            found.is_empty().then_some(())
        })
        .await
    }

    /// Waits until the current URL's path is `path` (after a redirect or a form's answer).
    pub async fn wait_for_path(&self, path: &str) -> Url {
        let what = self.failure(&format!("the URL's path {path:?}"));
        let url = eventually(WAIT, &what, || async {
            let url = self.driver().current_url().await.ok()?;
            (url.path() == path).then_some(url)
        })
        .await;
        self.audit().await;
        url
    }

    /// Waits until the JavaScript expression `condition` is true in the page, e.g.
    /// `"document.fonts.status === 'loaded'"`.
    pub async fn wait_until(&self, condition: &str) {
        let what = self.failure(&format!("`{condition}` true in the page"));
        let script = format!("return Boolean({condition});");
        eventually(WAIT, &what, || async {
            let answer = self
                .driver()
                .execute(script.as_str(), Vec::new())
                .await
                .ok()?;
            (answer.json() == &serde_json::Value::Bool(true)).then_some(())
        })
        .await
    }

    /// Reloads the page until an element matching `css` contains `text`, for up to `patience`
    /// (what workers record shows on the next load, not live).
    pub async fn reload_until(&self, css: &str, text: &str, patience: std::time::Duration) {
        let deadline = std::time::Instant::now() + patience;
        loop {
            if self.count(css).await > 0 && self.text(css).await.contains(text) {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "`{css}` never showed {text:?}; the page shows {:?}",
                self.text("main").await
            );
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            let here = self.current_url().await;
            self.goto(here.as_str()).await;
        }
    }

    /// The text of the first element matching `css`, once there is one.
    pub async fn text(&self, css: &str) -> String {
        let element = self.wait_for(css).await;
        element
            .text()
            .await
            .unwrap_or_else(|e| panic!("the text of `{css}`: {e}"))
    }

    /// How many elements match `css` now (without waiting).
    pub async fn count(&self, css: &str) -> usize {
        self.driver()
            .find_all(By::Css(css))
            .await
            .unwrap_or_else(|e| panic!("find `{css}`: {e}"))
            .len()
    }

    /// Clicks the first element matching `css`, once there is one.
    pub async fn click(&self, css: &str) {
        let element = self.wait_for(css).await;
        element
            .click()
            .await
            .unwrap_or_else(|e| panic!("click `{css}`: {e}"));
    }

    /// Types `value` into the field matching `css`, replacing what it held.
    pub async fn fill(&self, css: &str, value: &str) {
        let field = self.wait_for(css).await;
        fill(&field, value, css).await;
    }

    /// Fills the fields of the form matching `form` by their `name` and submits it with its
    /// submit button, as a person would. Wait for what the answer shows (`wait_for_path`,
    /// `wait_for_text`): until it has loaded, the old page is still there.
    pub async fn submit_form(&self, form: &str, fields: &[(&str, &str)]) {
        let element = self.wait_for(form).await;
        for (name, value) in fields {
            let css = format!("[name=\"{name}\"]");
            let field = element
                .find(By::Css(css.as_str()))
                .await
                .unwrap_or_else(|e| panic!("the field {name:?} in `{form}`: {e}"));
            fill(&field, value, &css).await;
        }
        let submit = "button[type=submit], input[type=submit], button:not([type])";
        element
            .find(By::Css(submit))
            .await
            .unwrap_or_else(|e| panic!("a submit button in `{form}`: {e}"))
            .click()
            .await
            .unwrap_or_else(|e| panic!("submit `{form}`: {e}"));
    }

    /// The errors the page reported since the last call: uncaught exceptions, `console.error`,
    /// resources that failed to load, Content-Security-Policy violations.
    pub async fn console_errors(&self) -> Vec<String> {
        let log = self
            .driver()
            .browser_log()
            .await
            .expect("the browser's log");
        log.into_iter()
            .filter(|entry| entry.level == "SEVERE")
            .map(|entry| entry.message)
            .collect()
    }

    /// Saves the page as `target/browser-screenshots/<module>-<test>.png` for a person to
    /// look at; returns the file.
    pub async fn screenshot(&self) -> PathBuf {
        self.save_screenshot(&format!("{}.png", self.test)).await
    }

    /// Like [`Browser::screenshot`], for a test that checks several pages or states:
    /// `<module>-<test>--<label>.png`.
    pub async fn screenshot_as(&self, label: &str) -> PathBuf {
        self.save_screenshot(&format!("{}--{label}.png", self.test))
            .await
    }

    async fn save_screenshot(&self, file: &str) -> PathBuf {
        let png = self
            .driver()
            .screenshot_as_png()
            .await
            .expect("a screenshot");
        let path = self.screenshots.join(file);
        std::fs::write(&path, png).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        path
    }

    /// What a failed wait says: what it waited for and where the failure picture will be.
    fn failure(&self, waited_for: &str) -> String {
        let picture = self.screenshots.join(format!("{}--failed.png", self.test));
        format!("{waited_for} (screenshot: {})", picture.display())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let Some(driver) = self.driver.take() else {
            return;
        };
        if std::thread::panicking() {
            let picture = self.screenshots.join(format!("{}--failed.png", self.test));
            let session = driver.session_id().to_string();
            match failure_screenshot(&self.chromedriver.url, &session, &picture) {
                Ok(()) => eprintln!("the page when the test failed: {}", picture.display()),
                Err(e) => eprintln!("no screenshot of the failed test: {e}"),
            }
        }
        // Chromium dies with the chromedriver's process group; no session to end politely.
        let _ = driver.leak();
    }
}

async fn fill(field: &WebElement, value: &str, css: &str) {
    field
        .clear()
        .await
        .unwrap_or_else(|e| panic!("clear `{css}`: {e}"));
    field
        .send_keys(value)
        .await
        .unwrap_or_else(|e| panic!("type into `{css}`: {e}"));
}

/// Takes a screenshot through chromedriver's HTTP API directly: a failing test is unwinding,
/// and its runtime cannot be awaited from `drop`, so this runs on a thread of its own.
fn failure_screenshot(chromedriver: &str, session: &str, file: &Path) -> Result<(), String> {
    let url = format!("{chromedriver}/session/{session}/screenshot");
    let answer = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| e.to_string())?;
                runtime.block_on(async {
                    let client = reqwest::Client::builder()
                        .timeout(Duration::from_secs(10))
                        .build()
                        .map_err(|e| e.to_string())?;
                    let res = client.get(&url).send().await.map_err(|e| e.to_string())?;
                    res.json::<serde_json::Value>()
                        .await
                        .map_err(|e| e.to_string())
                })
            })
            .join()
            .map_err(|_| "the screenshot thread panicked".to_owned())?
    })?;
    let encoded = answer["value"]
        .as_str()
        .ok_or_else(|| format!("chromedriver answered {answer}"))?;
    let png = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|e| e.to_string())?;
    std::fs::write(file, png).map_err(|e| format!("{}: {e}", file.display()))
}

/// A chromedriver process in a process group of its own, so that the Chromium it starts ends
/// with it.
struct Chromedriver {
    child: Child,
    url: String,
}

impl Chromedriver {
    /// Starts chromedriver on a port it picks (`--port=0`, reported on its stdout) and waits
    /// until it answers. Its log goes to `dir/chromedriver.log`.
    async fn start(program: &Path, dir: &Path) -> Chromedriver {
        use std::os::unix::process::CommandExt as _;
        let log_path = dir.join("chromedriver.log");
        let log = std::fs::File::create(&log_path).expect("chromedriver's log file");
        let mut child = Command::new(program)
            .args(["--port=0", "--log-level=WARNING"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", program.display()));
        let stdout = child.stdout.take().expect("chromedriver's stdout");
        let (port_tx, port_rx) = tokio::sync::oneshot::channel();
        // Reads until chromedriver exits, so that its stdout never fills up and blocks it.
        std::thread::spawn(move || {
            let mut port_tx = Some(port_tx);
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let port = line
                    .strip_prefix("ChromeDriver was started successfully on port ")
                    .and_then(|rest| rest.trim_end_matches('.').parse::<u16>().ok());
                if let Some(port) = port
                    && let Some(tx) = port_tx.take()
                {
                    let _ = tx.send(port);
                }
            }
        });
        let mut started = Chromedriver {
            child,
            url: String::new(),
        };
        let port = match tokio::time::timeout(WAIT, port_rx).await {
            Ok(Ok(port)) => port,
            _ => panic!(
                "{} did not report its port within {WAIT:?}; its log: {}",
                program.display(),
                std::fs::read_to_string(&log_path).unwrap_or_default()
            ),
        };
        started.url = format!("http://127.0.0.1:{port}");
        let status = format!("{}/status", started.url);
        let client = reqwest::Client::new();
        eventually(WAIT, "chromedriver ready", || async {
            let res = client.get(&status).send().await.ok()?;
            let answer: serde_json::Value = res.json().await.ok()?;
            (answer["value"]["ready"] == true).then_some(())
        })
        .await;
        started
    }
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        // The whole group: chromedriver and every Chromium process it started.
        let group = self.child.id() as libc::pid_t;
        // SAFETY: kill(2) with a negative pid signals that process group; no memory involved.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
        let _ = self.child.wait();
    }
}

/// A WebDriver session on a fresh profile in `profile`, with the browser's console log kept
/// for [`Browser::console_errors`].
async fn new_session(chromedriver: &Chromedriver, chromium: &Path, profile: &Path) -> WebDriver {
    let caps = capabilities(chromium, profile).expect("Chromium's capabilities");
    let connect = WebDriver::builder(chromedriver.url.as_str(), caps)
        .request_timeout(Duration::from_secs(30))
        .connect();
    let driver = match tokio::time::timeout(Duration::from_secs(30), connect).await {
        Ok(Ok(driver)) => driver,
        Ok(Err(e)) => panic!("start Chromium through chromedriver: {e}"),
        Err(_) => panic!("Chromium did not start within 30 s"),
    };
    let timeouts = TimeoutConfiguration::new(
        Some(Duration::from_secs(10)),
        Some(Duration::from_secs(15)),
        Some(Duration::ZERO),
    );
    driver
        .update_timeouts(timeouts)
        .await
        .expect("set the session's timeouts");
    driver
}

fn capabilities(chromium: &Path, profile: &Path) -> WebDriverResult<ChromeCapabilities> {
    let mut caps = DesiredCapabilities::chrome();
    caps.set_binary(&chromium.display().to_string())?;
    for flag in CHROMIUM_FLAGS {
        caps.add_arg(flag)?;
    }
    caps.add_arg(&format!("--user-data-dir={}", profile.display()))?;
    caps.set_browser_log_level(LoggingPrefsLogLevel::All)?;
    Ok(caps)
}

/// chromedriver (on `PATH`, or Debian's `/usr/bin/chromedriver`) and Chromium (on `PATH`, or
/// `/usr/bin/chromium`), or what is missing.
fn installed() -> Result<(PathBuf, PathBuf), String> {
    let chromedriver = program("chromedriver");
    let chromium = program("chromium");
    match (chromedriver, chromium) {
        (Some(driver), Some(browser)) => Ok((driver, browser)),
        (None, Some(_)) => Err("chromedriver not found (on PATH or /usr/bin)".into()),
        (Some(_), None) => Err("chromium not found (on PATH or /usr/bin)".into()),
        (None, None) => Err("chromium/chromedriver not found (on PATH or /usr/bin)".into()),
    }
}

fn program(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin")])
        .map(|dir| dir.join(name))
        .find(|file| {
            file.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// libtest runs each test on a thread named after it (`module::test`).
fn test_name() -> String {
    let thread = std::thread::current();
    let name = thread.name().filter(|n| *n != "main").unwrap_or("browser");
    name.replace("::", "-")
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' | '.' => c,
            _ => '_',
        })
        .collect()
}

/// The workspace's target directory: the nearest ancestor of this test binary
/// (`target/debug/deps/it-…`) that Cargo marked with `CACHEDIR.TAG`, else `CARGO_TARGET_DIR`.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    if let Some(dir) = exe
        .ancestors()
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
    {
        return dir.to_path_buf();
    }
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => exe
            .ancestors()
            .nth(3)
            .map(Path::to_path_buf)
            .expect("target/<profile>/deps/<binary>"),
    }
}

/// Fails the test unless `file` is a PNG image of `(width, height)` pixels.
pub fn assert_png(file: &Path, (width, height): (u32, u32)) {
    let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.get(12..16) == Some(b"IHDR"),
        "{} is not a PNG image",
        file.display()
    );
    let dimension = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    assert_eq!(
        (dimension(16), dimension(20)),
        (width, height),
        "the size of {}",
        file.display()
    );
}

/// The harness against pages of its own (`data:` URLs) that lead to the service.
mod harness {
    use base64::Engine as _;

    use super::{DESKTOP, assert_png, by_test};
    use crate::app;

    /// A page of the test's own, with `html` as its body.
    fn page(html: &str) -> String {
        let html = format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>harness</title></head><body>{html}</body></html>"
        );
        format!(
            "data:text/html;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(html)
        )
    }

    #[tokio::test]
    async fn waits_forms_and_links_reach_the_service() {
        let browser = browser!();
        let app = app!();
        let errors = app.url("/docs/errors");
        let start = page(&format!(
            "<ul><li data-test-item>one</li><li data-test-item>two</li></ul>\
             <p data-test-gone>loading</p>\
             <form data-test-search action=\"{errors}\" method=\"get\">\
               <label>Type <input name=\"type\" value=\"typed over\"></label>\
               <label>Note <input data-test-note name=\"note\"></label>\
               <button type=\"submit\">Look up</button></form>\
             <a data-test-catalogue href=\"{errors}#conflict\">the error catalogue</a>\
             <script>setTimeout(() => {{\
               document.querySelector('[data-test-gone]').remove();\
               document.body.insertAdjacentHTML('beforeend', '<p data-test-late>ready</p>');\
             }}, 300);</script>"
        ));

        browser.goto(&start).await;
        assert_eq!(browser.title().await, "harness");
        assert_eq!(browser.count(&by_test("item")).await, 2);
        assert_eq!(browser.text(&by_test("item")).await, "one");
        browser.wait_for_text(&by_test("late"), "ready").await;
        browser.wait_gone(&by_test("gone")).await;

        browser.fill(&by_test("note"), "filled").await;
        browser
            .submit_form(&by_test("search"), &[("type", "conflict")])
            .await;
        let answered = browser.wait_for_path("/docs/errors").await;
        assert_eq!(answered.query(), Some("type=conflict&note=filled"));
        browser.wait_for_text("h2", "idempotency_in_progress").await;
        assert_eq!(browser.current_url().await, answered);
        let shot = browser.screenshot().await;
        assert_png(&shot, DESKTOP);

        browser.goto(&start).await;
        browser.click(&by_test("catalogue")).await;
        browser.wait_for_path("/docs/errors").await;
        assert_eq!(
            browser.current_url().await.fragment(),
            Some("conflict"),
            "the link was followed"
        );
        let shot = browser.screenshot_as("catalogue").await;
        assert!(
            shot.ends_with(
                "browser-harness-waits_forms_and_links_reach_the_service--catalogue.png"
            )
        );
    }

    #[tokio::test]
    async fn errors_in_the_page_are_reported() {
        let browser = browser!();
        browser
            .goto(&page("<script>console.error('broken on purpose')</script>"))
            .await;
        let errors = browser.console_errors().await;
        assert!(
            errors.iter().any(|e| e.contains("broken on purpose")),
            "{errors:#?}"
        );
        assert!(
            browser.console_errors().await.is_empty(),
            "each call reports what is new"
        );
    }
}
