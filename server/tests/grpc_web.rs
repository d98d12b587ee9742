//! Browser front ends: a real gRPC-Web client from the web ecosystem (Connect's fetch-based
//! transport, `grpc_web/client.mjs`, run by Node.js) plays through the server on its usual
//! port, `WatchGame` stream included; and the CORS answers a browser asks for first.
//! Needs Node.js and npm (the test installs the client's locked packages once).

use std::path::{Path, PathBuf};
use std::process::Command;

use theboss_server::Options;
use theboss_server::testing::TestServer;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn client_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/grpc_web")
}

/// Installs the client's packages from its lockfile, unless they are there.
fn install_client() {
    let dir = client_dir();
    if dir.join("node_modules/@connectrpc/connect-web").exists() {
        return;
    }
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(&dir)
        .status()
        .expect("npm (Node.js) is needed to test gRPC-Web with a real browser client");
    assert!(status.success(), "npm ci in {}", dir.display());
}

#[tokio::test]
async fn a_grpc_web_client_plays_and_follows_a_game() {
    install_client();
    let server = TestServer::sqlite().await;
    let descriptors = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(descriptors.path(), theboss::FILE_DESCRIPTOR_SET).unwrap();
    let url = server.url();
    let path = descriptors.path().to_path_buf();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .arg("client.mjs")
            .arg(url)
            .arg(path)
            .current_dir(client_dir())
            .output()
            .expect("node (Node.js) runs the gRPC-Web client")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the gRPC-Web client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("a summary");
    assert_eq!(summary["players"], 2);
    assert_eq!(summary["snapshots"], 1, "the stream starts with a snapshot");
    assert_eq!(
        summary["hand"], 5,
        "the snapshot shows the first player its hand"
    );
    assert!(
        summary["updates"].as_u64().unwrap() >= 6,
        "an update per turn at least"
    );
    assert_eq!(
        summary["streamed_to"], summary["answered"],
        "the stream reached the last turn's seq"
    );
    assert_eq!(
        summary["refused"], "ABORTED",
        "a stale turn's code reaches the page"
    );
    server.stop().await;
}

/// A CORS preflight for `WatchGame` from `origin`: the response's head, lower-cased.
async fn preflight(server: &TestServer, origin: &str) -> String {
    let mut socket = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let request = format!(
        "OPTIONS /theboss.v1.GameService/WatchGame HTTP/1.1\r\nHost: localhost\r\n\
         Origin: {origin}\r\nAccess-Control-Request-Method: POST\r\n\
         Access-Control-Request-Headers: authorization,content-type,x-grpc-web\r\n\
         Connection: close\r\n\r\n"
    );
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    socket.read_to_string(&mut response).await.unwrap();
    response
        .split("\r\n\r\n")
        .next()
        .unwrap_or_default()
        .to_lowercase()
}

#[tokio::test]
async fn browsers_of_the_allowed_origins_may_call() {
    let open = TestServer::sqlite().await;
    let head = preflight(&open, "https://anywhere.example").await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("access-control-allow-origin: *"), "{head}");
    // Nothing in the answer depends on the caller then: no `Vary`, which caches would
    // otherwise key on.
    assert!(!head.contains("vary:"), "{head}");
    for header in ["authorization", "content-type", "x-grpc-web"] {
        assert!(head.contains(header), "{header} may be sent: {head}");
    }
    open.stop().await;

    let only = TestServer::sqlite_with(Options {
        cors_origins: vec!["https://play.example".into()],
        ..Options::default()
    })
    .await;
    let allowed = preflight(&only, "https://play.example").await;
    assert!(
        allowed.contains("access-control-allow-origin: https://play.example"),
        "{allowed}"
    );
    // The answer names the caller's origin: caches must key on it.
    assert!(allowed.contains("vary: origin"), "{allowed}");
    let other = preflight(&only, "https://elsewhere.example").await;
    assert!(!other.contains("access-control-allow-origin"), "{other}");
    only.stop().await;
}
