//! Operand layouts: a read-only array that a statement reads strided
//! along the loop its written cells are contiguous along is transposed
//! ahead of the SCoP, so that the statement reads it contiguously there.
//!
//! A register-blocked micro-kernel runs its vector loop along the written
//! array's stride-1 loop (its accumulators are then whole vectors) and
//! streams its operands along it. An operand strided along that loop is
//! gathered, lane by lane, in every block; the register-tile stages pack
//! such operands into contiguous panels where the blocks reduce over
//! loops of their band only (`codegen/tree/buffers.rs`, gemm with a
//! transposed operand), not where they reduce over loops after it (a
//! tensor contraction `C[a,b,c,d] += A[a,e,b,f]·B[f,d,e,c]`, whose `B`
//! is strided along `d`). Such an operand is copied once, before the SCoP,
//! into a buffer whose last dimension is the one the statement's
//! subscript along that loop indexes (`B'[f,e,c,d] = B[f,d,e,c]`), as
//! TTGT-style contraction codes and BLIS's panels do; the statement reads
//! the buffer.
//!
//! The copy computes nothing: the statement reads, cell for cell, the
//! values it read before (the buffer is the array with its dimensions in
//! another order), so results are bit-identical, and no dependence
//! changes (the array is read-only in the SCoP). The IR side (the buffer,
//! the copy, the rewritten accesses, and taking them back when the new
//! plan is not kept) is `passes/opt/layout.rs`.
//!
//! An array is transposed ([`candidates`]) when:
//!
//! * it has a static shape and rank two or more, and the SCoP reads it
//!   through exactly one access and never writes it;
//! * the reading statement's write has a last subscript of one iterator
//!   `w` (coefficient ±1): its cells are contiguous along `w`;
//! * the read's last subscript does not involve `w`, and exactly one other
//!   subscript does, as `±w` plus other variables' terms (that
//!   dimension moves last);
//! * the statement runs at least [`MIN_REUSE`] instances per cell of the
//!   array (over the box of its iterators' ranges), so that the copy, one
//!   pass over the array, is small beside the work that reads it; and the
//!   array has at most [`MAX_CELLS`] cells.

use crate::scop::form::Form;
use crate::scop::model::{AccessKind, ArrayId, Model};

/// Instances of the reading statement per cell of the array, at least.
pub const MIN_REUSE: i64 = 16;

/// Cells of a transposed array, at most (a heap buffer of that many
/// elements is allocated before the SCoP).
pub const MAX_CELLS: i64 = 1 << 26;

/// One array to transpose: the buffer's dimension `k` is the array's
/// dimension `order[k]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transpose {
    /// The array.
    pub array: ArrayId,
    /// The order of its dimensions in the buffer.
    pub order: Vec<usize>,
    /// Its static shape (in the array's order).
    pub shape: Vec<i64>,
}

impl Transpose {
    /// The buffer's shape.
    pub fn buffer_shape(&self) -> Vec<i64> {
        self.order.iter().map(|&k| self.shape[k]).collect()
    }
}

/// The arrays of `model` to transpose (see the module text); `shapes`:
/// each array's static shape, `None` where it has none.
pub fn candidates(model: &Model, shapes: &[Option<Vec<i64>>]) -> Vec<Transpose> {
    (0..model.arrays.len())
        .filter_map(|a| candidate(model, ArrayId(a), shapes.get(a)?.as_ref()?))
        .collect()
}

/// Array `a` of shape `shape`, if it is to be transposed.
fn candidate(model: &Model, a: ArrayId, shape: &[i64]) -> Option<Transpose> {
    let rank = shape.len();
    if rank < 2 || shape.iter().any(|&n| n < 1) {
        return None;
    }
    let cells = shape.iter().try_fold(1i64, |p, &n| p.checked_mul(n))?;
    if cells > MAX_CELLS {
        return None;
    }
    // Exactly one access to `a`, a read.
    let mut found = None;
    for (s, st) in model.statements.iter().enumerate() {
        for acc in st.accesses.iter().filter(|acc| acc.array == a) {
            if acc.kind != AccessKind::Read || found.is_some() {
                return None;
            }
            found = Some((s, acc));
        }
    }
    let (s, read) = found?;
    let st = &model.statements[s];
    let write = st.accesses.iter().find(|x| x.kind == AccessKind::Write)?;
    let (w, c) = write.index.last()?.single_iter()?;
    if c.abs() != 1 || read.index.len() != rank {
        return None;
    }
    let (last, rest) = read.index.split_last()?;
    if last.iter_coef(w) != 0 {
        return None;
    }
    let mut along = rest.iter().enumerate().filter(|(_, f)| f.iter_coef(w) != 0);
    let (p, f) = along.next()?;
    if along.next().is_some() || f.iter_coef(w).abs() != 1 {
        return None;
    }
    // Enough instances per cell (the box of the iterators' ranges).
    let mut instances: i64 = 1;
    for k in 0..st.iters.len() {
        let (lo, hi) = model.range_of(s, &Form::iter(k))?;
        instances = instances.checked_mul(hi.checked_sub(lo)?.checked_add(1)?.max(0))?;
    }
    if instances < MIN_REUSE.checked_mul(cells)? {
        return None;
    }
    let order: Vec<usize> = (0..rank).filter(|&k| k != p).chain([p]).collect();
    Some(Transpose {
        array: a,
        order,
        shape: shape.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::{candidates, Transpose, MIN_REUSE};
    use crate::scop::model::{ArrayId, Model};

    /// `C[a,b,c,d] += A[a,e,b,f]·B[f,d,e,c]` over a box of 8s and 4s.
    const CONTRACTION: &str = "
        domain: { S0[a, b, c, d, e, f] : 0 <= a < 8 and 0 <= b < 8 and 0 <= c < 8 and 0 <= d < 8 and 0 <= e < 4 and 0 <= f < 4 }
        schedule: { S0[a, b, c, d, e, f] -> [0, a, 0, b, 0, c, 0, d, 0, e, 0, f, 0] }
        writes: { S0[a, b, c, d, e, f] -> C[a, b, c, d] }
        reads: { S0[a, b, c, d, e, f] -> C[a, b, c, d]; S0[a, b, c, d, e, f] -> A[a, e, b, f]; S0[a, b, c, d, e, f] -> B[f, d, e, c] }
    ";

    /// `C[i][j] = f(reads)` over a 64x64x64 box; `reads` follows the
    /// first read's `S0[i, j, k] -> `.
    fn cube(reads: &str) -> Model {
        Model::parse(&format!(
            "
            domain: {{ S0[i, j, k] : 0 <= i < 64 and 0 <= j < 64 and 0 <= k < 64 }}
            schedule: {{ S0[i, j, k] -> [0, i, 0, j, 0, k, 0] }}
            writes: {{ S0[i, j, k] -> C[i, j] }}
            reads: {{ S0[i, j, k] -> {reads} }}
            "
        ))
        .expect("a model")
    }

    fn shapes(m: &Model, of: &[(&str, &[i64])]) -> Vec<Option<Vec<i64>>> {
        m.arrays
            .iter()
            .map(|a| {
                of.iter()
                    .find(|(n, _)| *n == a.name)
                    .map(|(_, s)| s.to_vec())
            })
            .collect()
    }

    #[test]
    fn the_operand_strided_along_the_written_rows_moves_that_dimension_last() {
        let m = Model::parse(CONTRACTION).expect("a model");
        let sh = shapes(
            &m,
            &[
                ("C", &[8, 8, 8, 8]),
                ("A", &[8, 4, 8, 4]),
                ("B", &[4, 8, 4, 8]),
            ],
        );
        let b = m.arrays.iter().position(|a| a.name == "B").expect("B");
        // B[f, d, e, c]: `d` (C's last subscript) is its dimension 1; A
        // does not involve `d`; C is written.
        assert_eq!(
            candidates(&m, &sh),
            vec![Transpose {
                array: ArrayId(b),
                order: vec![0, 2, 3, 1],
                shape: vec![4, 8, 4, 8],
            }]
        );
    }

    #[test]
    fn no_transpose_without_a_static_shape_or_enough_reuse() {
        let m = Model::parse(CONTRACTION).expect("a model");
        assert!(candidates(
            &m,
            &shapes(&m, &[("C", &[8, 8, 8, 8]), ("A", &[8, 4, 8, 4])])
        )
        .is_empty());
        // 16384 instances: B of more than 16384 / MIN_REUSE cells is not
        // read often enough.
        let big = 16384 / MIN_REUSE + 1;
        let sh = shapes(&m, &[("B", &[4, big, 4, 8])]);
        assert!(candidates(&m, &sh).is_empty());
    }

    #[test]
    fn contiguous_written_or_twice_read_operands_stay() {
        // gemm: B[k][j] is contiguous along j; A does not involve j.
        let gemm = cube("C[i, j]; S0[i, j, k] -> A[i, k]; S0[i, j, k] -> B[k, j]");
        let sh = shapes(
            &gemm,
            &[("A", &[64, 64]), ("B", &[64, 64]), ("C", &[64, 64])],
        );
        assert!(candidates(&gemm, &sh).is_empty());
        // syrk-like: A read twice (A[i][k], A[j][k]).
        let syrk = cube("C[i, j]; S0[i, j, k] -> A[i, k]; S0[i, j, k] -> A[j, k]");
        let sh = shapes(&syrk, &[("A", &[64, 64]), ("C", &[64, 64])]);
        assert!(candidates(&syrk, &sh).is_empty());
        // matmul with a transposed operand: B[j][k] is strided along j.
        let bt = cube("C[i, j]; S0[i, j, k] -> A[i, k]; S0[i, j, k] -> B[j, k]");
        let sh = shapes(&bt, &[("A", &[64, 64]), ("B", &[64, 64]), ("C", &[64, 64])]);
        let b = bt.arrays.iter().position(|a| a.name == "B").expect("B");
        assert_eq!(
            candidates(&bt, &sh),
            vec![Transpose {
                array: ArrayId(b),
                order: vec![1, 0],
                shape: vec![64, 64],
            }]
        );
    }
}
