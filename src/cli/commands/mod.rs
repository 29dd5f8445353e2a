//! The clap layer of each subcommand: its arguments, and the library call
//! that does the work.

pub(super) mod diff;
pub(super) mod generate;
pub(super) mod import;
pub(super) mod manifest;
pub(super) mod new;
pub(super) mod schema;
