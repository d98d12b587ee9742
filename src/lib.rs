//! # theboss
//!
//! Generated Rust bindings for the `theboss.v1` gRPC contract in `proto/`: messages, the
//! `GameService` client and server traits, and the file descriptor set for reflection.
//! The proto files are the contract; this crate only compiles them.
//!
//! The clients, the servers and their codec come with the `grpc` feature (on by default).
//! Without it the crate is the messages, their conversions and the record format alone, on
//! prost, with no network stack to compile: the Python kit's extension depends on it so.

#[cfg(feature = "grpc")]
pub mod codec;
pub mod convert;
pub mod encoded;
pub mod fairness;
pub mod record;

pub mod v1 {
    //! Package `theboss.v1`.
    #![allow(clippy::all, missing_docs)]
    include!(concat!(env!("OUT_DIR"), "/theboss.v1.rs"));
    #[cfg(feature = "grpc")]
    include!(concat!(env!("OUT_DIR"), "/servers/theboss.v1.rs"));
}

impl v1::WatchGameResponse {
    /// The view this message carries, if any: a snapshot's, or an update's (with
    /// `UPDATE_VIEWS_ACTION_COMPLETE`, only an action's last update has one).
    pub fn into_view(self) -> Option<v1::GameView> {
        match self.message? {
            v1::watch_game_response::Message::Snapshot(view) => Some(view),
            v1::watch_game_response::Message::Update(update) => update.view,
            v1::watch_game_response::Message::KeepAlive(_) => None,
        }
    }
}

/// The encoded `FileDescriptorSet` of every `theboss.v1` proto file, for gRPC reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/theboss_descriptor.bin"));

#[cfg(test)]
mod tests {
    use prost::Message;

    #[test]
    fn descriptor_set_names_the_service() {
        let fds = prost_types::FileDescriptorSet::decode(super::FILE_DESCRIPTOR_SET).unwrap();
        let services: Vec<String> = fds
            .file
            .iter()
            .flat_map(|f| f.service.iter())
            .filter_map(|s| s.name.clone())
            .collect();
        assert!(
            services.contains(&"GameService".to_string()),
            "{services:?}"
        );
    }

    #[test]
    fn city_numbers_match_the_character_cards() {
        use super::v1::{City, Location};
        assert_eq!(City::NewYork as i32, 1);
        assert_eq!(City::Philadelphia as i32, 7);
        assert_eq!(Location::Chicago as i32, 8);
    }
}
