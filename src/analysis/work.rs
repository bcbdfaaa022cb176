//! Statement instances as functions of the parameters: the box around each
//! statement's domain, per iterator the bounds its domain implies over the
//! parameters alone. The size test of a SCoP whose work only the run knows
//! counts with them (`passes/opt/profitability.rs`, `input_when_small`;
//! printed by `codegen/emit/size_test.rs`).

use crate::math::fm::project_rational;
use crate::scop::form::Form;
use crate::scop::model::Model;

/// A bound over the parameters alone: `row` over `[params | constant]`,
/// divided by `div` (a lower bound's ceiling, an upper bound's floor).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamBound {
    /// The expression.
    pub row: Vec<i64>,
    /// The positive divisor.
    pub div: i64,
}

/// The box around the instances of one statement (one piece of its
/// domain): per iterator, its lower and upper bounds (inclusive; from the
/// maximum of the lower bounds' ceilings to the minimum of the upper
/// bounds' floors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstanceBox {
    /// Per iterator: lower bounds, upper bounds.
    pub dims: Vec<(Vec<ParamBound>, Vec<ParamBound>)>,
}

/// Per statement and piece of its domain (empty pieces left out), the box
/// around its instances ([`InstanceBox`]). `None` when some iterator has no
/// bound over the parameters on one side (an unbounded loop) or the
/// projection overflows.
pub fn instance_boxes(scop: &Model) -> Option<Vec<InstanceBox>> {
    let np = scop.params.len();
    let mut out = Vec::new();
    for st in &scop.statements {
        let (ni, nl) = (st.iters.len(), st.locals.count);
        let rows =
            |fs: &[Form]| -> Vec<Vec<i64>> { fs.iter().map(|f| f.row(np, ni, nl)).collect() };
        'piece: for piece in &st.domain {
            let mut ineqs = rows(&piece.ineqs);
            ineqs.extend(rows(&st.locals.ineqs));
            let mut eqs = rows(&piece.eqs);
            eqs.extend(rows(&st.locals.eqs));
            let mut dims = Vec::with_capacity(ni);
            for j in 0..ni {
                let col = np + j;
                let others: Vec<usize> = (np..np + ni + nl).filter(|&c| c != col).collect();
                let shadow = project_rational(&eqs, &ineqs, &others).ok()?;
                if shadow.infeasible {
                    continue 'piece;
                }
                let (lower, upper) = param_bounds(&shadow.ineqs, &shadow.eqs, col, np)?;
                dims.push((lower, upper));
            }
            out.push(InstanceBox { dims });
        }
    }
    Some(out)
}

/// The bounds on column `col` of rows over `[params | iterators | locals |
/// constant]` whose other iterator and local columns are zero: lower
/// bounds (`col >= ceil(row / div)`) and upper bounds (`col <= floor(row /
/// div)`), rows over `[params | constant]`. `None` when a side has none.
fn param_bounds(
    ineqs: &[Vec<i64>],
    eqs: &[Vec<i64>],
    col: usize,
    np: usize,
) -> Option<(Vec<ParamBound>, Vec<ParamBound>)> {
    let (mut lower, mut upper) = (Vec::new(), Vec::new());
    // `a * x + f >= 0`: with a > 0, x >= -f / a; with a < 0, x <= f / -a.
    let mut take = |r: &[i64], lower_side: bool, upper_side: bool| {
        let a = r[col];
        let f: Vec<i64> = r[..np].iter().copied().chain(r.last().copied()).collect();
        if a > 0 && lower_side {
            lower.push(ParamBound {
                row: f.iter().map(|&c| -c).collect(),
                div: a,
            });
        } else if a < 0 && upper_side {
            upper.push(ParamBound { row: f, div: -a });
        }
    };
    for r in ineqs.iter().filter(|r| r[col] != 0) {
        take(r, true, true);
    }
    // `a * x + f == 0`: both `a * x + f >= 0` and `-a * x - f >= 0`.
    for r in eqs.iter().filter(|r| r[col] != 0) {
        let neg: Vec<i64> = r.iter().map(|&c| -c).collect();
        take(r, true, true);
        take(&neg, true, true);
    }
    (!lower.is_empty() && !upper.is_empty()).then_some((lower, upper))
}

#[cfg(test)]
mod tests {
    use super::instance_boxes;
    use super::ParamBound;
    use crate::scop::model::Model;

    fn bound(row: &[i64], div: i64) -> ParamBound {
        ParamBound {
            row: row.to_vec(),
            div,
        }
    }

    #[test]
    fn a_triangles_box_is_its_square() {
        // 0 <= j <= i < N: j's bounds over N alone are 0 and N - 1.
        let m = Model::parse(
            "domain: [N] -> { S0[i, j] : 0 <= i < N and 0 <= j <= i }
             schedule: [N] -> { S0[i, j] -> [0, i, 0, j, 0] }
             writes: [N] -> { S0[i, j] -> C[i, j] }
             reads: [N] -> { }",
        )
        .expect("a model");
        let boxes = instance_boxes(&m).expect("bounded");
        assert_eq!(boxes.len(), 1);
        let whole = (vec![bound(&[0, 0], 1)], vec![bound(&[1, -1], 1)]);
        assert_eq!(boxes[0].dims, vec![whole.clone(), whole]);
    }

    #[test]
    fn bounds_keep_their_divisors_and_each_parameter() {
        // 2 i <= N and M <= 3 j <= 3 M + 2: i from 0 to floor(N / 2), j
        // from ceil(M / 3) to M (the model's domain has the tightened
        // j <= M).
        let m = Model::parse(
            "domain: [N, M] -> { S0[i, j] : 0 <= i and 2 i <= N and M <= 3 j and 3 j <= 3 M + 2 }
             schedule: [N, M] -> { S0[i, j] -> [0, i, 0, j, 0] }
             writes: [N, M] -> { S0[i, j] -> C[i, j] }
             reads: [N, M] -> { }",
        )
        .expect("a model");
        let boxes = instance_boxes(&m).expect("bounded");
        assert_eq!(
            boxes[0].dims,
            vec![
                (vec![bound(&[0, 0, 0], 1)], vec![bound(&[1, 0, 0], 2)]),
                (vec![bound(&[0, 1, 0], 3)], vec![bound(&[0, 1, 0], 1)]),
            ]
        );
    }

    #[test]
    fn an_unbounded_loop_has_no_box() {
        let m = Model::parse(
            "domain: [N] -> { S0[i] : 0 <= i }
             schedule: [N] -> { S0[i] -> [0, i, 0] }
             writes: [N] -> { S0[i] -> x[i] }
             reads: [N] -> { }",
        )
        .expect("a model");
        assert_eq!(instance_boxes(&m), None);
    }

    #[test]
    fn a_statement_without_loops_has_a_box_without_widths() {
        let m = Model::parse(
            "domain: [N] -> { S0[]; S1[i] : 0 <= i < N }
             schedule: [N] -> { S0[] -> [0, 0, 0]; S1[i] -> [1, i, 0] }
             writes: [N] -> { S0[] -> x[0]; S1[i] -> x[i] }
             reads: [N] -> { }",
        )
        .expect("a model");
        let boxes = instance_boxes(&m).expect("bounded");
        assert_eq!(boxes.len(), 2);
        assert!(boxes[0].dims.is_empty());
        assert_eq!(
            boxes[1].dims,
            vec![(vec![bound(&[0, 0], 1)], vec![bound(&[1, -1], 1)])]
        );
    }
}
