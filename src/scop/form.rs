//! Affine forms over a statement's variables, and their construction from
//! MLIR affine expressions.
//!
//! A [`Form`] is `Σ p_k·param_k + Σ c_k·iter_k + Σ l_k·local_k + constant`
//! with exact (checked) 64-bit coefficients. Locals are existential integer
//! variables introduced for `floordiv`, `ceildiv`, `mod` and loop strides;
//! each local comes with the constraints that define it, kept in a
//! [`Locals`] table shared by everything built for one statement:
//!
//! ```text
//! q = e floordiv c  (c > 0)   ⇔   c·q <= e <= c·q + c - 1
//! q = e ceildiv c   (c > 0)   ⇔   c·q - c + 1 <= e <= c·q
//! e mod c           (c > 0)   =   e - c·(e floordiv c)
//! ```
//!
//! Example: `(d0 + 3) floordiv 4` with `d0 = i` gives a local `q0` with
//! `4·q0 <= i + 3 <= 4·q0 + 3` and the form `q0`. Division or modulo by a
//! non-constant, and products of two non-constant forms, are not affine: the
//! constructor returns [`FormError::NotAffine`].

use thiserror::Error;

use crate::ffi::ir::{Expr, ExprKind};
use crate::math::BasicRel;

/// Why a form cannot be built.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum FormError {
    /// The expression is not affine (user input outside the model).
    #[error("not affine: {0}")]
    NotAffine(&'static str),
    /// A coefficient does not fit in 64 bits (limit).
    #[error("coefficient overflow")]
    Overflow,
}

type Res<T> = Result<T, FormError>;

fn add(a: i64, b: i64) -> Res<i64> {
    a.checked_add(b).ok_or(FormError::Overflow)
}

fn mul(a: i64, b: i64) -> Res<i64> {
    a.checked_mul(b).ok_or(FormError::Overflow)
}

/// An affine form over parameters, iterators and locals.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Form {
    /// Coefficients of the parameters (may be shorter than the parameter count).
    pub params: Vec<i64>,
    /// Coefficients of the iterators.
    pub iters: Vec<i64>,
    /// Coefficients of the locals.
    pub locals: Vec<i64>,
    /// The constant term.
    pub constant: i64,
}

fn add_vec(a: &[i64], b: &[i64], scale: i64) -> Res<Vec<i64>> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|k| {
            add(
                a.get(k).copied().unwrap_or(0),
                mul(b.get(k).copied().unwrap_or(0), scale)?,
            )
        })
        .collect()
}

impl Form {
    /// The constant form `c`.
    pub fn constant(c: i64) -> Form {
        Form {
            constant: c,
            ..Form::default()
        }
    }

    /// The form `param_k`.
    pub fn param(k: usize) -> Form {
        let mut params = vec![0; k + 1];
        params[k] = 1;
        Form {
            params,
            ..Form::default()
        }
    }

    /// The form `iter_k`.
    pub fn iter(k: usize) -> Form {
        let mut iters = vec![0; k + 1];
        iters[k] = 1;
        Form {
            iters,
            ..Form::default()
        }
    }

    /// The form `local_k`.
    pub fn local(k: usize) -> Form {
        let mut locals = vec![0; k + 1];
        locals[k] = 1;
        Form {
            locals,
            ..Form::default()
        }
    }

    /// Returns `self + scale·o`.
    pub fn add_scaled(&self, o: &Form, scale: i64) -> Res<Form> {
        Ok(Form {
            params: add_vec(&self.params, &o.params, scale)?,
            iters: add_vec(&self.iters, &o.iters, scale)?,
            locals: add_vec(&self.locals, &o.locals, scale)?,
            constant: add(self.constant, mul(o.constant, scale)?)?,
        })
    }

    /// Returns `self + o`.
    pub fn plus(&self, o: &Form) -> Res<Form> {
        self.add_scaled(o, 1)
    }

    /// Returns `self - o`.
    pub fn minus(&self, o: &Form) -> Res<Form> {
        self.add_scaled(o, -1)
    }

    /// Returns `c·self`.
    pub fn scale(&self, c: i64) -> Res<Form> {
        Form::default().add_scaled(self, c)
    }

    /// The coefficient of iterator `i` (zero past the stored ones).
    pub fn iter_coef(&self, i: usize) -> i64 {
        self.iters.get(i).copied().unwrap_or(0)
    }

    /// The iterator and its coefficient when the form mentions exactly one
    /// iterator (whatever its parameters, locals and constant).
    pub fn single_iter(&self) -> Option<(usize, i64)> {
        let mut nz = self.iters.iter().enumerate().filter(|(_, &c)| c != 0);
        match (nz.next(), nz.next()) {
            (Some((i, &c)), None) => Some((i, c)),
            _ => None,
        }
    }

    /// The constant value when the form has no variables.
    pub fn as_constant(&self) -> Option<i64> {
        let zero = |v: &[i64]| v.iter().all(|&c| c == 0);
        (zero(&self.params) && zero(&self.iters) && zero(&self.locals)).then_some(self.constant)
    }

    /// The row `[params(np) | iters(ni) | locals(nl) | constant]`.
    pub fn row(&self, np: usize, ni: usize, nl: usize) -> Vec<i64> {
        let mut r = vec![0; np + ni + nl + 1];
        let put = |r: &mut Vec<i64>, off: usize, v: &[i64]| {
            for (k, &c) in v.iter().enumerate() {
                r[off + k] = c;
            }
        };
        put(&mut r, 0, &self.params);
        put(&mut r, np, &self.iters);
        put(&mut r, np + ni, &self.locals);
        r[np + ni + nl] = self.constant;
        r
    }
}

/// The locals of one statement and their defining constraints (each a form
/// that is `>= 0`, or `== 0` for equalities).
#[derive(Debug, Clone, Default)]
pub struct Locals {
    /// Number of locals.
    pub count: usize,
    /// Inequalities `form >= 0`.
    pub ineqs: Vec<Form>,
    /// Equalities `form == 0`.
    pub eqs: Vec<Form>,
    /// Memo of divisions already introduced: (dividend, divisor, floor?) → local.
    divs: Vec<(Form, i64, bool, usize)>,
}

impl Locals {
    /// Adds a fresh local and returns its index.
    pub fn fresh(&mut self) -> usize {
        self.count += 1;
        self.count - 1
    }

    /// The local `q = e floordiv c` (or `ceildiv` when `floor` is false), for
    /// `c > 0`; reuses an identical division.
    pub fn div(&mut self, e: &Form, c: i64, floor: bool) -> Res<Form> {
        if c <= 0 {
            return Err(FormError::NotAffine("division by a non-positive constant"));
        }
        if let Some(k) = e.as_constant() {
            let q = if floor {
                k.div_euclid(c)
            } else {
                -((-k).div_euclid(c))
            };
            return Ok(Form::constant(q));
        }
        if let Some(&(_, _, _, q)) = self
            .divs
            .iter()
            .find(|(f, d, fl, _)| f == e && *d == c && *fl == floor)
        {
            return Ok(Form::local(q));
        }
        let q = self.fresh();
        let cq = Form::local(q).scale(c)?;
        if floor {
            // e - c·q >= 0  and  c·q + c - 1 - e >= 0
            self.ineqs.push(e.minus(&cq)?);
            self.ineqs.push(cq.plus(&Form::constant(c - 1))?.minus(e)?);
        } else {
            // c·q - e >= 0  and  e - c·q + c - 1 >= 0
            self.ineqs.push(cq.minus(e)?);
            self.ineqs.push(e.minus(&cq)?.plus(&Form::constant(c - 1))?);
        }
        self.divs.push((e.clone(), c, floor, q));
        Ok(Form::local(q))
    }
}

/// Builds the form of an affine expression whose dims and symbols are the
/// given forms (`dims[k]` for `d<k>`, `syms[k]` for `s<k>`).
pub fn from_expr(e: Expr, dims: &[Form], syms: &[Form], locals: &mut Locals) -> Res<Form> {
    match e.kind() {
        ExprKind::Dim(k) => dims
            .get(k)
            .cloned()
            .ok_or(FormError::NotAffine("dimension out of range")),
        ExprKind::Symbol(k) => syms
            .get(k)
            .cloned()
            .ok_or(FormError::NotAffine("symbol out of range")),
        ExprKind::Constant(c) => Ok(Form::constant(c)),
        ExprKind::Add(l, r) => {
            from_expr(l, dims, syms, locals)?.plus(&from_expr(r, dims, syms, locals)?)
        }
        ExprKind::Mul(l, r) => {
            let (a, b) = (
                from_expr(l, dims, syms, locals)?,
                from_expr(r, dims, syms, locals)?,
            );
            match (a.as_constant(), b.as_constant()) {
                (Some(c), _) => b.scale(c),
                (_, Some(c)) => a.scale(c),
                _ => Err(FormError::NotAffine("product of two variables")),
            }
        }
        ExprKind::FloorDiv(l, r) | ExprKind::CeilDiv(l, r) | ExprKind::Mod(l, r) => {
            let a = from_expr(l, dims, syms, locals)?;
            let c = from_expr(r, dims, syms, locals)?
                .as_constant()
                .ok_or(FormError::NotAffine("division by a variable"))?;
            match e.kind() {
                ExprKind::FloorDiv(..) => locals.div(&a, c, true),
                ExprKind::CeilDiv(..) => locals.div(&a, c, false),
                _ => {
                    let q = locals.div(&a, c, true)?;
                    a.minus(&q.scale(c)?)
                }
            }
        }
    }
}

/// Why a relation is not a map of affine forms ([`forms_of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapFormError {
    /// It has conditions besides the outputs' definitions (a piecewise
    /// map).
    Conditions,
    /// An output is not a function of the inputs.
    NotAFunction,
    /// Output `k` is undefined.
    Undefined(usize),
}

/// Reads the outputs of a parsed map piece (one statement's schedule, an
/// access) as affine forms of its inputs.
///
/// An output dimension defined by an equality with coefficient ±1 becomes
/// the affine form of that equality; any other output dimension (e.g.
/// `floor(t / 8)`, which the parser writes as `8·o <= t <= 8·o + 7`) becomes a
/// local of its own. The remaining constraints must each involve a local:
/// they define the locals. A constraint on the iterators alone would make
/// the schedule piecewise, which is refused.
pub fn forms_of(piece: &BasicRel) -> Result<(Vec<Form>, Locals), MapFormError> {
    let sp = piece.space();
    let (np, ni, no, nl) = (sp.n_param(), sp.n_in(), sp.n_out(), piece.n_local());
    let piecewise = || MapFormError::Conditions;
    // Defining equality of each output, if any.
    let defining: Vec<Option<usize>> = (0..no)
        .map(|k| {
            piece.eqs().iter().position(|r| {
                r[np + ni + k].abs() == 1 && (0..no).all(|o| o == k || r[np + ni + o] == 0)
            })
        })
        .collect();
    // Outputs without one become extra locals nl, nl+1, ...
    let mut extra = vec![None; no];
    let mut count = nl;
    for k in 0..no {
        if defining[k].is_none() {
            extra[k] = Some(count);
            count += 1;
        }
    }
    // A row as a form over (params, iters, locals ++ extra locals), scaled.
    let form = |r: &[i64], sign: i64| -> Result<Form, MapFormError> {
        let mut locals = vec![0i64; count];
        for (l, c) in r[np + ni + no..np + ni + no + nl].iter().enumerate() {
            locals[l] = c * sign;
        }
        for k in 0..no {
            if let Some(l) = extra[k] {
                locals[l] = r[np + ni + k] * sign;
            } else if r[np + ni + k] != 0 {
                return Err(MapFormError::NotAFunction);
            }
        }
        Ok(Form {
            params: r[..np].iter().map(|&c| c * sign).collect(),
            iters: r[np..np + ni].iter().map(|&c| c * sign).collect(),
            locals,
            constant: r[r.len() - 1] * sign,
        })
    };
    let mut dims = Vec::new();
    for k in 0..no {
        match (defining[k], extra[k]) {
            (Some(e), _) => {
                let row = &piece.eqs()[e];
                // r[col]·o_k + rest = 0  ⇒  o_k = -rest / r[col]
                let mut rest = row.clone();
                let sign = -rest[np + ni + k];
                rest[np + ni + k] = 0;
                dims.push(form(&rest, sign)?);
            }
            (None, Some(l)) => dims.push(Form::local(l)),
            _ => return Err(MapFormError::Undefined(k)),
        }
    }
    let mut locals = Locals {
        count,
        ..Locals::default()
    };
    for (e, r) in piece.eqs().iter().enumerate() {
        if defining.contains(&Some(e)) {
            continue;
        }
        let f = form(r, 1)?;
        if f.locals.iter().all(|&c| c == 0) {
            return Err(piecewise());
        }
        locals.eqs.push(f);
    }
    for r in piece.ineqs() {
        let f = form(r, 1)?;
        if f.locals.iter().all(|&c| c == 0) {
            return Err(piecewise());
        }
        locals.ineqs.push(f);
    }
    Ok((dims, locals))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_add_scale_and_lay_out_rows() {
        let f = Form::iter(1)
            .scale(3)
            .unwrap()
            .plus(&Form::param(0))
            .unwrap()
            .plus(&Form::constant(-2))
            .unwrap();
        // params [1], iters [0, 3], no locals, constant -2
        assert_eq!(f.row(2, 2, 1), vec![1, 0, 0, 3, 0, -2]);
        assert_eq!(Form::constant(5).as_constant(), Some(5));
        assert_eq!(f.as_constant(), None);
    }

    #[test]
    fn overflow_is_an_error() {
        let big = Form::constant(i64::MAX);
        assert_eq!(big.plus(&Form::constant(1)), Err(FormError::Overflow));
        assert_eq!(
            Form::iter(0).scale(i64::MAX).unwrap().scale(2),
            Err(FormError::Overflow)
        );
    }

    #[test]
    fn floor_division_defines_a_local_with_two_bounds() {
        let mut l = Locals::default();
        let i = Form::iter(0);
        let q = l
            .div(&i.plus(&Form::constant(3)).unwrap(), 4, true)
            .unwrap();
        assert_eq!(q, Form::local(0));
        // i + 3 - 4q >= 0 and 4q + 3 - (i + 3) >= 0
        assert_eq!(l.ineqs[0].row(0, 1, 1), vec![1, -4, 3]);
        assert_eq!(l.ineqs[1].row(0, 1, 1), vec![-1, 4, 0]);
        // The same division is reused; constant divisions fold.
        assert_eq!(
            l.div(&i.plus(&Form::constant(3)).unwrap(), 4, true)
                .unwrap(),
            Form::local(0)
        );
        assert_eq!(
            l.div(&Form::constant(-7), 2, true).unwrap(),
            Form::constant(-4)
        );
        assert_eq!(
            l.div(&Form::constant(-7), 2, false).unwrap(),
            Form::constant(-3)
        );
        assert_eq!(l.count, 1);
    }
}
