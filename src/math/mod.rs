//! Exact integer and rational math for polyhedral analysis: checked machine
//! integers, rationals, integer matrices, an exact simplex, integer
//! programming, named spaces, basic and union sets/maps with the usual
//! polyhedral operations, Fourier–Motzkin projection, and the isl text form.
//!
//! Invariants kept across the module: no arithmetic wraps (overflow is the
//! typed error [`MathError::Overflow`]); constraint rows are integer and
//! gcd-normalized; every answer is exact over the integers unless a type
//! says otherwise ([`Exactness`]); three-way outcomes use [`Optimum`].
//! The module has no dependency on MLIR.

pub mod budget;
pub mod constraint;
pub mod fm;
pub mod ilp;
pub mod int;
pub mod lexmin;
pub mod matrix;
pub mod memo;
pub mod parse;
pub mod print;
pub mod rational;
pub mod simplex;
pub mod space;
pub mod union;

pub use constraint::{BasicMap, BasicRel, BasicSet};
pub use ilp::System;
pub use int::{MathError, Result};
pub use rational::Rational;
pub use space::{DimKind, Space, Tuple};
pub use union::{Map, Set, UnionRel};

/// Outcome of an optimization: no feasible point, no finite optimum, or an optimum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Optimum<T> {
    /// The feasible set is empty.
    Empty,
    /// The objective is unbounded in the optimization direction.
    Unbounded,
    /// The optimum.
    Bounded(T),
}

impl<T> Optimum<T> {
    /// Returns the optimum, if bounded.
    pub fn bounded(self) -> Option<T> {
        match self {
            Optimum::Bounded(v) => Some(v),
            _ => None,
        }
    }

    /// Returns the outcome with the optimum mapped by `f`.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Optimum<U> {
        match self {
            Optimum::Empty => Optimum::Empty,
            Optimum::Unbounded => Optimum::Unbounded,
            Optimum::Bounded(v) => Optimum::Bounded(f(v)),
        }
    }
}

/// Whether a projection is exact over the integers or only a rational over-approximation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exactness {
    /// The result has exactly the projected integer points.
    Exact,
    /// The result may contain extra integer points (rational shadow).
    OverApprox,
}
