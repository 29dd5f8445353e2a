//! The generator's error type: what went wrong, where (file, JSON pointer,
//! line:column) and what to do about it.
//!
//! Every fallible operation of the library returns [`Error`]. Commands that
//! report many problems at once (`mcpgen manifest check`) collect them as a
//! list of [`Error`]s and print each on its own.

use std::fmt;
use std::path::PathBuf;

/// Where in an input a problem is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location {
    /// The file, when the input came from one.
    pub file: Option<PathBuf>,
    /// RFC 6901 JSON pointer into the document ("" is the whole document).
    pub pointer: Option<String>,
    /// 1-based line and column of the value the pointer names.
    pub line_col: Option<(usize, usize)>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut wrote = false;
        if let Some(file) = &self.file {
            write!(f, "{}", file.display())?;
            if let Some((line, col)) = self.line_col {
                write!(f, ":{line}:{col}")?;
            }
            wrote = true;
        } else if let Some((line, col)) = self.line_col {
            write!(f, "{line}:{col}")?;
            wrote = true;
        }
        if let Some(pointer) = &self.pointer {
            if wrote {
                f.write_str(" ")?;
            }
            let shown = if pointer.is_empty() { "/" } else { pointer.as_str() };
            write!(f, "at {shown}")?;
        }
        Ok(())
    }
}

/// A generator error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// What went wrong, one sentence.
    pub message: String,
    /// Where, when known.
    pub location: Option<Location>,
    /// What the user can do about it.
    pub hint: Option<String>,
}

impl Error {
    /// An error with a message and nothing else.
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into(), location: None, hint: None }
    }

    /// Names the file the problem is in.
    pub fn in_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.location.get_or_insert_with(Location::default).file = Some(file.into());
        self
    }

    /// Names the JSON pointer of the problem.
    pub fn at_pointer(mut self, pointer: impl Into<String>) -> Self {
        self.location.get_or_insert_with(Location::default).pointer = Some(pointer.into());
        self
    }

    /// Names the line and column of the problem (1-based).
    pub fn at_line_col(mut self, line: usize, column: usize) -> Self {
        self.location.get_or_insert_with(Location::default).line_col = Some((line, column));
        self
    }

    /// Adds advice on what to do.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// An I/O error on a path, with the path named.
    pub fn io(action: &str, path: &std::path::Path, err: std::io::Error) -> Self {
        Self::new(format!("cannot {action} {}: {err}", path.display()))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(loc) = &self.location {
            write!(f, "{loc}: ")?;
        }
        f.write_str(&self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  help: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Result alias of the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Escapes one reference token of a JSON pointer (RFC 6901).
pub fn pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
