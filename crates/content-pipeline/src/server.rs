//! The accept loop: HTTP/1.1 and h2c on hyper-util, with the bounds that keep idle or slow
//! clients from holding the server's sockets (issue 8).
//!
//! - At most `max_connections` connections are open at once. Past the cap the loop stops
//!   accepting, so new connections wait in the kernel's backlog, holding none of our file
//!   descriptors, and are taken in turn as soon as a slot frees.
//! - A request head (line and headers) must arrive within `header_timeout`, counted from the
//!   connection's start or from the first byte of the next request (slowloris).
//! - A connection with no request in flight and no new byte is closed after `idle_timeout`.
//! - A request head larger than `max_header_bytes` is refused (431 on HTTP/1.1).
//!
//! hyper has a single `header_read_timeout` that also runs while a keep-alive connection waits
//! for its next request, so it cannot tell the two timeouts apart: a watchdog per connection
//! does, from what the connection reads and which requests it is still answering.

use std::convert::Infallible;
use std::io;
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::time::Instant;
use tower::ServiceExt as _;

/// How long and how many: see the module documentation.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
    pub max_header_bytes: usize,
}

/// hyper refuses a smaller read buffer for HTTP/1.1.
pub const MIN_HEADER_BYTES: usize = 8192;

/// Serves `router` on `listener` until `shutdown` resolves, then stops accepting and waits for
/// the open connections to finish the requests in flight (HTTP/1.1 closes once idle, HTTP/2
/// sends GOAWAY), as `axum::serve(…).with_graceful_shutdown(…)` did; a connection waiting for
/// a request head, even halfway through one, is closed at once.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .max_buf_size(limits.max_header_bytes.max(MIN_HEADER_BYTES));
    builder
        .http2()
        .max_header_list_size(u32::try_from(limits.max_header_bytes).unwrap_or(u32::MAX));
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let (stop, stopping) = watch::channel(false);
    let mut shutdown = pin!(shutdown);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = accept(&listener) => accepted,
            () = &mut shutdown => break,
        };
        let activity = Arc::new(Activity::new());
        let io = TokioIo::new(Watched {
            stream,
            activity: activity.clone(),
        });
        // Tells the watchdog when each request starts and when its response has been sent
        // (or abandoned).
        let service = {
            let (router, activity) = (router.clone(), activity.clone());
            TowerToHyperService::new(tower::service_fn(move |req: Request<Incoming>| {
                let in_flight = InFlight::start(&activity);
                let mut req = req.map(Body::new);
                // The client's address, as `axum::serve` gives it (sign-in throttling).
                req.extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                let response = router.clone().oneshot(req);
                async move {
                    let response: Response = response.await?;
                    Ok::<_, Infallible>(response.map(|body| {
                        Body::new(Tracked {
                            body,
                            _in_flight: in_flight,
                        })
                    }))
                }
            }))
        };
        let connection = builder.serve_connection(io, service).into_owned();
        let connection = graceful.watch(connection);
        let stopping = stopping.clone();
        tokio::spawn(async move {
            tokio::select! {
                served = connection => {
                    if let Err(e) = served {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                }
                () = activity.expired(limits, stopping) => {
                    tracing::debug!("closed a connection that was idle or slow to send its request");
                }
            }
            drop(slot);
        });
    }
    drop(listener);
    stop.send_replace(true);
    graceful.shutdown().await;
}

/// The next connection. Errors that concern one connection are skipped; others (such as
/// running out of file descriptors) are logged and retried after a pause, as axum does.
async fn accept(listener: &TcpListener) -> (TcpStream, std::net::SocketAddr) {
    loop {
        match listener.accept().await {
            Ok(accepted) => return accepted,
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                tracing::error!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Where a connection stands, for its watchdog.
#[derive(Clone, Copy, Debug)]
enum Phase {
    /// Waiting for a request head to complete since `since`: the connection's start or the
    /// first byte after the last response.
    AwaitingHead { since: Instant },
    /// No request in flight and nothing received since `since`.
    Idle { since: Instant },
    /// Requests being answered (several on HTTP/2): no timeout of ours applies.
    Busy { requests: usize },
}

/// What the watchdog reads. Phase changes do not wake it: a wake-up per change would cost every
/// request a task switch, and on a multi-threaded runtime a thread woken for nothing. It wakes
/// at the deadline of the phase it last saw, or after `recheck` at the latest, and reads the
/// phase again; since each phase starts its clock when it begins, no deadline is missed.
struct Activity {
    phase: Mutex<Phase>,
}

impl Activity {
    fn new() -> Self {
        Self {
            phase: Mutex::new(Phase::AwaitingHead {
                since: Instant::now(),
            }),
        }
    }

    fn update(&self, change: impl FnOnce(Phase) -> Phase) {
        let mut phase = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
        *phase = change(*phase);
    }

    /// Bytes arrived: on an idle connection they start the next request's head.
    fn received(&self) {
        let mut phase = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
        if let Phase::Idle { .. } = *phase {
            *phase = Phase::AwaitingHead {
                since: Instant::now(),
            };
        }
    }

    /// Resolves when the connection has been idle or slow for too long, or is waiting for a
    /// request head while the server stops. (Idle connections are hyper's to close then: it
    /// does so once the last response has been flushed.)
    ///
    /// It never sleeps longer than the shorter of the two timeouts, so a phase that began
    /// while it slept is seen before that phase's own deadline.
    async fn expired(&self, limits: ConnectionLimits, mut stopping: watch::Receiver<bool>) {
        let recheck = limits.header_timeout.min(limits.idle_timeout);
        loop {
            let phase = *self.phase.lock().unwrap_or_else(PoisonError::into_inner);
            let draining = *stopping.borrow_and_update();
            let deadline = match phase {
                Phase::AwaitingHead { .. } if draining => return,
                Phase::AwaitingHead { since } => Some(since + limits.header_timeout),
                Phase::Idle { since } => Some(since + limits.idle_timeout),
                Phase::Busy { .. } => None,
            };
            let now = Instant::now();
            if deadline.is_some_and(|d| d <= now) {
                return;
            }
            let wake = deadline.map_or(now + recheck, |d| d.min(now + recheck));
            tokio::select! {
                () = tokio::time::sleep_until(wake) => {}
                _ = stopping.changed(), if !draining => {}
            }
        }
    }
}

/// One request in flight, from its complete head until its response body is dropped.
struct InFlight(Arc<Activity>);

impl InFlight {
    fn start(activity: &Arc<Activity>) -> Self {
        activity.update(|phase| match phase {
            Phase::Busy { requests } => Phase::Busy {
                requests: requests + 1,
            },
            _ => Phase::Busy { requests: 1 },
        });
        Self(activity.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.update(|phase| match phase {
            Phase::Busy { requests } if requests > 1 => Phase::Busy {
                requests: requests - 1,
            },
            _ => Phase::Idle {
                since: Instant::now(),
            },
        });
    }
}

/// A response body that keeps its request in flight until hyper has sent or dropped it.
struct Tracked {
    body: Body,
    _in_flight: InFlight,
}

impl http_body::Body for Tracked {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The socket, noting each read that brings bytes.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            this.activity.received();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// Raises this process's soft limit of open files to its hard limit, so that the connection
/// cap, not the default soft limit (often 1024), is what bounds connections. Returns the limit.
pub fn raise_open_files_limit() -> io::Result<u64> {
    rlimit::increase_nofile_limit(u64::MAX)
}
