//! Generated protocol types of every revision.
