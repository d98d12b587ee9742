//! Rebuilds the server when a migration is added or changed: sqlx's `migrate!` macro embeds the
//! `migrations/` directories at compile time, and cargo does not watch them otherwise (a new
//! migration was left out of a build that way).

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
