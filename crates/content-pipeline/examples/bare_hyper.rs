//! The benchmark's baseline: a bare hyper server answering a fixed small JSON body, so the
//! API's figures can be read as a fraction of what the machine serves with no work at all.

use std::convert::Infallible;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// The same allocator as the service, so the ratio compares request handling only.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const BODY: &[u8] = br#"{"id":"run_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f","status":"queued"}"#;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:18090".into());
    let listener = TcpListener::bind(&addr).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::spawn(async move {
            let service = service_fn(|_req: Request<hyper::body::Incoming>| async {
                let mut res = Response::new(Full::new(Bytes::from_static(BODY)));
                res.headers_mut().insert(
                    "content-type",
                    hyper::header::HeaderValue::from_static("application/json"),
                );
                Ok::<_, Infallible>(res)
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
