//! Checked machine-integer helpers and the module's error type.
//!
//! Every helper returns `Err(MathError::Overflow)` instead of wrapping or
//! panicking, so callers can propagate with `?`. Division helpers use floor
//! semantics (`floor_div(-7, 2) == -4`, `modulo(-7, 2) == 1`) and reject a
//! zero divisor with `MathError::DivisionByZero`.

use thiserror::Error;

/// Errors of the math module.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MathError {
    /// Limit: an intermediate value does not fit in a 64-bit (or 128-bit) integer.
    #[error("arithmetic overflow")]
    Overflow,
    /// Limit: a search (branch and bound, elimination) exceeded its budget.
    #[error("limit exceeded: {0}")]
    Limit(&'static str),
    /// User error: the text is not valid isl syntax for this parser.
    #[error("parse error at byte {pos}: {msg}")]
    Parse {
        /// Byte offset of the offending token.
        pos: usize,
        /// What went wrong.
        msg: String,
    },
    /// User error: operands live in incompatible spaces or indices are out of range.
    #[error("space mismatch: {0}")]
    Space(String),
    /// Limit: the exact result is not representable by this module
    /// (e.g. the complement of an existential that is not a division).
    #[error("unsupported: {0}")]
    Unsupported(&'static str),
    /// User error: division by zero.
    #[error("division by zero")]
    DivisionByZero,
    /// Limit: the compile-time budget in force ran out ([`super::budget`]).
    #[error("the time budget ran out")]
    Deadline,
    /// Bug: an internal invariant was violated.
    #[error("internal error: {0}")]
    Internal(&'static str),
}

/// Result alias of the math module.
pub type Result<T> = std::result::Result<T, MathError>;

/// Returns `a + b` or `Overflow`.
pub fn add(a: i64, b: i64) -> Result<i64> {
    a.checked_add(b).ok_or(MathError::Overflow)
}

/// Returns `a - b` or `Overflow`.
pub fn sub(a: i64, b: i64) -> Result<i64> {
    a.checked_sub(b).ok_or(MathError::Overflow)
}

/// Returns `a * b` or `Overflow`.
pub fn mul(a: i64, b: i64) -> Result<i64> {
    a.checked_mul(b).ok_or(MathError::Overflow)
}

/// Returns `-a` or `Overflow`.
pub fn neg(a: i64) -> Result<i64> {
    a.checked_neg().ok_or(MathError::Overflow)
}

/// Returns `|a|` or `Overflow`.
pub fn abs(a: i64) -> Result<i64> {
    a.checked_abs().ok_or(MathError::Overflow)
}

/// Returns `a*b + c*d` computed in i128 and narrowed, or `Overflow`.
pub fn mul_add(a: i64, b: i64, c: i64, d: i64) -> Result<i64> {
    let v = (a as i128) * (b as i128) + (c as i128) * (d as i128);
    narrow(v)
}

/// Returns the i128 value as i64 or `Overflow`.
pub fn narrow(v: i128) -> Result<i64> {
    i64::try_from(v).map_err(|_| MathError::Overflow)
}

/// Returns the non-negative greatest common divisor (`gcd(0, 0) == 0`).
pub fn gcd(a: i64, b: i64) -> Result<i64> {
    let (mut x, mut y) = (a.unsigned_abs(), b.unsigned_abs());
    while y != 0 {
        let t = x % y;
        x = y;
        y = t;
    }
    i64::try_from(x).map_err(|_| MathError::Overflow)
}

/// Returns the non-negative least common multiple (`lcm(a, 0) == 0`).
pub fn lcm(a: i64, b: i64) -> Result<i64> {
    if a == 0 || b == 0 {
        return Ok(0);
    }
    let g = gcd(a, b)?;
    abs(mul(a / g, b)?)
}

/// Returns `floor(a / b)`.
pub fn floor_div(a: i64, b: i64) -> Result<i64> {
    if b == 0 {
        return Err(MathError::DivisionByZero);
    }
    let q = a.checked_div(b).ok_or(MathError::Overflow)?;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        sub(q, 1)
    } else {
        Ok(q)
    }
}

/// Returns `ceil(a / b)`.
pub fn ceil_div(a: i64, b: i64) -> Result<i64> {
    if b == 0 {
        return Err(MathError::DivisionByZero);
    }
    let q = a.checked_div(b).ok_or(MathError::Overflow)?;
    if (a % b != 0) && ((a < 0) == (b < 0)) {
        add(q, 1)
    } else {
        Ok(q)
    }
}

/// Returns `a - b * floor(a / b)`, which has the sign of `b`.
pub fn modulo(a: i64, b: i64) -> Result<i64> {
    let q = floor_div(a, b)?;
    narrow(a as i128 - (b as i128) * (q as i128))
}

/// Returns `(g, s, t)` with `s*a + t*b == g == gcd(a, b) >= 0`.
///
/// Extended Euclid on i128 so intermediate cofactors cannot overflow;
/// the cofactors satisfy `|s| <= |b|/g` and `|t| <= |a|/g`, so they fit
/// in i64 unless `a` or `b` is `i64::MIN`.
pub fn ext_gcd(a: i64, b: i64) -> Result<(i64, i64, i64)> {
    let (mut r0, mut r1) = (a as i128, b as i128);
    let (mut s0, mut s1) = (1i128, 0i128);
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0.div_euclid(r1);
        (r0, r1) = (r1, r0 - q * r1);
        (s0, s1) = (s1, s0 - q * s1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    if r0 < 0 {
        r0 = -r0;
        s0 = -s0;
        t0 = -t0;
    }
    Ok((narrow(r0)?, narrow(s0)?, narrow(t0)?))
}

/// Returns the gcd of all entries of `row` (0 for an all-zero row).
pub fn gcd_slice(row: &[i64]) -> Result<i64> {
    let mut g = 0;
    for &v in row {
        g = gcd(g, v)?;
        if g == 1 {
            break;
        }
    }
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_semantics() {
        for a in -20i64..=20 {
            for b in [-7i64, -3, -1, 1, 2, 5] {
                let fa = a as f64 / b as f64;
                assert_eq!(floor_div(a, b).unwrap(), fa.floor() as i64);
                assert_eq!(ceil_div(a, b).unwrap(), fa.ceil() as i64);
                let m = modulo(a, b).unwrap();
                assert_eq!(a, b * floor_div(a, b).unwrap() + m);
            }
        }
        assert_eq!(floor_div(i64::MIN, -1), Err(MathError::Overflow));
        assert_eq!(floor_div(1, 0), Err(MathError::DivisionByZero));
    }

    #[test]
    fn gcd_lcm() {
        assert_eq!(gcd(12, -18).unwrap(), 6);
        assert_eq!(gcd(0, 0).unwrap(), 0);
        assert_eq!(gcd(i64::MIN, 0), Err(MathError::Overflow));
        assert_eq!(lcm(4, 6).unwrap(), 12);
        assert_eq!(lcm(1 << 62, 3), Err(MathError::Overflow));
        let (g, s, t) = ext_gcd(240, -46).unwrap();
        assert_eq!(g, 2);
        assert_eq!(s * 240 + t * -46, 2);
    }
}
