//! # theboss-cli
//!
//! `boss`, the reference command-line client of The Boss: play against bots, join games,
//! list, watch and replay them. Every subcommand is a function over a session and an
//! output, in [`commands`] or, for challenges and tournaments, in [`arranged`]: the binary
//! (`src/main.rs`) only parses the command line and picks the function, and tests drive the
//! same code through an in-process server.
//!
//! - [`input`]: the turn grammar and its local checks; [`names`]: names and abbreviations;
//! - [`render`]: the table, the deduction panel and event lines, coloured or plain;
//! - [`play`]: the game loop (interactive, or scripted from stdin);
//! - [`arranged`]: challenges and tournaments.

pub mod arranged;
pub mod commands;
pub mod input;
pub mod names;
pub mod play;
pub mod render;
