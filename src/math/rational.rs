//! Exact rational numbers with checked i128 arithmetic.
//!
//! Invariant: a `Rational` is always reduced (`gcd(num, den) == 1`) with a
//! strictly positive denominator; the only way to build one is through the
//! checked constructors, so structural equality is numeric equality.
//! Arithmetic returns `Err(MathError::Overflow)` instead of wrapping.
//! Comparison never overflows: it compares continued-fraction expansions.

use super::int::{MathError, Result};
use std::cmp::Ordering;
use std::fmt;

/// A reduced fraction `num / den` with `den > 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rational {
    num: i128,
    den: i128,
}

fn gcd128(a: i128, b: i128) -> u128 {
    let (mut x, mut y) = (a.unsigned_abs(), b.unsigned_abs());
    // Fast path: hardware 64-bit division instead of the software 128-bit one.
    if let (Ok(mut x64), Ok(mut y64)) = (u64::try_from(x), u64::try_from(y)) {
        while y64 != 0 {
            let t = x64 % y64;
            x64 = y64;
            y64 = t;
        }
        return x64 as u128;
    }
    while y != 0 {
        let t = x % y;
        x = y;
        y = t;
    }
    x
}

/// `a / b` for a divisor `b` of `a` (a gcd): in 64 bits when both fit,
/// a hardware division instead of the software 128-bit one.
#[inline]
fn quot(a: i128, b: i128) -> i128 {
    match (i64::try_from(a), i64::try_from(b)) {
        (Ok(x), Ok(y)) if y != -1 => i128::from(x / y),
        _ => a / b,
    }
}

impl Rational {
    /// Returns zero.
    pub const ZERO: Rational = Rational { num: 0, den: 1 };
    /// Returns one.
    pub const ONE: Rational = Rational { num: 1, den: 1 };

    /// Returns the reduced fraction `num / den`.
    pub fn new(num: i128, den: i128) -> Result<Rational> {
        if den == 0 {
            return Err(MathError::DivisionByZero);
        }
        let g = gcd128(num, den);
        let g = i128::try_from(g).map_err(|_| MathError::Overflow)?;
        let (mut n, mut d) = (quot(num, g), quot(den, g));
        if d < 0 {
            n = n.checked_neg().ok_or(MathError::Overflow)?;
            d = d.checked_neg().ok_or(MathError::Overflow)?;
        }
        Ok(Rational { num: n, den: d })
    }

    /// Returns the integer `v` as a rational.
    pub fn from_int(v: i64) -> Rational {
        Rational {
            num: v as i128,
            den: 1,
        }
    }

    /// Returns the numerator.
    pub fn num(&self) -> i128 {
        self.num
    }

    /// Returns the (positive) denominator.
    pub fn den(&self) -> i128 {
        self.den
    }

    /// Returns whether the value is an integer.
    pub fn is_integer(&self) -> bool {
        self.den == 1
    }

    /// Returns whether the value is zero.
    pub fn is_zero(&self) -> bool {
        self.num == 0
    }

    /// Returns -1, 0 or 1.
    pub fn signum(&self) -> i32 {
        self.num.signum() as i32
    }

    /// Returns the sum.
    pub fn add(&self, o: &Rational) -> Result<Rational> {
        if self.den == 1 && o.den == 1 {
            let n = self.num.checked_add(o.num).ok_or(MathError::Overflow)?;
            return Ok(Rational { num: n, den: 1 });
        }
        if self.den == o.den {
            let n = self.num.checked_add(o.num).ok_or(MathError::Overflow)?;
            return Rational::new(n, self.den);
        }
        let g = gcd128(self.den, o.den) as i128;
        let (bd, dd) = (quot(self.den, g), quot(o.den, g));
        let n1 = self.num.checked_mul(dd).ok_or(MathError::Overflow)?;
        let n2 = o.num.checked_mul(bd).ok_or(MathError::Overflow)?;
        let n = n1.checked_add(n2).ok_or(MathError::Overflow)?;
        let d = bd.checked_mul(o.den).ok_or(MathError::Overflow)?;
        Rational::new(n, d)
    }

    /// Returns the negation.
    pub fn neg(&self) -> Result<Rational> {
        Ok(Rational {
            num: self.num.checked_neg().ok_or(MathError::Overflow)?,
            den: self.den,
        })
    }

    /// Returns the difference.
    pub fn sub(&self, o: &Rational) -> Result<Rational> {
        self.add(&o.neg()?)
    }

    /// Returns the product.
    pub fn mul(&self, o: &Rational) -> Result<Rational> {
        if self.num == 0 || o.num == 0 {
            return Ok(Rational::ZERO);
        }
        if self.den == 1 && o.den == 1 {
            let n = self.num.checked_mul(o.num).ok_or(MathError::Overflow)?;
            return Ok(Rational { num: n, den: 1 });
        }
        let g1 = gcd128(self.num, o.den) as i128;
        let g2 = gcd128(o.num, self.den) as i128;
        let n = quot(self.num, g1)
            .checked_mul(quot(o.num, g2))
            .ok_or(MathError::Overflow)?;
        let d = quot(self.den, g2)
            .checked_mul(quot(o.den, g1))
            .ok_or(MathError::Overflow)?;
        // Both factors were reduced and cross-reduced, so n/d is reduced and
        // d > 0 (both denominators are positive).
        debug_assert_eq!(gcd128(n, d), 1);
        Ok(Rational { num: n, den: d })
    }

    /// Returns the quotient, or `DivisionByZero`.
    pub fn div(&self, o: &Rational) -> Result<Rational> {
        if o.num == 0 {
            return Err(MathError::DivisionByZero);
        }
        self.mul(&Rational::new(o.den, o.num)?)
    }

    /// Returns the largest integer not above the value.
    pub fn floor(&self) -> i128 {
        self.num.div_euclid(self.den)
    }

    /// Returns the smallest integer not below the value.
    pub fn ceil(&self) -> i128 {
        let f = self.floor();
        if self.den == 1 {
            f
        } else {
            f + 1
        }
    }

    /// Returns the value as i64 if it is an integer that fits.
    pub fn to_i64(&self) -> Result<i64> {
        if self.den != 1 {
            return Err(MathError::Internal("rational is not an integer"));
        }
        i64::try_from(self.num).map_err(|_| MathError::Overflow)
    }
}

/// Compares `a/b` with `c/d` for `b, d > 0` by Euclid's algorithm on both
/// fractions at once: equal integer parts reduce to comparing the reciprocals
/// of the fractional parts in reverse, so no product is ever formed.
fn cmp_frac(a: i128, b: i128, c: i128, d: i128) -> Ordering {
    let (q1, r1) = (a.div_euclid(b), a.rem_euclid(b));
    let (q2, r2) = (c.div_euclid(d), c.rem_euclid(d));
    if q1 != q2 {
        return q1.cmp(&q2);
    }
    match (r1 == 0, r2 == 0) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => cmp_frac(d, r2, b, r1),
    }
}

impl Ord for Rational {
    fn cmp(&self, o: &Self) -> Ordering {
        cmp_frac(self.num, self.den, o.num, o.den)
    }
}

impl PartialOrd for Rational {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl fmt::Display for Rational {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: i128, d: i128) -> Rational {
        Rational::new(n, d).unwrap()
    }

    #[test]
    fn reduce_and_ops() {
        assert_eq!(r(6, -4), r(-3, 2));
        assert_eq!(r(1, 2).add(&r(1, 3)).unwrap(), r(5, 6));
        assert_eq!(r(1, 2).mul(&r(4, 3)).unwrap(), r(2, 3));
        assert_eq!(r(-7, 2).floor(), -4);
        assert_eq!(r(-7, 2).ceil(), -3);
        assert_eq!(Rational::new(1, 0), Err(MathError::DivisionByZero));
        assert_eq!(Rational::new(i128::MIN, -1), Err(MathError::Overflow));
        assert_eq!(
            r(i128::MAX, 1).add(&Rational::ONE),
            Err(MathError::Overflow)
        );
    }

    #[test]
    fn compare_without_overflow() {
        let big = i128::MAX - 1;
        assert!(r(big, big - 2) < r(big - 2, big - 4));
        assert!(r(big - 1, big) < r(big, big - 1));
        for a in -12i128..=12 {
            for b in 1i128..=6 {
                for c in -12i128..=12 {
                    for d in 1i128..=6 {
                        assert_eq!(r(a, b).cmp(&r(c, d)), (a * d).cmp(&(c * b)));
                    }
                }
            }
        }
    }
}
