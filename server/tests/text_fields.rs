//! Every string a request carries is one of three kinds (`text::REQUEST_STRINGS`): free text
//! others read, an id the service made, or an opaque token. This test reads the contract
//! itself (the protos' descriptors) and fails on a string field of a request that the list
//! does not classify, so that a field added later is checked the day it lands; then it sends
//! every free-text field, through the real gRPC interface, the same hostile texts, which each
//! must refuse with INVALID_ARGUMENT naming the field and the character.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;
use prost::Message;
use prost_types::field_descriptor_proto::Type;
use theboss::v1;
use theboss_server::testing::TestServer;
use theboss_server::text::{REQUEST_STRINGS, StringField};
use tonic::Code;
use tonic_types::StatusExt;

/// Every string field of every message that is, or is reachable from, an RPC's request.
fn request_string_fields() -> BTreeSet<String> {
    let set = prost_types::FileDescriptorSet::decode(theboss::FILE_DESCRIPTOR_SET).unwrap();
    let mut messages = BTreeMap::new();
    let mut inputs = Vec::new();
    for file in &set.file {
        let package = file.package();
        for message in &file.message_type {
            messages.insert(format!(".{package}.{}", message.name()), message.clone());
        }
        for service in &file.service {
            for method in &service.method {
                inputs.push(method.input_type().to_string());
            }
        }
    }
    let mut seen = BTreeSet::new();
    let mut strings = BTreeSet::new();
    while let Some(name) = inputs.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Some(message) = messages.get(&name) else {
            continue; // a well-known type (Timestamp)
        };
        for field in &message.field {
            match field.r#type() {
                Type::String => {
                    strings.insert(format!("{}.{}", &name[1..], field.name()));
                }
                Type::Message => inputs.push(field.type_name().to_string()),
                _ => {}
            }
        }
    }
    strings
}

#[test]
fn every_string_of_every_request_is_classified() {
    let listed: BTreeSet<String> = REQUEST_STRINGS
        .iter()
        .map(|(name, _)| name.to_string())
        .collect();
    let found = request_string_fields();
    let unlisted: Vec<_> = found.difference(&listed).collect();
    assert!(
        unlisted.is_empty(),
        "string fields of requests that text::REQUEST_STRINGS does not classify: {unlisted:?}"
    );
    let gone: Vec<_> = listed.difference(&found).collect();
    assert!(gone.is_empty(), "listed but not in the contract: {gone:?}");
}

/// Texts that must never be stored as free text, and the code point each refusal names.
const HOSTILE: [(&str, &str); 7] = [
    ("Bad\u{202E}drow", "U+202E"), // right-to-left override
    ("Ali\u{200B}ce", "U+200B"),   // zero-width space
    ("\u{2066}Isolated", "U+2066"),
    ("Al\u{0085}ice", "U+0085"),
    ("Bell\u{0007}", "U+0007"),
    ("Private\u{E000}", "U+E000"),
    ("Line\u{2028}break", "U+2028"),
];

/// Sends `text` in the free-text field `name` of its request.
async fn send(server: &TestServer, name: &str, text: &str) -> Result<(), tonic::Status> {
    let mut games = v1::game_service_client::GameServiceClient::new(server.channel().await);
    match name {
        "theboss.v1.RegisterRequest.display_name" => games
            .register(v1::RegisterRequest {
                display_name: text.into(),
                ..Default::default()
            })
            .await
            .map(|_| ()),
        "theboss.v1.RegisterRequest.description" => games
            .register(v1::RegisterRequest {
                display_name: "Described".into(),
                description: text.into(),
                ..Default::default()
            })
            .await
            .map(|_| ()),
        "theboss.v1.UpdateProfileRequest.description" => {
            let p = player(server, "Profile").await;
            p.game_client()
                .update_profile(p.request(v1::UpdateProfileRequest {
                    description: text.into(),
                }))
                .await
                .map(|_| ())
        }
        "theboss.v1.CreateTournamentRequest.name" => {
            let p = player(server, "Organiser").await;
            p.ladder_client()
                .create_tournament(p.request(v1::CreateTournamentRequest {
                    name: text.into(),
                    format: v1::TournamentFormat::RoundRobin as i32,
                    players: 2,
                    ..Default::default()
                }))
                .await
                .map(|_| ())
        }
        other => panic!("a free-text field this test cannot send yet: {other}; add it here"),
    }
}

#[tokio::test]
async fn every_free_text_field_refuses_the_same_texts_the_same_way() {
    let server = TestServer::sqlite().await;
    for (name, kind) in REQUEST_STRINGS {
        let StringField::FreeText(field) = kind else {
            continue;
        };
        send(&server, name, "Plain text")
            .await
            .unwrap_or_else(|e| panic!("{name}: plain text refused: {e:?}"));
        for (text, code) in HOSTILE {
            let refused = send(&server, name, text).await.unwrap_err();
            assert_eq!(refused.code(), Code::InvalidArgument, "{name}: {text:?}");
            let violation = &refused.get_details_bad_request().unwrap().field_violations[0];
            assert_eq!(violation.field, field.field, "{name}");
            assert!(refused.message().contains(code), "{name}: {refused:?}");
        }
        let long = "x".repeat(field.max_chars + 1);
        let refused = send(&server, name, &long).await.unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{name}: too long");
    }
    server.stop().await;
}
