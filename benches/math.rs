//! Criterion benchmarks of the exact math core on the shapes the optimizer
//! produces (`cargo bench --bench math`; `python3 bench/math_bench.py`
//! turns the results into docs/math-bench.md):
//!
//! * `lexmin/pluto-N`: integer lexmin over `N` non-negative unknowns shaped
//!   like a Pluto hyperplane ILP — schedule coefficients bounded by 4, free
//!   Farkas multipliers, three coefficient-matching equalities per
//!   dependence, a non-triviality row, and the objective sums first;
//! * `project/dep6`: projection of 6-dimensional dependence polyhedra (a
//!   3-deep source and sink with bounds, equalities and an order) onto the
//!   sink (exact integer projection, `BasicRel::project_out`) and with
//!   Fourier–Motzkin (`fm_project_out`).
//!
//! Systems come from a fixed seed and are built around a known integer
//! point, so each is feasible and the work measured is the same every run.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use polyrs::math::lexmin::lexmin_nonneg;
use polyrs::math::{BasicRel, DimKind, Optimum, Space, Tuple};

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

/// A Pluto-shaped ILP over `n` unknowns: `[sum of coefficients, w, then
/// per statement 3 coefficients, then multipliers]`.
fn pluto_ilp(n: usize, seed: u64) -> (Vec<Vec<i64>>, Vec<Vec<i64>>) {
    let mut rng = Rng(seed);
    let n_coef = (n / 4).max(3) / 3 * 3;
    let first_mult = 2 + n_coef;
    let n_mult = n - first_mult;
    // A feasible point: coefficients in 0..=2 (not all zero), w, multipliers.
    let mut x = vec![0i64; n];
    for v in x.iter_mut().take(first_mult + n_coef).skip(2) {
        *v = rng.range(0, 2);
    }
    x[2] = x[2].max(1);
    for v in x.iter_mut().skip(first_mult) {
        *v = rng.range(0, 3);
    }
    x[0] = x[2..first_mult].iter().sum();
    x[1] = rng.range(0, 4);
    let mut eqs = Vec::new();
    let mut ineqs = Vec::new();
    let row_at = |x: &[i64], r: &mut Vec<i64>| {
        let v: i64 = r[..n].iter().zip(x).map(|(a, b)| a * b).sum();
        r[n] = -v;
    };
    // Σ coefficients - s0 = 0
    let mut r = vec![0i64; n + 1];
    r[0] = -1;
    for c in r.iter_mut().take(first_mult).skip(2) {
        *c = 1;
    }
    eqs.push(r);
    // Coefficient bounds and non-triviality.
    for k in 2..first_mult {
        let mut r = vec![0i64; n + 1];
        r[k] = -1;
        r[n] = 4;
        ineqs.push(r);
    }
    let mut r = vec![0i64; n + 1];
    for c in r.iter_mut().take(first_mult).skip(2) {
        *c = 1;
    }
    r[n] = -1;
    ineqs.push(r);
    // Dependences: 6 multipliers each, 3 matching equalities, one bounding row.
    let deps = n_mult / 6;
    for d in 0..deps {
        let m0 = first_mult + 6 * d;
        let (s, t) = (
            2 + 3 * rng.range(0, (n_coef / 3 - 1) as i64) as usize,
            2 + 3 * rng.range(0, (n_coef / 3 - 1) as i64) as usize,
        );
        for k in 0..3 {
            let mut r = vec![0i64; n + 1];
            r[t + k] += 1;
            r[s + k] -= 1;
            for m in 0..6 {
                r[m0 + m] = -rng.range(-1, 1);
            }
            row_at(&x, &mut r);
            eqs.push(r);
        }
        // w >= distance-like combination, made valid at x by its constant.
        let mut r = vec![0i64; n + 1];
        r[1] = 1;
        r[t] -= 1;
        r[s] += 1;
        let v: i64 = r[..n].iter().zip(&x).map(|(a, b)| a * b).sum();
        r[n] = -v.min(0);
        ineqs.push(r);
    }
    (eqs, ineqs)
}

/// A 3-deep source and sink: `0 <= i, o < 50`, `o0 = i0`, `o1 >= i1 + 1`,
/// `o2 + i2 <= 60`, as `S[i] -> T[o]`.
fn dep6(variant: i64) -> BasicRel {
    let space = Space::map(
        &[],
        Tuple::new(Some("S"), &["i0", "i1", "i2"]),
        Tuple::new(Some("T"), &["o0", "o1", "o2"]),
    );
    let mut eqs = Vec::new();
    let mut ineqs = Vec::new();
    let unit = |k: usize, c: i64, k2: usize, c2: i64, cst: i64| {
        let mut r = vec![0i64; 7];
        r[k] += c;
        r[k2] += c2;
        r[6] = cst;
        r
    };
    for k in 0..6 {
        ineqs.push(unit(k, 1, k, 0, 0));
        ineqs.push(unit(k, -1, k, 0, 49));
    }
    eqs.push(unit(3, 1, 0, -1, 0));
    ineqs.push(unit(4, 1, 1, -1, -1));
    ineqs.push(unit(5, -1, 2, -1, 60 + variant));
    BasicRel::from_constraints(space, 0, eqs, ineqs).expect("valid polyhedron")
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("lexmin");
    for n in [20usize, 60, 120] {
        let (eqs, ineqs) = pluto_ilp(n, 0xB0B + n as u64);
        assert!(matches!(
            lexmin_nonneg(n, &eqs, &ineqs),
            Ok(Optimum::Bounded(_))
        ));
        g.bench_with_input(BenchmarkId::new("pluto", n), &n, |b, &n| {
            b.iter(|| lexmin_nonneg(black_box(n), black_box(&eqs), black_box(&ineqs)))
        });
    }
    g.finish();
    let mut g = c.benchmark_group("project");
    let rels: Vec<BasicRel> = (0..4).map(dep6).collect();
    g.bench_function("dep6-exact", |b| {
        b.iter(|| {
            for r in &rels {
                black_box(r.project_out(DimKind::In, 0, 3).expect("projection"));
            }
        })
    });
    g.bench_function("dep6-fm", |b| {
        b.iter(|| {
            for r in &rels {
                black_box(r.fm_project_out(DimKind::In, 0, 3).expect("projection"));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
