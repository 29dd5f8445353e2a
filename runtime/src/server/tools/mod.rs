//! The tool table: a tool's handler seam and the generated dispatch
//! ([`tool`]), the table with its compiled validators ([`toolset`]), rate
//! limits ([`limits`]) and caught panics ([`catch`]).

pub(crate) mod catch;
pub(crate) mod limits;
pub(crate) mod tool;
pub(crate) mod toolset;
