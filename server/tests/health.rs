//! The server answers the standard health check and stops on its shutdown future.

use tokio::net::TcpListener;
use tonic::transport::Endpoint;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

#[tokio::test]
async fn serves_health_and_shuts_down_gracefully() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint =
        Endpoint::from_shared(format!("http://{}", listener.local_addr().unwrap())).unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(theboss_server::run(listener, async {
        let _ = stopped.await;
    }));
    let mut client = HealthClient::new(endpoint.connect().await.unwrap());
    let status = client
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .status;
    assert_eq!(status, ServingStatus::Serving as i32);
    drop(client);
    stop.send(()).unwrap();
    server.await.unwrap().unwrap();
    assert!(endpoint.connect().await.is_err(), "the listener is closed");
}
