//! Overflow behaviour: coefficients near 2^62 must give the exact answer or
//! `MathError::Overflow` (or `Limit`), never a wrong answer or a panic.

use polyrs::math::{
    int, BasicRel, DimKind, MathError, Optimum, Rational, Space, System, Tuple, UnionRel,
};

const BIG: i64 = 1 << 62;

fn ok_or_overflow<T>(r: Result<T, MathError>) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(MathError::Overflow) | Err(MathError::Limit(_)) => None,
        Err(e) => panic!("unexpected error {e}"),
    }
}

#[test]
fn exact_with_big_coefficients() {
    // 2^62 x >= 2^62, x <= 1  →  x = 1
    let mut s = System::new(1);
    s.add_ineq(vec![BIG, -BIG]);
    s.add_ineq(vec![-1, 1]);
    assert_eq!(s.sample().unwrap(), Some(vec![1]));
    assert_eq!(s.lexmin().unwrap(), Optimum::Bounded(vec![1]));
    // 2^62 x + 1 >= 0 and -2^62 x + 2^62 - 1 >= 0  →  x ∈ {0}
    let mut s = System::new(1);
    s.add_ineq(vec![BIG, 1]);
    s.add_ineq(vec![-BIG, BIG - 1]);
    assert_eq!(s.lexmax().unwrap(), Optimum::Bounded(vec![0]));
    // 3x = 2^62 + 2 has solution x = (2^62 + 2) / 3 exactly.
    let mut s = System::new(1);
    s.add_eq(vec![3, -(BIG + 2)]);
    let x = s.sample().unwrap().unwrap();
    assert_eq!(3 * x[0], BIG + 2);
    // 2x = 2^62 + 1 has no integer solution.
    let mut s = System::new(1);
    s.add_eq(vec![2, -(BIG + 1)]);
    assert!(s.is_empty().unwrap());
}

#[test]
fn overflowing_sums_are_reported() {
    // x >= 2^62, y >= 2^62, minimize x + y: the value 2^63 does not fit.
    let mut s = System::new(2);
    s.add_ineq(vec![1, 0, -BIG]);
    s.add_ineq(vec![0, 1, -BIG]);
    s.add_bounds(0, BIG, BIG).unwrap();
    s.add_bounds(1, BIG, BIG).unwrap();
    assert_eq!(s.int_min(&[1, 1, 0]), Err(MathError::Overflow));
    // lexmin itself is representable.
    assert_eq!(s.lexmin().unwrap(), Optimum::Bounded(vec![BIG, BIG]));
    assert_eq!(int::add(BIG, BIG), Err(MathError::Overflow));
    assert_eq!(int::mul(BIG, 2), Err(MathError::Overflow));
    assert_eq!(int::neg(i64::MIN), Err(MathError::Overflow));
    let r = Rational::new(i128::MAX, 1).unwrap();
    assert_eq!(r.add(&r), Err(MathError::Overflow));
    assert_eq!(r.mul(&Rational::from_int(2)), Err(MathError::Overflow));
}

#[test]
fn parse_big_literals() {
    let u = UnionRel::parse("{ [i] : 4611686018427387904 i >= 4611686018427387904 and i <= 3 }")
        .unwrap();
    assert_eq!(u.lexmin().unwrap(), Optimum::Bounded(vec![1]));
    assert_eq!(
        UnionRel::parse("{ [i] : i >= 99999999999999999999 }"),
        Err(MathError::Overflow)
    );
}

/// Small deterministic PRNG (splitmix64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
    fn coef(&mut self) -> i64 {
        match self.next() % 4 {
            0 => (self.next() % 7) as i64 - 3,
            1 => BIG - (self.next() % 5) as i64,
            2 => -BIG + (self.next() % 5) as i64,
            _ => (self.next() >> 2) as i64 - (1 << 61),
        }
    }
}

#[test]
fn random_big_systems_never_lie_or_panic() {
    let mut rng = Rng(99);
    let sp = Space::set(&[], Tuple::anonymous(Some("S"), 2));
    let mut answered = 0;
    for case in 0..300 {
        let mut ineqs = Vec::new();
        for j in 0..2 {
            let mut r = vec![0; 3];
            r[j] = 1;
            r[2] = 20;
            ineqs.push(r.clone());
            r[j] = -1;
            ineqs.push(r);
        }
        for _ in 0..2 {
            ineqs.push(vec![rng.coef(), rng.coef(), rng.coef()]);
        }
        let orig = ineqs.clone();
        let Some(b) = ok_or_overflow(BasicRel::from_constraints(sp.clone(), 0, vec![], ineqs))
        else {
            continue;
        };
        // Ground truth by enumeration of the original rows in i128.
        let member = |x: &[i64]| {
            orig.iter().all(|r| {
                r[0] as i128 * x[0] as i128 + r[1] as i128 * x[1] as i128 + r[2] as i128 >= 0
            })
        };
        let pts: Vec<Vec<i64>> = (-20..=20)
            .flat_map(|i| (-20..=20).map(move |j| vec![i, j]))
            .filter(|p| member(p))
            .collect();
        if let Some(e) = ok_or_overflow(b.is_empty()) {
            assert_eq!(e, pts.is_empty(), "case {case}: {b}");
            answered += 1;
        }
        if let Some(Some(p)) = ok_or_overflow(b.sample()) {
            assert!(member(&p), "case {case}");
        }
        if let Some(m) = ok_or_overflow(b.lexmin()) {
            let expect = pts
                .iter()
                .min()
                .cloned()
                .map_or(Optimum::Empty, Optimum::Bounded);
            assert_eq!(m, expect, "case {case}: {b}");
        }
        if let Some(p) = ok_or_overflow(b.project_out(DimKind::Out, 0, 1)) {
            for j in -20..=20 {
                if let Some(got) = ok_or_overflow(p.contains(&[j])) {
                    assert_eq!(got, pts.iter().any(|q| q[1] == j), "case {case}");
                }
            }
        }
    }
    assert!(
        answered > 100,
        "only {answered} cases answered without overflow"
    );
}
