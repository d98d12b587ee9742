//! The front end's pages on the service's own port: the right content types, hashed assets
//! kept a year and the page checked every load, a Content-Security-Policy without inline
//! scripts on every answer, a clear page when the front end is not built, and RPCs (gRPC
//! paths no service has included) answered as before.

use std::path::Path;

use theboss_server::Options;
use theboss_server::testing::TestServer;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// `GET path` over HTTP/1.1: the head (lower-cased) and the body.
async fn get(server: &TestServer, path: &str, headers: &str) -> (String, String) {
    send(server, "GET", path, headers).await
}

async fn send(server: &TestServer, method: &str, path: &str, headers: &str) -> (String, String) {
    let mut socket = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\n{headers}Connection: close\r\n\r\n"
    );
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    socket.read_to_end(&mut response).await.unwrap();
    let response = String::from_utf8_lossy(&response).to_string();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (head.to_lowercase(), body.to_string())
}

fn site(dir: &Path) {
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(
        dir.join("index.html"),
        "<!doctype html><script type=module src=/assets/app-0123.js></script>",
    )
    .unwrap();
    std::fs::write(dir.join("assets/app-0123.js"), "console.log(1)").unwrap();
    std::fs::write(dir.join("assets/app-0123.css"), "body{}").unwrap();
}

#[tokio::test]
async fn the_built_front_end_is_served_beside_the_rpcs() {
    let dir = tempfile::tempdir().unwrap();
    site(dir.path());
    let server = TestServer::sqlite_with(Options {
        web_dir: Some(dir.path().to_path_buf()),
        ..Options::default()
    })
    .await;

    let (head, body) = get(&server, "/", "").await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("content-type: text/html"), "{head}");
    assert!(head.contains("cache-control: no-cache"), "{head}");
    assert!(body.contains("/assets/app-0123.js"));
    let csp = head
        .lines()
        .find_map(|l| l.strip_prefix("content-security-policy: "))
        .expect("a Content-Security-Policy")
        .to_string();
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
    assert!(head.contains("x-content-type-options: nosniff"), "{head}");

    let (head, body) = get(&server, "/assets/app-0123.js", "").await;
    assert!(head.contains("content-type: text/javascript"), "{head}");
    assert!(
        head.contains("cache-control: public, max-age=31536000, immutable"),
        "{head}"
    );
    assert!(head.contains("content-security-policy:"), "{head}");
    assert_eq!(body, "console.log(1)");
    let (head, _) = get(&server, "/assets/app-0123.css", "").await;
    assert!(head.contains("content-type: text/css"), "{head}");

    // A page the app routes itself (or a mistyped link) gets the app; a missing asset does not.
    let (head, body) = get(&server, "/lobby", "").await;
    assert!(head.contains("content-type: text/html"), "{head}");
    assert!(body.contains("app-0123.js"));
    let (head, _) = get(&server, "/assets/app-missing.js", "").await;
    assert!(head.starts_with("http/1.1 404"), "{head}");
    // Nothing outside the directory.
    let (head, body) = get(&server, "/../Cargo.toml", "").await;
    assert!(!body.contains("[package]"), "{head}");

    // An RPC no service has is still UNIMPLEMENTED, not a page.
    let (head, body) = send(
        &server,
        "POST",
        "/theboss.v1.NoSuchService/Call",
        "Content-Type: application/grpc-web+proto\r\nX-Grpc-Web: 1\r\nContent-Length: 0\r\n",
    )
    .await;
    assert!(head.contains("grpc-status: 12"), "{head}\n{body}");
    server.stop().await;
}

#[tokio::test]
async fn without_a_built_front_end_the_page_says_how_to_build_it() {
    let server = TestServer::sqlite_with(Options {
        web_dir: Some("/nonexistent/web/dist".into()),
        ..Options::default()
    })
    .await;
    let (head, body) = get(&server, "/", "").await;
    assert!(head.starts_with("http/1.1 404"), "{head}");
    assert!(body.contains("npm run build"), "{body}");
    assert!(head.contains("content-security-policy:"), "{head}");
    server.stop().await;
}
