//! Brute-force checks of the math module: random small systems inside the
//! box [-5, 5]^d are compared pointwise with enumeration of [-6, 6]^d.

use polyrs::math::{BasicRel, DimKind, Exactness, Optimum, Space, System, Tuple, UnionRel};

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
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
}

const B: i64 = 6;

fn points(d: usize) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for _ in 0..d {
        let mut next = Vec::new();
        for p in &out {
            for v in -B..=B {
                let mut q = p.clone();
                q.push(v);
                next.push(q);
            }
        }
        out = next;
    }
    out
}

fn set_space(d: usize) -> Space {
    Space::set(&[], Tuple::anonymous(Some("S"), d))
}

/// Random basic set over `d` dims (+ `nl` locals) bounded by [-5, 5] on dims and locals.
fn random_set(rng: &mut Rng, d: usize, nl: usize) -> BasicRel {
    let n = d + nl;
    let mut ineqs = Vec::new();
    let mut eqs = Vec::new();
    for j in 0..n {
        let (lo, hi) = (rng.range(-5, 1), rng.range(-1, 5));
        let mut r = vec![0; n + 1];
        r[j] = 1;
        r[n] = -lo;
        ineqs.push(r);
        let mut r = vec![0; n + 1];
        r[j] = -1;
        r[n] = hi;
        ineqs.push(r);
    }
    for _ in 0..rng.range(1, 4) {
        let mut r: Vec<i64> = (0..n).map(|_| rng.range(-3, 3)).collect();
        r.push(rng.range(-6, 6));
        ineqs.push(r);
    }
    if rng.range(0, 3) == 0 {
        let mut r: Vec<i64> = (0..n).map(|_| rng.range(-2, 2)).collect();
        r.push(rng.range(-3, 3));
        eqs.push(r);
    }
    BasicRel::from_constraints(set_space(d), nl, eqs, ineqs).unwrap()
}

fn eval(r: &[i64], x: &[i64]) -> i64 {
    r[..r.len() - 1]
        .iter()
        .zip(x)
        .map(|(a, b)| a * b)
        .sum::<i64>()
        + r[r.len() - 1]
}

/// Membership by enumeration of locals in [-B, B].
fn brute_contains(b: &BasicRel, x: &[i64]) -> bool {
    for l in points(b.n_local()) {
        let full: Vec<i64> = x.iter().chain(l.iter()).copied().collect();
        if b.eqs().iter().all(|r| eval(r, &full) == 0)
            && b.ineqs().iter().all(|r| eval(r, &full) >= 0)
        {
            return true;
        }
    }
    false
}

#[test]
fn emptiness_sample_lexopt() {
    let mut rng = Rng(1);
    for case in 0..300 {
        let d = rng.range(1, 3) as usize;
        let s = random_set(&mut rng, d, 0);
        let pts: Vec<Vec<i64>> = points(d)
            .into_iter()
            .filter(|p| brute_contains(&s, p))
            .collect();
        assert_eq!(s.is_empty().unwrap(), pts.is_empty(), "case {case}: {s}");
        match s.sample().unwrap() {
            Some(p) => assert!(brute_contains(&s, &p), "case {case}"),
            None => assert!(pts.is_empty()),
        }
        let min = pts.iter().min().cloned();
        let max = pts.iter().max().cloned();
        assert_eq!(
            s.lexmin().unwrap(),
            min.map_or(Optimum::Empty, Optimum::Bounded),
            "case {case}: {s}"
        );
        assert_eq!(
            s.lexmax().unwrap(),
            max.map_or(Optimum::Empty, Optimum::Bounded),
            "case {case}: {s}"
        );
    }
}

#[test]
fn locals_emptiness_and_lexmin() {
    let mut rng = Rng(2);
    for case in 0..150 {
        let d = rng.range(1, 2) as usize;
        let s = random_set(&mut rng, d, 1);
        let pts: Vec<Vec<i64>> = points(d)
            .into_iter()
            .filter(|p| brute_contains(&s, p))
            .collect();
        assert_eq!(s.is_empty().unwrap(), pts.is_empty(), "case {case}: {s}");
        for p in points(d) {
            assert_eq!(
                s.contains(&p).unwrap(),
                pts.contains(&p),
                "case {case}: {s} at {p:?}"
            );
        }
        let min = pts.iter().min().cloned();
        assert_eq!(
            s.lexmin().unwrap(),
            min.map_or(Optimum::Empty, Optimum::Bounded),
            "case {case}"
        );
    }
}

#[test]
fn projection_pointwise() {
    let mut rng = Rng(3);
    for case in 0..200 {
        let d = rng.range(2, 3) as usize;
        let s = random_set(&mut rng, d, 0);
        let k = rng.range(0, d as i64 - 1) as usize;
        let p = s.project_out(DimKind::Out, k, 1).unwrap();
        let (fmp, exact) = s.fm_project_out(DimKind::Out, k, 1).unwrap();
        for y in points(d - 1) {
            let expect = (-B..=B).any(|v| {
                let mut x = y.clone();
                x.insert(k, v);
                brute_contains(&s, &x)
            });
            assert_eq!(
                p.contains(&y).unwrap(),
                expect,
                "case {case}: {s} -> {p} at {y:?}"
            );
            let got = fmp.contains(&y).unwrap();
            if exact == Exactness::Exact {
                assert_eq!(got, expect, "case {case}: fm {fmp}");
            } else {
                assert!(got || !expect, "case {case}: fm lost a point");
            }
        }
    }
}

#[test]
fn subtract_intersect_subset() {
    let mut rng = Rng(4);
    for case in 0..200 {
        let d = rng.range(1, 2) as usize;
        let a = random_set(&mut rng, d, 0);
        // Half of the subtrahends come from a projection or a division.
        let b = if rng.range(0, 1) == 0 {
            random_set(&mut rng, d, 0)
        } else {
            let m = rng.range(2, 3);
            let c = rng.range(0, m - 1);
            let text = if d == 1 {
                format!("{{ S[i] : (i + {c}) mod {m} = 0 and i >= -3 }}")
            } else {
                format!("{{ S[i, j] : exists (e : i + j = {m}e + {c}) and j <= 2 }}")
            };
            UnionRel::parse(&text).unwrap().pieces()[0].clone()
        };
        let diff = a.subtract(&b).unwrap();
        let inter = a.intersect(&b).unwrap();
        for p in points(d) {
            let (ina, inb) = (brute_contains(&a, &p), brute_contains(&b, &p));
            let hits = diff.iter().filter(|q| q.contains(&p).unwrap()).count();
            assert!(hits <= 1, "case {case}: pieces overlap at {p:?}");
            assert_eq!(hits == 1, ina && !inb, "case {case}: {a} \\ {b} at {p:?}");
            assert_eq!(inter.contains(&p).unwrap(), ina && inb, "case {case}");
        }
        let sub = points(d)
            .iter()
            .all(|p| !brute_contains(&a, p) || brute_contains(&b, p));
        assert_eq!(a.is_subset(&b).unwrap(), sub, "case {case}");
    }
}

#[test]
fn gist_and_redundancy() {
    let mut rng = Rng(5);
    for case in 0..150 {
        let d = rng.range(1, 3) as usize;
        let a = random_set(&mut rng, d, 0);
        let c = random_set(&mut rng, d, 0);
        let g = a.gist(&c).unwrap();
        let r = a.remove_redundancies().unwrap();
        for p in points(d) {
            let (ina, inc) = (brute_contains(&a, &p), brute_contains(&c, &p));
            assert_eq!(
                g.contains(&p).unwrap() && inc,
                ina && inc,
                "case {case}: gist {a} / {c} = {g}"
            );
            assert_eq!(r.contains(&p).unwrap(), ina, "case {case}: {a} vs {r}");
        }
    }
}

#[test]
fn maps_apply_deltas() {
    let mut rng = Rng(6);
    for case in 0..100 {
        let n = rng.range(1, 2) as usize;
        let s = random_set(&mut rng, 2 * n, 0);
        let sp = Space::map(
            &[],
            Tuple::anonymous(Some("A"), n),
            Tuple::anonymous(Some("A"), n),
        );
        let m = s.with_space(sp).unwrap();
        let pts: Vec<Vec<i64>> = points(2 * n)
            .into_iter()
            .filter(|p| brute_contains(&m, p))
            .collect();
        let deltas = m.deltas().unwrap();
        let dom = m.domain().unwrap();
        let ran = m.range().unwrap();
        let rev = m.reverse().unwrap();
        let comp = m.apply_range(&m).unwrap();
        for dlt in points(n) {
            let expect = pts
                .iter()
                .any(|p| (0..n).all(|j| p[n + j] - p[j] == dlt[j]));
            assert_eq!(
                deltas.contains(&dlt).unwrap(),
                expect,
                "case {case}: deltas {m} = {deltas}"
            );
            let ed = pts.iter().any(|p| p[..n] == dlt[..]);
            assert_eq!(dom.contains(&dlt).unwrap(), ed, "case {case}");
            let er = pts.iter().any(|p| p[n..] == dlt[..]);
            assert_eq!(ran.contains(&dlt).unwrap(), er, "case {case}");
        }
        let mut comp_pts = std::collections::HashSet::new();
        for q in &pts {
            for r in &pts {
                if q[n..] == r[..n] {
                    let mut c = q[..n].to_vec();
                    c.extend_from_slice(&r[n..]);
                    comp_pts.insert(c);
                }
            }
        }
        // All points for n = 1; every 5th point for n = 2 (locals make `contains` an ILP).
        let step = if n == 1 { 1 } else { 5 };
        for p in points(2 * n).into_iter().step_by(step) {
            let sw: Vec<i64> = p[n..].iter().chain(p[..n].iter()).copied().collect();
            assert_eq!(rev.contains(&p).unwrap(), pts.contains(&sw), "case {case}");
            assert_eq!(
                comp.contains(&p).unwrap(),
                comp_pts.contains(&p),
                "case {case}: {m} ∘ itself = {comp}"
            );
        }
    }
}

#[test]
fn print_parse_roundtrip() {
    let mut rng = Rng(7);
    for case in 0..150 {
        let d = rng.range(1, 2) as usize;
        let nl = rng.range(0, 1) as usize;
        let s = random_set(&mut rng, d, nl);
        let text = s.to_string();
        let back = UnionRel::parse(&text).unwrap();
        for p in points(d) {
            assert_eq!(
                back.contains(s.space(), &p).unwrap(),
                brute_contains(&s, &p),
                "case {case}: {text} reparsed as {back}"
            );
        }
    }
}

#[test]
fn lex_order_maps() {
    let sp = set_space(2);
    let lt = UnionRel::lex_lt(&sp).unwrap();
    let le = UnionRel::lex_le(&sp).unwrap();
    let gt = UnionRel::lex_gt(&sp).unwrap();
    let msp = sp.map_to(&sp).unwrap();
    for p in points(4) {
        let (x, y) = (&p[..2], &p[2..]);
        assert_eq!(lt.contains(&msp, &p).unwrap(), x < y);
        assert_eq!(le.contains(&msp, &p).unwrap(), x <= y);
        assert_eq!(gt.contains(&msp, &p).unwrap(), x > y);
    }
}

#[test]
fn rational_lexmin_small() {
    // 2i >= 1, 3j >= i, i <= 4, j <= 4 → rational lexmin (1/2, 1/6); integer (1, 1).
    let mut sys = System::new(2);
    sys.add_ineq(vec![2, 0, -1]);
    sys.add_ineq(vec![-1, 3, 0]);
    sys.add_bounds(0, -10, 4).unwrap();
    sys.add_bounds(1, -10, 4).unwrap();
    let m = sys.rational_lexopt(2, false).unwrap().bounded().unwrap();
    assert_eq!(m[0].to_string(), "1/2");
    assert_eq!(m[1].to_string(), "1/6");
    let m = sys.rational_lexopt(2, true).unwrap().bounded().unwrap();
    assert_eq!(m[0].to_string(), "4");
    assert_eq!(m[1].to_string(), "4");
    assert_eq!(sys.lexmin().unwrap(), Optimum::Bounded(vec![1, 1]));
}

/// Systems with integer-division variables (`q = ⌊e(x, y)/d⌋` written as
/// `d·q <= e <= d·q + d - 1`), as tiled schedules produce them: twins with
/// the same definition, several divisions by the same `d`, and constraints
/// on sums and differences of them (wavefront tiles). Emptiness and samples
/// are compared with enumeration of `(x, y)` (the divisions are functions
/// of them).
#[test]
fn division_systems_emptiness() {
    let mut rng = Rng(7);
    let mut nonempty = 0;
    for case in 0..400 {
        let nd = rng.range(2, 4) as usize;
        let n = 2 + nd;
        let d = rng.range(2, 4);
        let mut sys = System::new(n);
        for j in 0..2 {
            let mut r = vec![0; n + 1];
            r[j] = 1;
            r[n] = 8;
            sys.add_ineq(r);
            let mut r = vec![0; n + 1];
            r[j] = -1;
            r[n] = 8;
            sys.add_ineq(r);
        }
        let mut defs: Vec<(Vec<i64>, i64)> = Vec::new();
        for k in 0..nd {
            // e over (x, y) and a constant; sometimes a twin of an earlier one.
            let e: Vec<i64> = if k > 0 && rng.range(0, 2) == 0 {
                defs[rng.range(0, k as i64 - 1) as usize].0.clone()
            } else {
                vec![rng.range(-2, 2), rng.range(-2, 2), rng.range(-3, 3)]
            };
            let dk = if rng.range(0, 3) == 0 {
                rng.range(2, 4)
            } else {
                d
            };
            let mut lo = vec![0; n + 1];
            lo[0] = e[0];
            lo[1] = e[1];
            lo[n] = e[2];
            lo[2 + k] = -dk;
            let hi: Vec<i64> = lo
                .iter()
                .enumerate()
                .map(|(c, v)| if c == n { dk - 1 - v } else { -v })
                .collect();
            sys.add_ineq(lo);
            sys.add_ineq(hi);
            defs.push((e, dk));
        }
        for _ in 0..rng.range(2, 4) {
            let mut r: Vec<i64> = (0..n)
                .map(|c| {
                    if c < 2 {
                        rng.range(-2, 2)
                    } else {
                        rng.range(-1, 1)
                    }
                })
                .collect();
            r.push(rng.range(-6, 0));
            sys.add_ineq(r);
        }
        let mut found = None;
        for x in -8..=8 {
            for y in -8..=8 {
                let mut p = vec![x, y];
                for (e, dk) in &defs {
                    p.push((e[0] * x + e[1] * y + e[2]).div_euclid(*dk));
                }
                if sys.contains(&p).unwrap() {
                    found = Some(p);
                }
            }
        }
        assert_eq!(
            sys.is_empty().unwrap(),
            found.is_none(),
            "case {case}: {sys:?}"
        );
        if let Some(p) = sys.sample().unwrap() {
            assert!(sys.contains(&p).unwrap(), "case {case}: {p:?}");
            nonempty += 1;
        }
    }
    // Both answers occur often enough for the comparison to mean something.
    assert!((50..350).contains(&nonempty), "{nonempty} non-empty of 400");
}
