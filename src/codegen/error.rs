//! Why code generation does not rewrite a SCoP.

/// Why the SCoP is not rewritten.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmitError {
    /// The rewrite would break the IR, found before anything changes
    /// ([`crate::codegen::refuse`]): the SCoP is left as it is, with a
    /// remark saying why.
    #[error("{0}")]
    Refused(String),
    /// The IR could not be built as the tree says: a bug (the rewrite
    /// fails the pass).
    #[error("{0}")]
    Internal(String),
}

impl From<&str> for EmitError {
    fn from(why: &str) -> Self {
        EmitError::Internal(why.to_string())
    }
}

impl From<String> for EmitError {
    fn from(why: String) -> Self {
        EmitError::Internal(why)
    }
}
