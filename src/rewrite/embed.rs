//! Embedding: a statement that has loops of its own beside a sibling loop
//! gets that loop's dimension too, fixed at one value, so that the
//! scheduler can give both the same hyperplane and tile the loops around
//! them together (Kelly and Pugh's unified iteration space; Pluto needs it
//! for loop nests whose statements sit at different depths).
//!
//! # Why
//!
//! Modified Gram-Schmidt, at step `k`:
//!
//! ```text
//! for k:
//!   for i: nrm += A[i][k] * A[i][k]            S1[k, i]
//!   for i: Q[i][k] = A[i][k] / R[k][k]         S3[k, i]
//!   for j in k+1..N:
//!     for i: R[k][j] += Q[i][k] * A[i][j]      S5[k, j, i]
//!     for i: A[i][j] -= Q[i][k] * R[k][j]      S6[k, j, i]
//! ```
//!
//! Column `j` takes the updates of the steps `k < j` in order, and column
//! `k` is normalized once the step before has updated it: in the loops
//! `(k, j)`, with `S1` and `S3` at `j = k` (the column they touch), every
//! dependence has non-negative distances, so `k` and `j` form a permutable
//! band and can be tiled together (several steps applied to a block of
//! columns while it stays in cache). But a Pluto-style scheduler asks
//! every new hyperplane to be linearly independent of a statement's rows
//! while the statement has fewer rows than iterators: after `φ0 = k`,
//! `S1[k, i]` must take `i`, which no legal hyperplane shared with `S5`'s
//! `j` can give. With a third iterator `e` and `e = k` in its domain,
//! `S1[k, i, e]` can take `φ1 = e` (independent of `k` as a row, equal to
//! it on the domain), and the band grows.
//!
//! # Which value
//!
//! Statement `S` (iterators `c` shared with the loop's statements, then
//! loops of its own) is embedded into the first loop `L` of a statement `T`
//! that it does not share, when `S` and `T` access an array at a subscript
//! that is `j + g` in `T` (`j` the iterator of `L`, `g` an affine form of
//! the shared iterators and the parameters) and `h` in `S` (of the shared
//! iterators and parameters too): then `e = h - g`, the iteration of `L`
//! whose cells line up with `S`'s (`A[i][k]` and `A[i][j]`: `e = k`).
//! Statements without loops of their own after the shared ones are never
//! embedded: after the shared loops' hyperplanes they have full rank and
//! may take any row already.
//!
//! # Exactness
//!
//! The new iterator is the last one, and the domain fixes it to an affine
//! form of the others with integer coefficients: every instance of the
//! statement has exactly one embedded point, with the same operation, the
//! same accesses (they do not use the new iterator) and the same original
//! schedule (which does not use it either). The dependences of the
//! embedded model are those of the original, instance for instance. The
//! new iterator belongs to no loop of the input (`Statement::loops` and
//! `Statement::iv_values` do not grow), so code generation computes its
//! value and uses it nowhere.

use crate::deps::shared_iters;
use crate::math::MathError;

use crate::scop::form::Form;
use crate::scop::model::{Scop, StmtId};

/// The embedding of one statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Embedding {
    /// The statement.
    pub stmt: StmtId,
    /// The statement it was aligned with (a statement of the loop).
    pub partner: StmtId,
    /// The name of the loop's iterator (in the partner).
    pub iter: String,
    /// The value of the new iterator, over the statement's parameters and
    /// shared iterators (no locals).
    pub value: Form,
}

impl Embedding {
    /// `S1 at j = k`, for remarks.
    pub fn describe(&self, scop: &Scop) -> String {
        let st = &scop.statements[self.stmt.0];
        format!(
            "{} at {} = {}",
            st.name,
            self.iter,
            crate::sched::form_text(&self.value, &scop.params, &st.iters)
        )
    }
}

/// Only the first `c` iterators and the parameters, no locals.
fn over_shared(f: &Form, c: usize) -> bool {
    f.iters.iter().skip(c).all(|&x| x == 0) && f.locals.iter().all(|&x| x == 0)
}

/// The embeddings of the statements of `scop` that have loops of their own
/// beside a loop of other statements, each at the iteration whose cells
/// line up with its own (see the module's documentation); at most one per
/// statement.
pub fn find(scop: &Scop) -> Vec<Embedding> {
    let sts = &scop.statements;
    let mut out = Vec::new();
    for (si, s) in sts.iter().enumerate() {
        let mut found = None;
        'partners: for (ti, t) in sts.iter().enumerate() {
            if si == ti {
                continue;
            }
            let c = shared_iters(s, t);
            // `s` must have loops of its own after the shared ones (else it
            // has full rank after their hyperplanes), and `t` a loop there.
            if s.loops.len() <= c || t.loops.len() <= c || s.iters.len() != s.loops.len() {
                continue;
            }
            for a in &s.accesses {
                for b in t.accesses.iter().filter(|b| b.array == a.array) {
                    if a.index.len() != b.index.len() {
                        continue;
                    }
                    for (h, f) in a.index.iter().zip(&b.index) {
                        // f = j + g, g over the shared iterators.
                        if f.iter_coef(c) != 1 || !f.iters.iter().skip(c + 1).all(|&x| x == 0) {
                            continue;
                        }
                        let mut g = f.clone();
                        g.iters.truncate(c);
                        if !over_shared(&g, c) || !over_shared(h, c) {
                            continue;
                        }
                        let Ok(value) = h.minus(&g) else { continue };
                        found = Some(Embedding {
                            stmt: StmtId(si),
                            partner: StmtId(ti),
                            iter: t.iters[c].clone(),
                            value,
                        });
                        break 'partners;
                    }
                }
            }
        }
        out.extend(found);
    }
    out
}

/// `scop` with each statement of `embs` given its new last iterator
/// (named after the loop's, with a `'`) and the domain constraint that
/// fixes it.
pub fn apply(scop: &Scop, embs: &[Embedding]) -> Result<Scop, MathError> {
    let mut out = scop.clone();
    for e in embs {
        let st = &mut out.statements[e.stmt.0];
        let k = st.iters.len();
        // new - value == 0
        let fix = Form::iter(k)
            .minus(&e.value)
            .map_err(|_| MathError::Overflow)?;
        for p in &mut st.domain {
            p.eqs.push(fix.clone());
        }
        st.iters.push(format!("{}'", e.iter));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_shared_rejects_inner_iterators_and_locals() {
        let k = Form::iter(0);
        assert!(over_shared(&k, 1));
        assert!(!over_shared(&Form::iter(1), 1));
        assert!(!over_shared(&Form::local(0), 1));
        assert!(over_shared(&Form::param(0).plus(&k).unwrap(), 1));
    }
}
