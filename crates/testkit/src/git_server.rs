//! A real git server on loopback: smart HTTP served by `git http-backend`, run as CGI behind a
//! small axum host. Repositories are bare ones in a temp dir; commits get into them by a local
//! push ([`push_to_bare`]); over HTTP only where a test allows it ([`GitServer::allow_push`]).
//!
//! Switches for the tests of failures: basic auth ([`GitServer::require_basic_auth`]), a slow
//! server ([`GitServer::drip`]) and moved repositories ([`GitServer::redirect_moved_to`]).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdout, Command};
use tokio::task::JoinHandle;

/// A git server over HTTP on `127.0.0.1`, stopped when dropped.
pub struct GitServer {
    shared: Arc<Shared>,
    addr: SocketAddr,
    task: JoinHandle<()>,
    // Last, so that the repositories go after the server has stopped.
    _root: tempfile::TempDir,
}

/// What the request handler sees: where the repositories are, the switches, the log.
struct Shared {
    root: PathBuf,
    options: Mutex<Options>,
    log: Mutex<Log>,
    /// Run once when the next push begins (before the server advertises its refs).
    before_push: Mutex<Option<BeforePush>>,
}

type BeforePush = Box<dyn FnOnce() + Send>;

#[derive(Clone, Default)]
struct Options {
    /// `(user, password)` that every request must carry.
    basic_auth: Option<(String, String)>,
    drip: Option<u64>,
    /// Where `/moved/<rest>` is sent.
    moved_to: Option<String>,
}

#[derive(Default)]
struct Log {
    requests: Vec<String>,
    refused: usize,
}

impl GitServer {
    /// Starts on `127.0.0.1:0` in the current tokio runtime.
    pub async fn start() -> GitServer {
        let root = tempfile::tempdir().expect("a temp dir for the git server's repositories");
        let shared = Arc::new(Shared {
            root: root.path().to_path_buf(),
            options: Mutex::default(),
            log: Mutex::default(),
            before_push: Mutex::default(),
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the git server to 127.0.0.1:0");
        let addr = listener.local_addr().expect("the git server's address");
        let app = Router::new()
            .fallback(handle)
            .with_state(shared.clone())
            .into_make_service_with_connect_info::<SocketAddr>();
        let task = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, app).await {
                eprintln!("git server on {addr}: {e}");
            }
        });
        GitServer {
            shared,
            addr,
            task,
            _root: root,
        }
    }

    /// Basic auth required on every request from now on: missing or wrong credentials get
    /// `401` with `WWW-Authenticate: Basic realm="git"`.
    pub fn require_basic_auth(&self, user: &str, password: &str) {
        self.options().basic_auth = Some((user.to_owned(), password.to_owned()));
    }

    /// No auth required any more.
    pub fn allow_anonymous(&self) {
        self.options().basic_auth = None;
    }

    /// Response bodies are sent at about this many bytes per second (small chunks with sleeps
    /// between them); `None` = full speed. Applies to the requests that start afterwards.
    pub fn drip(&self, bytes_per_second: Option<u64>) {
        self.options().drip = bytes_per_second.map(|rate| rate.max(1));
    }

    /// Every request under `/moved/<rest>` is answered `301 Location: <target_base>/<rest>`,
    /// its query string kept. Auth, when required, is checked first.
    pub fn redirect_moved_to(&self, target_base: &str) {
        self.options().moved_to = Some(target_base.trim_end_matches('/').to_owned());
    }

    /// A new empty bare repository `<root>/<name>.git` (`name` may contain '/'), its HEAD on
    /// `main`; returns its path on disk. Clients may fetch any commit by id; pushes over HTTP
    /// are refused unless [`GitServer::allow_push`] says otherwise.
    pub fn create_bare(&self, name: &str) -> PathBuf {
        let path = self.shared.root.join(format!("{name}.git"));
        run_git(
            None,
            &[
                "init".as_ref(),
                "--bare".as_ref(),
                "--quiet".as_ref(),
                "--initial-branch=main".as_ref(),
                path.as_os_str(),
            ],
        );
        for (key, value) in [
            ("http.receivepack", "false"),
            ("uploadpack.allowReachableSHA1InWant", "true"),
            ("uploadpack.allowAnySHA1InWant", "true"),
        ] {
            run_git(
                Some(&path),
                &["config".as_ref(), key.as_ref(), value.as_ref()],
            );
        }
        path
    }

    /// Lets clients push to the bare repository at `bare` over HTTP (`http.receivepack`);
    /// with basic auth required, only the authenticated user can.
    pub fn allow_push(&self, bare: &Path) {
        run_git(
            Some(bare),
            &[
                "config".as_ref(),
                "http.receivepack".as_ref(),
                "true".as_ref(),
            ],
        );
    }

    /// Runs `action` when the next push starts, before the server tells the client where its
    /// branches are: what someone else pushing between a client's fetch and its push does.
    pub fn before_next_push(&self, action: impl FnOnce() + Send + 'static) {
        *self
            .shared
            .before_push
            .lock()
            .expect("git server hook lock") = Some(Box::new(action));
    }

    /// `http://127.0.0.1:<port>/<name>.git`
    pub fn url(&self, name: &str) -> String {
        format!("{}/{name}.git", self.base_url())
    }

    /// `http://127.0.0.1:<port>`
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Paths (with query) of the requests received so far, refused or not, in order.
    pub fn requests(&self) -> Vec<String> {
        self.log().requests.clone()
    }

    /// How many requests were refused `401` so far.
    pub fn refused(&self) -> usize {
        self.log().refused
    }

    fn options(&self) -> MutexGuard<'_, Options> {
        self.shared.options.lock().expect("git server options lock")
    }

    fn log(&self) -> MutexGuard<'_, Log> {
        self.shared.log.lock().expect("git server log lock")
    }
}

impl Drop for GitServer {
    fn drop(&mut self) {
        // Stops accepting; a connection still open ends with its client, and its CGI process
        // is killed when its response is dropped.
        self.task.abort();
    }
}

/// Pushes `refspec` (e.g. `"+refs/heads/main:refs/heads/main"` or `"+HEAD:refs/pull/7/head"`)
/// from the working repository at `from` straight into the bare repository at `bare`: a local
/// `git push --force`, no HTTP. Panics with git's stderr on failure.
pub fn push_to_bare(from: &Path, bare: &Path, refspec: &str) {
    run_git(
        Some(from),
        &[
            "push".as_ref(),
            "--quiet".as_ref(),
            "--force".as_ref(),
            bare.as_os_str(),
            refspec.as_ref(),
        ],
    );
}

/// Deletes the ref `name` (e.g. `"refs/pull/7/head"`) in the bare repository at `bare`.
pub fn delete_ref(bare: &Path, name: &str) {
    run_git(
        Some(bare),
        &["update-ref".as_ref(), "-d".as_ref(), name.as_ref()],
    );
}

/// Runs `git [-C dir] args…`; panics with its stderr when it fails.
fn run_git(dir: Option<&Path>, args: &[&std::ffi::OsStr]) {
    let mut command = std::process::Command::new("git");
    if let Some(dir) = dir {
        command.arg("-C").arg(dir);
    }
    let output = command
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .expect("run the `git` program");
    assert!(
        output.status.success(),
        "git {args:?} in {dir:?} failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Every request: logged, then auth, then the redirect of `/moved/`, then `git http-backend`.
async fn handle(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response {
    let path_and_query = request
        .uri()
        .path_and_query()
        .map_or_else(|| request.uri().path().to_owned(), ToString::to_string);
    shared
        .log
        .lock()
        .expect("git server log lock")
        .requests
        .push(path_and_query);
    let options = shared
        .options
        .lock()
        .expect("git server options lock")
        .clone();

    let mut remote_user = None;
    if let Some((user, password)) = &options.basic_auth {
        if basic_credentials(request.headers()).as_ref() != Some(&(user.clone(), password.clone()))
        {
            shared.log.lock().expect("git server log lock").refused += 1;
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, r#"Basic realm="git""#)],
                "authentication required\n",
            )
                .into_response();
        }
        remote_user = Some(user.clone());
    }

    let push_starts = request.uri().path().ends_with("/info/refs")
        && request.uri().query() == Some("service=git-receive-pack");
    if push_starts {
        let action = shared
            .before_push
            .lock()
            .expect("git server hook lock")
            .take();
        if let Some(action) = action {
            action();
        }
    }

    if let (Some(target), Some(rest)) = (
        &options.moved_to,
        request.uri().path().strip_prefix("/moved/"),
    ) {
        let query = request
            .uri()
            .query()
            .map(|q| format!("?{q}"))
            .unwrap_or_default();
        return (
            StatusCode::MOVED_PERMANENTLY,
            [(header::LOCATION, format!("{target}/{rest}{query}"))],
        )
            .into_response();
    }

    match cgi(&shared.root, request, peer, remote_user, options.drip).await {
        Ok(response) => response,
        Err(e) => {
            eprintln!("git server: git http-backend: {e}");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("git http-backend: {e}\n"),
            )
                .into_response()
        }
    }
}

/// The `(user, password)` of an `Authorization: Basic` header, if any.
fn basic_credentials(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = String::from_utf8(BASE64.decode(encoded.trim()).ok()?).ok()?;
    let (user, password) = decoded.split_once(':')?;
    Some((user.to_owned(), password.to_owned()))
}

/// Runs `git http-backend` as a CGI program for `request`; the response's body is streamed
/// from its stdout (dripped when asked).
async fn cgi(
    root: &Path,
    request: Request,
    peer: SocketAddr,
    remote_user: Option<String>,
    drip: Option<u64>,
) -> Result<Response, String> {
    let (parts, body) = request.into_parts();
    // Requests from git are small (ref negotiations); holding the body whole keeps it simple.
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .map_err(|e| format!("reading the request body: {e}"))?;

    let mut command = Command::new("git");
    command
        .arg("http-backend")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GIT_PROJECT_ROOT", root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("GATEWAY_INTERFACE", "CGI/1.1")
        .env("SERVER_PROTOCOL", "HTTP/1.1")
        .env("REQUEST_METHOD", parts.method.as_str())
        .env("PATH_INFO", parts.uri.path())
        .env("QUERY_STRING", parts.uri.query().unwrap_or(""))
        .env("REMOTE_ADDR", peer.ip().to_string())
        .env("CONTENT_LENGTH", body.len().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(user) = &remote_user {
        command.env("REMOTE_USER", user);
    }
    for (variable, name) in [
        ("CONTENT_TYPE", header::CONTENT_TYPE),
        // http-backend inflates gzip request bodies itself when told of them.
        ("HTTP_CONTENT_ENCODING", header::CONTENT_ENCODING),
        ("HTTP_GIT_PROTOCOL", HeaderName::from_static("git-protocol")),
    ] {
        if let Some(value) = parts.headers.get(&name).and_then(|v| v.to_str().ok()) {
            command.env(variable, value);
        }
    }

    let mut child = command.spawn().map_err(|e| format!("spawn: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let stderr = child.stderr.take().ok_or("no stderr")?;
    // The body goes in while the output comes out, so that neither pipe can fill up and stall.
    tokio::spawn(async move {
        // An error here is http-backend closing stdin early; its output tells why.
        let _ = stdin.write_all(&body).await;
    });
    tokio::spawn(forward_stderr(stderr));

    let mut stdout = BufReader::new(stdout);
    let mut status = StatusCode::OK;
    let mut headers = HeaderMap::new();
    loop {
        let mut line = String::new();
        let read = stdout
            .read_line(&mut line)
            .await
            .map_err(|e| format!("reading the CGI headers: {e}"))?;
        if read == 0 {
            let _ = child.wait().await;
            return Err("output ended before the end of the CGI headers".into());
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| format!("not a CGI header: {line:?}"))?;
        let value = value.trim();
        if name.eq_ignore_ascii_case("status") {
            let code = value.split_whitespace().next().unwrap_or_default();
            status = code
                .parse::<u16>()
                .ok()
                .and_then(|code| StatusCode::from_u16(code).ok())
                .ok_or_else(|| format!("bad CGI status: {value:?}"))?;
        } else {
            let name = HeaderName::from_bytes(name.trim().as_bytes())
                .map_err(|e| format!("bad CGI header name {name:?}: {e}"))?;
            let value = HeaderValue::from_str(value)
                .map_err(|e| format!("bad CGI header value {value:?}: {e}"))?;
            headers.append(name, value);
        }
    }

    let output = Output::new(stdout, child, drip);
    let mut response = Response::new(Body::from_stream(output.into_stream()));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    Ok(response)
}

/// The body part of http-backend's output, read in chunks; the process is killed if the
/// response is dropped before the end (`kill_on_drop`), and reaped at the end otherwise.
struct Output {
    stdout: BufReader<ChildStdout>,
    child: Child,
    chunk: usize,
    /// The sleep before each chunk, when dripping.
    pause: Option<Duration>,
}

impl Output {
    fn new(stdout: BufReader<ChildStdout>, child: Child, drip: Option<u64>) -> Self {
        let (chunk, pause) = match drip {
            None => (64 * 1024, None),
            // About 20 chunks a second.
            Some(rate) => {
                let chunk = (rate / 20).clamp(1, 64 * 1024);
                (
                    chunk as usize,
                    Some(Duration::from_secs_f64(chunk as f64 / rate as f64)),
                )
            }
        };
        Output {
            stdout,
            child,
            chunk,
            pause,
        }
    }

    fn into_stream(self) -> impl futures_util::Stream<Item = std::io::Result<Bytes>> + Send {
        futures_util::stream::unfold(Some(self), |state| async move {
            let mut output = state?;
            let mut buffer = vec![0; output.chunk];
            match output.stdout.read(&mut buffer).await {
                Ok(0) => {
                    let _ = output.child.wait().await;
                    None
                }
                Ok(read) => {
                    buffer.truncate(read);
                    if let Some(pause) = output.pause {
                        tokio::time::sleep(pause).await;
                    }
                    Some((Ok(Bytes::from(buffer)), Some(output)))
                }
                Err(e) => Some((Err(e), None)),
            }
        })
    }
}

/// Shows what http-backend says on stderr (why it refused a request, mostly).
async fn forward_stderr(mut stderr: impl AsyncRead + Unpin) {
    let mut text = String::new();
    if stderr.read_to_string(&mut text).await.is_ok() && !text.trim().is_empty() {
        eprintln!("git http-backend: {}", text.trim_end());
    }
}
