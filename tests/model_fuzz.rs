//! The scheduler and its checker, fuzzed in process on random models built
//! as data ([`Model::parse`]): no MLIR, thousands of models a minute.
//!
//! Each model is a few statements in loop nests that share outer loops,
//! over two parameters, with rectangular and triangular domains (some
//! split in two pieces, as an `if`/`else` splits them) and affine accesses
//! (coefficients up to 2) to a 1-d and a 2-d array. For each:
//!
//! * the original schedule passes the checker;
//! * the Pluto scheduler's schedule passes the checker, and an oracle
//!   that shares nothing with dependence analysis or the checker agrees:
//!   every instance is enumerated for small values of the parameters, the
//!   accesses of each cell listed in the original order, and every pair
//!   with a write among them must keep its order under the new schedule;
//! * the schedule with the innermost loop of the first statement reversed:
//!   when the oracle finds a pair it reorders, the checker must reject it.
//!
//! `cargo test --test model_fuzz` runs a short budget (the default run);
//! `POLYRS_MODEL_FUZZ=N` runs N models, `POLYRS_MODEL_FUZZ_SEED=S` starts
//! from another seed. A failure prints the model's text.

use std::collections::HashMap;

use polyrs::deps::{compute, DepOptions};
use polyrs::sched::pluto::{schedule, Options};
use polyrs::sched::{verify, Schedule};
use polyrs::scop::form::Form;
use polyrs::scop::model::{AccessKind, Model};

/// xorshift64*: deterministic, seedable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len() as u64) as usize]
    }
}

/// A random affine subscript over iterators `its` (and `N`).
fn subscript(r: &mut Rng, its: &[String]) -> String {
    let mut terms = Vec::new();
    for it in its {
        match r.below(5) {
            0 | 1 => {}
            2 => terms.push(it.clone()),
            3 => terms.push(format!("{}{it}", r.pick(&["", "2"]))),
            _ => terms.push(format!("-{it}")),
        }
    }
    if terms.is_empty() || r.below(4) == 0 {
        terms.push(r.pick(&["0", "1", "-1", "N", "N - 1", "M"]).to_string());
    } else if r.below(3) == 0 {
        terms.push(r.pick(&["1", "-1", "2"]).to_string());
    }
    terms.join(" + ").replace("+ -", "- ")
}

/// A random model's text: statements in loop nests sharing outer loops.
fn random_model(r: &mut Rng) -> String {
    let n_stmts = 1 + r.below(3) as usize;
    let mut domain = Vec::new();
    let mut sched = Vec::new();
    let mut writes = Vec::new();
    let mut reads = Vec::new();
    let mut prev: Option<(usize, Vec<usize>)> = None;
    for s in 0..n_stmts {
        let depth = 1 + r.below(3) as usize;
        let its: Vec<String> = (0..depth).map(|k| format!("i{k}")).collect();
        // Shared loops with the previous statement, then the next position.
        let beta = match &prev {
            None => vec![0; depth + 1],
            Some((pd, pb)) => {
                let shared = r.below(depth.min(*pd) as u64 + 1) as usize;
                let mut b = pb[..shared].to_vec();
                b.push(pb[shared] + 1);
                b.resize(depth + 1, 0);
                b
            }
        };
        prev = Some((depth, beta.clone()));
        let mut cons = Vec::new();
        for (k, it) in its.iter().enumerate() {
            let lower = if k > 0 && r.below(3) == 0 {
                its[r.below(k as u64) as usize].clone()
            } else {
                r.pick(&["0", "1"]).to_string()
            };
            let upper = if k > 0 && r.below(3) == 0 {
                format!("{} + 1", its[r.below(k as u64) as usize])
            } else {
                r.pick(&["N", "N - 1", "M"]).to_string()
            };
            cons.push(format!("{lower} <= {it} < {upper}"));
        }
        let tuple = format!("S{s}[{}]", its.join(", "));
        if r.below(4) == 0 {
            // Two pieces, split on the first iterator (an if/else).
            let c = cons.join(" and ");
            domain.push(format!("{tuple} : {c} and i0 < 2"));
            domain.push(format!("{tuple} : {c} and i0 >= 2"));
        } else {
            domain.push(format!("{tuple} : {}", cons.join(" and ")));
        }
        let mut out = Vec::new();
        for (k, b) in beta.iter().enumerate() {
            out.push(b.to_string());
            if k < depth {
                out.push(its[k].clone());
            }
        }
        sched.push(format!("{tuple} -> [{}]", out.join(", ")));
        let access = |r: &mut Rng| {
            if r.below(2) == 0 {
                format!("A[{}]", subscript(r, &its))
            } else {
                format!("B[{}, {}]", subscript(r, &its), subscript(r, &its))
            }
        };
        writes.push(format!("{tuple} -> {}", access(r)));
        for _ in 0..r.below(3) {
            reads.push(format!("{tuple} -> {}", access(r)));
        }
    }
    format!(
        "domain: [N, M] -> {{ {} }}\nschedule: [N, M] -> {{ {} }}\nwrites: [N, M] -> {{ {} }}\nreads: [N, M] -> {{ {} }}\n",
        domain.join("; "),
        sched.join("; "),
        writes.join("; "),
        reads.join("; ")
    )
}

/// `f` at parameters `p` and iterators `it`; `None` with locals.
fn eval(f: &Form, p: &[i64], it: &[i64]) -> Option<i64> {
    if f.locals.iter().any(|&c| c != 0) {
        return None;
    }
    let dot = |c: &[i64], v: &[i64]| c.iter().zip(v).map(|(a, b)| a * b).sum::<i64>();
    Some(dot(&f.params, p) + dot(&f.iters, it) + f.constant)
}

/// The instances of every statement for the parameters `p` (`[N, M]`),
/// in the original order: (statement, iterators).
fn instances(m: &Model, p: &[i64]) -> Vec<(usize, Vec<i64>)> {
    let n = p.iter().copied().max().unwrap_or(0);
    let original = Schedule::original(m);
    let mut out = Vec::new();
    for (s, st) in m.statements.iter().enumerate() {
        let d = st.iters.len();
        let mut it = vec![-2i64; d];
        'points: loop {
            let inside = st.domain.iter().any(|piece| {
                piece
                    .ineqs
                    .iter()
                    .all(|f| eval(f, p, &it).is_some_and(|v| v >= 0))
                    && piece.eqs.iter().all(|f| eval(f, p, &it) == Some(0))
            });
            if inside {
                out.push((s, it.clone()));
            }
            for k in (0..d).rev() {
                it[k] += 1;
                if it[k] <= n + 2 {
                    continue 'points;
                }
                it[k] = -2;
            }
            break;
        }
    }
    let time = |(s, it): &(usize, Vec<i64>)| -> Vec<i64> {
        original.dims[*s]
            .iter()
            .map(|f| eval(f, p, it).expect("no locals in the original schedule"))
            .collect()
    };
    out.sort_by_key(time);
    out
}

/// A cell: its array and subscripts.
type Cell = (usize, Vec<i64>);

/// The first instance pair (in the original order, a write among them, on
/// one cell) that `schedule` does not run in the same order; `None` when
/// it keeps them all, or cannot be evaluated (locals).
fn reordered(m: &Model, schedule: &Schedule, p: &[i64]) -> Option<Option<String>> {
    let mut cells: HashMap<Cell, Vec<(usize, bool)>> = HashMap::new();
    let inst = instances(m, p);
    let mut times = Vec::with_capacity(inst.len());
    for (x, (s, it)) in inst.iter().enumerate() {
        let t: Option<Vec<i64>> = schedule.dims[*s].iter().map(|f| eval(f, p, it)).collect();
        times.push(t?);
        for a in &m.statements[*s].accesses {
            let cell: Option<Vec<i64>> = a.index.iter().map(|f| eval(f, p, it)).collect();
            cells
                .entry((a.array.0, cell?))
                .or_default()
                .push((x, a.kind == AccessKind::Write));
        }
    }
    for ((array, cell), list) in &cells {
        for (u, &(a, wa)) in list.iter().enumerate() {
            for &(b, wb) in &list[u + 1..] {
                if a != b && (wa || wb) && times[a] >= times[b] {
                    return Some(Some(format!(
                        "{}{:?} and {}{:?} on {}{cell:?} at [N, M] = {p:?}",
                        m.statements[inst[a].0].name,
                        inst[a].1,
                        m.statements[inst[b].0].name,
                        inst[b].1,
                        m.arrays[*array].name
                    )));
                }
            }
        }
    }
    Some(None)
}

#[test]
fn scheduler_and_checker_on_random_models() {
    let count: usize = std::env::var("POLYRS_MODEL_FUZZ")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let seed: u64 = std::env::var("POLYRS_MODEL_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_1e55);
    let mut r = Rng(seed.max(1));
    let (mut scheduled, mut oracle_checked, mut reversals_caught) = (0, 0, 0);
    for _ in 0..count {
        let text = random_model(&mut r);
        let m = Model::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let deps = compute(&m, DepOptions::default()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let original = Schedule::original(&m);
        let v = verify(&m, &deps, &original).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert!(
            v.is_empty(),
            "the original schedule rejected: {v:?}\n{text}"
        );
        // The scheduler may give up (its limits); what it returns must be legal.
        if let Ok(p) = schedule(&m, &deps, &Options::default()) {
            scheduled += 1;
            let v = verify(&m, &deps, &p.schedule).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert!(
                v.is_empty(),
                "the scheduler's schedule rejected: {v:?}\n{text}"
            );
            for params in [[3, 4], [4, 3]] {
                match reordered(&m, &p.schedule, &params) {
                    Some(Some(pair)) => panic!(
                        "the scheduler's schedule reorders {pair}: {:?}\n{text}",
                        p.schedule.dims
                    ),
                    Some(None) => oracle_checked += 1,
                    None => {}
                }
            }
        }
        // The first statement's innermost loop reversed: when that reorders
        // a dependent pair, the checker must say so.
        let mut back = original.clone();
        let inner = 2 * m.statements[0].iters.len() - 1;
        back.dims[0][inner] = back.dims[0][inner]
            .scale(-1)
            .unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        if let Some(Some(pair)) = reordered(&m, &back, &[4, 4]) {
            let v = verify(&m, &deps, &back).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert!(
                !v.is_empty(),
                "the checker accepts a schedule that reorders {pair}\n{text}"
            );
            reversals_caught += 1;
        }
    }
    eprintln!(
        "model fuzz: {count} models, {scheduled} scheduled, {oracle_checked} schedules checked by \
         enumeration, {reversals_caught} illegal reversals caught"
    );
    assert!(
        scheduled * 10 >= count * 9,
        "the scheduler gave up too often"
    );
    assert!(reversals_caught > 0 && oracle_checked > 0);
}
