//! What the LPs over one context found: the minimum of each linear form
//! asked (by the form without its constant) and the optimal points. The
//! proofs of code generation ([`super::Gen`]'s `implies`: a loop's bounds
//! and guards, a tile's rows and columns) and of scalar replacement (a
//! register block's cells against a moving access) ask the same forms
//! again and again, differing only in their constants: one LP answers
//! them all, and a point found for one form refutes others without an LP.

use std::collections::HashMap;

use super::{Context, Row};
use crate::math::simplex::LpSolver;
use crate::math::{MathError, Optimum, Rational};

/// Optimal points kept per context for [`ContextMinima::exceeds`]'s quick
/// refutations.
const KEPT_POINTS: usize = 8;

/// The minima and optimal points of the LPs over one context. Every call
/// on one value must pass the same context (the cache does not look at it).
#[derive(Default)]
pub(crate) struct ContextMinima {
    /// Minimum over the context of each linear form asked, its constant
    /// zero.
    minima: HashMap<Row, Optimum<Rational>>,
    /// Optimal points found, each a rational point of the context.
    points: Vec<Vec<Rational>>,
    /// The context's simplex, past phase 1 once (built at the first LP):
    /// each form's LP starts from the basis the previous one ended at.
    solver: Option<LpSolver>,
}

impl ContextMinima {
    /// What a context that holds every row of `parent` (whose LPs `self`
    /// answered) starts from: a copy of the parent's simplex given the
    /// context's other rows (`LpSolver::add_ineq`, an equality as two
    /// opposite rows), instead of a phase 1 of its own. `None` when
    /// `parent` has no simplex yet or is not part of `context`, or when
    /// adding fails (the context then builds its own).
    pub(crate) fn grown(&self, parent: &Context, context: &Context) -> Option<ContextMinima> {
        let solver = self.solver.as_ref()?;
        let eqs = more_rows(&parent.0, &context.0)?;
        let ineqs = more_rows(&parent.1, &context.1)?;
        let mut solver = solver.clone();
        for row in ineqs {
            solver.add_ineq(row).ok()?;
        }
        for row in eqs {
            solver.add_ineq(row).ok()?;
            solver
                .add_ineq(&row.iter().map(|v| -v).collect::<Vec<_>>())
                .ok()?;
        }
        Some(ContextMinima {
            solver: Some(solver),
            ..Default::default()
        })
    }

    /// True when `row` (over `[vars | constant]`) is greater than `bound`
    /// at every rational point of the context `eqs == 0`, `ineqs >= 0`
    /// (true when the context is empty, false when the row is unbounded
    /// below on it). Exact.
    pub(crate) fn exceeds(
        &mut self,
        eqs: &[Row],
        ineqs: &[Row],
        row: &[i64],
        bound: i64,
    ) -> Result<bool, MathError> {
        let Some((&constant, linear)) = row.split_last() else {
            // No columns at all: the constant zero.
            return Ok(0 > bound);
        };
        let bound = Rational::from_int(bound);
        let holds = |min: &Optimum<Rational>| -> Result<bool, MathError> {
            Ok(match min {
                Optimum::Empty => true,
                Optimum::Unbounded => false,
                Optimum::Bounded(v) => v.add(&Rational::from_int(constant))? > bound,
            })
        };
        let key: Row = linear.iter().copied().chain([0]).collect();
        if let Some(min) = self.minima.get(&key) {
            return holds(min);
        }
        // A point of the context where the row is at most `bound` refutes
        // it: the minimum is no larger.
        for x in &self.points {
            let mut v = Rational::from_int(constant);
            for (a, xi) in linear.iter().zip(x) {
                if *a != 0 {
                    v = v.add(&Rational::from_int(*a).mul(xi)?)?;
                }
            }
            if v <= bound {
                return Ok(false);
            }
        }
        let min = self.minimum(eqs, ineqs, &key)?;
        holds(&min)
    }

    /// The minimum over the context of the linear form `key` (its constant
    /// zero): asked once per form, its optimal point kept for
    /// [`ContextMinima::exceeds`]'s refutations.
    pub(crate) fn minimum(
        &mut self,
        eqs: &[Row],
        ineqs: &[Row],
        key: &Row,
    ) -> Result<Optimum<Rational>, MathError> {
        if let Some(min) = self.minima.get(key) {
            return Ok(min.clone());
        }
        let n = key.len() - 1;
        let solver = match &mut self.solver {
            Some(solver) => solver,
            None => self.solver.insert(LpSolver::new(n, eqs, ineqs)?),
        };
        let (min, point) = match solver.min(key)? {
            Optimum::Empty => (Optimum::Empty, None),
            Optimum::Unbounded => (Optimum::Unbounded, None),
            Optimum::Bounded((v, x)) => (Optimum::Bounded(v), Some(x)),
        };
        self.minima.insert(key.clone(), min.clone());
        if let Some(x) = point {
            if self.points.len() < KEPT_POINTS {
                self.points.push(x);
            }
        }
        Ok(min)
    }
}

/// Whether `context` holds every row of `part` (both sorted and distinct).
pub(crate) fn contains(context: &Context, part: &Context) -> bool {
    more_rows(&part.0, &context.0).is_some() && more_rows(&part.1, &context.1).is_some()
}

/// The rows of `bigger` not in `smaller` (both sorted and distinct), or
/// `None` when `smaller` has a row `bigger` lacks.
fn more_rows<'a>(smaller: &[Row], bigger: &'a [Row]) -> Option<Vec<&'a Row>> {
    let mut more = Vec::new();
    let mut rest = smaller.iter().peekable();
    for row in bigger {
        match rest.peek() {
            Some(&s) if s == row => {
                rest.next();
            }
            Some(&s) if s < row => return None,
            _ => more.push(row),
        }
    }
    rest.next().is_none().then_some(more)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Context over [x, y | 1]: 0 <= x <= 4, 0 <= y <= x.
    fn triangle() -> (Vec<Row>, Vec<Row>) {
        (
            vec![],
            vec![vec![1, 0, 0], vec![-1, 0, 4], vec![0, 1, 0], vec![1, -1, 0]],
        )
    }

    #[test]
    fn answers_from_one_lp_per_linear_form() {
        let (eqs, ineqs) = triangle();
        let mut m = ContextMinima::default();
        // x - y >= 0 everywhere: x - y > -1 holds, x - y > 0 does not.
        assert!(m.exceeds(&eqs, &ineqs, &[1, -1, 0], -1).unwrap());
        assert!(!m.exceeds(&eqs, &ineqs, &[1, -1, 0], 0).unwrap());
        // x - y + 1 > 0 from the cached minimum, the constant moved.
        assert!(m.exceeds(&eqs, &ineqs, &[1, -1, 1], 0).unwrap());
        assert_eq!(m.minima.len(), 1);
        // -x has its minimum -4 at x = 4: -x + 4 > -1 holds, -x + 3 > 0 not.
        assert!(m.exceeds(&eqs, &ineqs, &[-1, 0, 4], -1).unwrap());
        assert!(!m.exceeds(&eqs, &ineqs, &[-1, 0, 3], 0).unwrap());
    }

    #[test]
    fn a_kept_point_refutes_without_an_lp() {
        let (eqs, ineqs) = triangle();
        let mut m = ContextMinima::default();
        // The LP for -x finds the point x = 4 (y anything in [0, 4]).
        assert!(!m.exceeds(&eqs, &ineqs, &[-1, 0, 0], 0).unwrap());
        assert_eq!(m.minima.len(), 1);
        // x <= 3 is refuted at that point: no new LP, no new minimum.
        assert!(!m.exceeds(&eqs, &ineqs, &[-1, 0, 3], -1).unwrap());
        assert_eq!(m.minima.len(), 1);
    }

    #[test]
    fn a_grown_context_answers_as_a_fresh_one() {
        let (eqs, ineqs) = triangle();
        let mut parent = ContextMinima::default();
        // No simplex before the first LP: nothing to grow from.
        let sorted = |mut v: Vec<Row>| {
            v.sort();
            v
        };
        let p: Context = (eqs.clone(), sorted(ineqs.clone()));
        assert!(parent.grown(&p, &p).is_none());
        assert!(!parent.exceeds(&eqs, &ineqs, &[-1, 0, 0], 0).unwrap());
        // The triangle cut by y >= 2, and by x + y = 5; not a superset:
        // the triangle without x <= 4.
        let cut = sorted([ineqs.clone(), vec![vec![0, 1, -2]]].concat());
        let on_line = (vec![vec![1, 1, -5]], p.1.clone());
        let other = (vec![], sorted(ineqs[..3].to_vec()));
        assert!(!contains(&other, &p) && contains(&(vec![], cut.clone()), &p));
        assert!(parent.grown(&p, &other).is_none());
        for child in [(vec![], cut), on_line] {
            let mut grown = parent.grown(&p, &child).expect("a superset");
            let mut fresh = ContextMinima::default();
            for form in [
                [1, 0, 0],
                [0, 1, 0],
                [-1, 0, 0],
                [0, -1, 0],
                [1, -1, 0],
                [-1, 1, 0],
            ] {
                let form = form.to_vec();
                assert_eq!(
                    grown.minimum(&child.0, &child.1, &form).unwrap(),
                    fresh.minimum(&child.0, &child.1, &form).unwrap()
                );
            }
        }
    }

    #[test]
    fn empty_and_unbounded_contexts() {
        let mut m = ContextMinima::default();
        // x >= 1 and x <= 0: empty, every row holds.
        let empty = vec![vec![1, -1], vec![-1, 0]];
        assert!(m.exceeds(&[], &empty, &[-1, -100], 0).unwrap());
        let mut m = ContextMinima::default();
        // x >= 0 only: -x is unbounded below.
        assert!(!m.exceeds(&[], &[vec![1, 0]], &[-1, 100], -1).unwrap());
    }
}
