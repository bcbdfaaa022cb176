//! Differential test of the math module against isl (through islpy).
//!
//! Random small systems (2–6 dims, 0–2 parameters, equalities, locals) are
//! generated with a fixed seed, the operations are computed here, and every
//! case is printed in isl syntax together with our answer; one run of
//! `python3 tests/isl_oracle.py` per batch checks them all with isl.
//! `POLYRS_ORACLE_CASES` sets the number of cases per operation (default 1000).
//! The test is skipped (with a message) when python3 or islpy is missing;
//! cases where isl itself exceeds its time budget are counted as skipped.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use polyrs::math::{BasicRel, DimKind, MathError, Optimum, Space, Tuple, UnionRel};

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
    fn chance(&mut self, percent: i64) -> bool {
        self.range(0, 99) < percent
    }
}

const PARAMS: [&str; 2] = ["N", "M"];

/// Shape options of a random relation.
#[derive(Clone, Copy)]
struct Shape {
    /// Chance (percent) of a box on every dim.
    bounded: i64,
    /// Fix every parameter to a small value.
    fix_params: bool,
    /// Allow a local (existential).
    locals: bool,
    /// Make locals divisions (so the relation can be subtracted).
    div_locals: bool,
}

fn random_rel(rng: &mut Rng, space: &Space, sh: Shape) -> BasicRel {
    let np = space.n_param();
    let nd = space.n_total();
    let boxed = rng.chance(sh.bounded);
    let nl = if sh.locals && rng.chance(35) { 1 } else { 0 };
    let w = nd + nl;
    let mut eqs = Vec::new();
    let mut ineqs = Vec::new();
    let unit = |c: usize, v: i64| {
        let mut r = vec![0; w + 1];
        r[c] = v;
        r
    };
    for p in 0..np {
        if sh.fix_params {
            let mut r = unit(p, 1);
            r[w] = -rng.range(0, 4);
            eqs.push(r);
        } else {
            let mut r = unit(p, -1);
            r[w] = 8;
            ineqs.push(r);
            ineqs.push(unit(p, 1));
        }
    }
    for c in np..nd {
        if boxed || rng.chance(50) {
            let mut r = unit(c, 1);
            r[w] = rng.range(0, 5);
            ineqs.push(r);
        }
        if boxed || rng.chance(50) {
            let mut r = unit(c, -1);
            r[w] = rng.range(0, 5);
            ineqs.push(r);
        }
    }
    let extra = rng.range(1, 3);
    for _ in 0..extra {
        let mut r: Vec<i64> = (0..nd)
            .map(|c| {
                if c < np {
                    rng.range(-1, 1)
                } else {
                    rng.range(-3, 3)
                }
            })
            .collect();
        r.extend((0..nl).map(|_| 0));
        r.push(rng.range(-6, 6));
        ineqs.push(r);
    }
    if rng.chance(30) {
        let mut r: Vec<i64> = (0..nd)
            .map(|c| if c < np { 0 } else { rng.range(-2, 2) })
            .collect();
        r.extend((0..nl).map(|_| 0));
        r.push(rng.range(-3, 3));
        eqs.push(r);
    }
    if nl == 1 {
        // f(x) over the tuple dims; local e.
        let f: Vec<i64> = (0..nd)
            .map(|c| if c < np { 0 } else { rng.range(-2, 2) })
            .collect();
        let d = rng.range(2, 3);
        let k = rng.range(-2, 2);
        let e = nd;
        if sh.div_locals || rng.chance(50) {
            if rng.chance(50) {
                // f + k = d*e (a congruence)
                let mut r = f.clone();
                r.push(-d);
                r.push(k);
                eqs.push(r);
            } else {
                // d*e <= f + k <= d*e + d - 1, plus a bound on e
                let mut lo = f.clone();
                lo.push(-d);
                lo.push(k);
                let mut hi: Vec<i64> = f.iter().map(|v| -v).collect();
                hi.push(d);
                hi.push(d - 1 - k);
                ineqs.push(lo);
                ineqs.push(hi);
                let mut b = vec![0; w + 1];
                b[e] = -1;
                b[w] = rng.range(0, 3);
                ineqs.push(b);
            }
        } else {
            // general existential: two random constraints mentioning e
            for _ in 0..2 {
                let mut r: Vec<i64> = (0..nd)
                    .map(|c| if c < np { 0 } else { rng.range(-2, 2) })
                    .collect();
                r.push(rng.range(-3, 3));
                r.push(rng.range(-4, 4));
                ineqs.push(r);
            }
        }
    }
    BasicRel::from_constraints(space.clone(), nl, eqs, ineqs).expect("valid random relation")
}

fn params(rng: &mut Rng) -> Vec<&'static str> {
    PARAMS[..rng.range(0, 2) as usize].to_vec()
}

fn set_space(ps: &[&str], name: &str, n: usize) -> Space {
    Space::set(ps, Tuple::anonymous(Some(name), n))
}

fn map_space(ps: &[&str], a: (&str, usize), b: (&str, usize)) -> Space {
    Space::map(
        ps,
        Tuple::anonymous(Some(a.0), a.1),
        Tuple::anonymous(Some(b.0), b.1),
    )
}

fn json_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Returns the single-point set text for a point over `[params | dims]`.
fn point_text(space: &Space, p: &[i64]) -> String {
    let np = space.n_param();
    let coords: Vec<String> = p[np..].iter().map(|v| v.to_string()).collect();
    let name = space.output.name.clone().unwrap_or_default();
    if np == 0 {
        format!("{{ {name}[{}] }}", coords.join(", "))
    } else {
        let fix: Vec<String> = (0..np)
            .map(|i| format!("{} = {}", space.params[i], p[i]))
            .collect();
        format!(
            "[{}] -> {{ {name}[{}] : {} }}",
            space.params.join(", "),
            coords.join(", "),
            fix.join(" and ")
        )
    }
}

/// Builds a random isl text exercising the parser (mod, floor, exists, or, chains).
fn random_text(rng: &mut Rng) -> String {
    let n = rng.range(1, 3) as usize;
    let names = ["i", "j", "k"];
    let dims = &names[..n];
    let lin = |rng: &mut Rng| -> String {
        let mut t = Vec::new();
        for d in dims {
            let c = rng.range(-2, 2);
            if c != 0 {
                t.push(format!("{c}{d}"));
            }
        }
        t.push(rng.range(-3, 3).to_string());
        t.join(" + ")
    };
    let mut cons = Vec::new();
    for d in dims {
        cons.push(format!(
            "-{} <= {d} <= {}",
            rng.range(0, 6),
            rng.range(0, 6)
        ));
    }
    for _ in 0..rng.range(1, 3) {
        let c = match rng.range(0, 5) {
            0 => format!(
                "({}) mod {} = {}",
                lin(rng),
                rng.range(2, 3),
                rng.range(0, 1)
            ),
            1 => format!("floor(({})/{}) <= {}", lin(rng), rng.range(2, 4), lin(rng)),
            2 => format!(
                "exists (e : {} = {}e and e >= {})",
                lin(rng),
                rng.range(2, 3),
                rng.range(-3, 0)
            ),
            3 => format!("({} >= 0 or {} < 0)", lin(rng), lin(rng)),
            4 => format!("ceil(({})/{}) >= {}", lin(rng), rng.range(2, 3), lin(rng)),
            _ => format!("{} >= {}", lin(rng), lin(rng)),
        };
        cons.push(c);
    }
    format!("{{ T[{}] : {} }}", dims.join(", "), cons.join(" and "))
}

struct Case {
    op: &'static str,
    json: String,
}

fn case(op: &'static str, fields: &[(&str, String)]) -> Case {
    let mut s = format!("{{\"op\": {}", json_str(op));
    for (k, v) in fields {
        s.push_str(&format!(", {}: {}", json_str(k), v));
    }
    s.push('}');
    Case { op, json: s }
}

fn s(v: impl std::fmt::Display) -> String {
    json_str(&v.to_string())
}

fn shape(bounded: i64, fix_params: bool, locals: bool, div_locals: bool) -> Shape {
    Shape {
        bounded,
        fix_params,
        locals,
        div_locals,
    }
}

fn generate(n: usize) -> (Vec<Case>, BTreeMap<&'static str, usize>) {
    let mut rng = Rng(0x5EED);
    let mut cases = Vec::new();
    let mut skipped: BTreeMap<&'static str, usize> = BTreeMap::new();
    let u = UnionRel::from_basic;
    for _ in 0..n {
        // Emptiness (parametric, possibly unbounded, with locals).
        let ps = params(&mut rng);
        let sp = set_space(&ps, "S", rng.range(2, 6) as usize);
        let bounded = rng.chance(60);
        let a = random_rel(
            &mut rng,
            &sp,
            shape(if bounded { 100 } else { 0 }, false, true, false),
        );
        let e = a.is_empty().expect("is_empty");
        cases.push(case("is_empty", &[("a", s(&a)), ("ours", s(e))]));

        // Sample validity.
        let a = random_rel(
            &mut rng,
            &sp,
            shape(if bounded { 100 } else { 0 }, false, true, false),
        );
        match a.sample().expect("sample") {
            Some(p) => cases.push(case(
                "contains",
                &[("a", s(&a)), ("b", s(point_text(&sp, &p)))],
            )),
            None => cases.push(case("is_empty", &[("a", s(&a)), ("ours", s(true))])),
        }

        // Lexmin / lexmax with fixed parameters.
        for (op, max) in [("lexmin", false), ("lexmax", true)] {
            let ps = params(&mut rng);
            let sp = set_space(&ps, "S", rng.range(2, 5) as usize);
            let bounded = rng.chance(80);
            let a = random_rel(
                &mut rng,
                &sp,
                shape(if bounded { 100 } else { 0 }, true, true, false),
            );
            let ours = match a.lexopt(max).expect("lexopt") {
                Optimum::Empty => "EMPTY".to_string(),
                Optimum::Unbounded => "UNBOUNDED".to_string(),
                Optimum::Bounded(p) => point_text(&sp, &p),
            };
            cases.push(case(op, &[("a", s(&a)), ("ours", s(ours))]));
        }

        // Projection.
        let ps = params(&mut rng);
        let d = rng.range(2, 6) as usize;
        let sp = set_space(&ps, "S", d);
        let a = random_rel(&mut rng, &sp, shape(70, false, true, false));
        let first = rng.range(0, d as i64 - 1) as usize;
        let cnt = rng.range(1, (d - first).min(3) as i64) as usize;
        let p = a
            .project_out(DimKind::Out, first, cnt)
            .expect("project_out");
        cases.push(case(
            "project",
            &[
                ("a", s(&a)),
                ("first", first.to_string()),
                ("n", cnt.to_string()),
                ("ours", s(&p)),
            ],
        ));

        // Subtraction and intersection.
        let ps = params(&mut rng);
        let sp = set_space(&ps, "S", rng.range(2, 4) as usize);
        let a = random_rel(&mut rng, &sp, shape(70, false, true, false));
        let b = random_rel(&mut rng, &sp, shape(50, false, true, true));
        match u(a.clone()).subtract(&u(b.clone())) {
            Ok(r) => cases.push(case(
                "subtract",
                &[("a", s(&a)), ("b", s(&b)), ("ours", s(&r))],
            )),
            Err(MathError::Unsupported(_)) => *skipped.entry("subtract").or_default() += 1,
            Err(e) => panic!("subtract failed: {e} on {a} minus {b}"),
        }
        let r = a.intersect(&b).expect("intersect");
        cases.push(case(
            "intersect",
            &[("a", s(&a)), ("b", s(&b)), ("ours", s(&r))],
        ));
        // Subset test on a pair where containment is likely.
        let c = a
            .intersect(&random_rel(&mut rng, &sp, shape(0, false, false, false)))
            .expect("intersect");
        match c.is_subset(&a) {
            Ok(v) => cases.push(case(
                "is_subset",
                &[("a", s(&c)), ("b", s(&a)), ("ours", s(v))],
            )),
            Err(MathError::Unsupported(_)) => *skipped.entry("is_subset").or_default() += 1,
            Err(e) => panic!("is_subset failed: {e}"),
        }

        // Apply a map to a set, compose two maps (division locals only:
        // isl is very slow on maps with arbitrary existentials).
        let ps = params(&mut rng);
        let (na, nb, nc) = (
            rng.range(1, 2) as usize,
            rng.range(1, 2) as usize,
            rng.range(1, 2) as usize,
        );
        let set = random_rel(
            &mut rng,
            &set_space(&ps, "A", na),
            shape(70, false, true, true),
        );
        let m1 = random_rel(
            &mut rng,
            &map_space(&ps, ("A", na), ("B", nb)),
            shape(50, false, true, true),
        );
        let m2 = random_rel(
            &mut rng,
            &map_space(&ps, ("B", nb), ("C", nc)),
            shape(50, false, true, true),
        );
        let r = set.apply(&m1).expect("apply");
        cases.push(case(
            "apply",
            &[("a", s(&set)), ("b", s(&m1)), ("ours", s(&r))],
        ));
        let r = m1.apply_range(&m2).expect("apply_range");
        cases.push(case(
            "compose",
            &[("a", s(&m1)), ("b", s(&m2)), ("ours", s(&r))],
        ));

        // Deltas.
        let ps = params(&mut rng);
        let k = rng.range(1, 2) as usize;
        let m = random_rel(
            &mut rng,
            &map_space(&ps, ("A", k), ("A", k)),
            shape(60, false, true, true),
        );
        let r = m.deltas().expect("deltas");
        cases.push(case("deltas", &[("a", s(&m)), ("ours", s(&r))]));

        // Gist: the simplified set must agree with the original inside
        // the context.
        let ps = params(&mut rng);
        let sp = set_space(&ps, "S", rng.range(2, 4) as usize);
        let a = random_rel(&mut rng, &sp, shape(60, false, false, false));
        let ctx = random_rel(&mut rng, &sp, shape(60, false, false, false));
        let g = a.gist(&ctx).expect("gist");
        cases.push(case(
            "gist",
            &[("a", s(&a)), ("b", s(&ctx)), ("ours", s(&g))],
        ));

        // The scheduler's ILP entry point: integer lexmin over x >= 0.
        let nv = rng.range(2, 7) as usize;
        let sp = set_space(&[], "S", nv);
        let mut eqs = Vec::new();
        let mut ineqs = Vec::new();
        for v in 0..nv {
            let mut r = vec![0i64; nv + 1];
            r[v] = 1;
            ineqs.push(r);
            if rng.chance(70) {
                let mut r = vec![0i64; nv + 1];
                r[v] = -1;
                r[nv] = rng.range(3, 12);
                ineqs.push(r);
            }
        }
        for _ in 0..rng.range(1, 6) {
            let mut r: Vec<i64> = (0..nv).map(|_| rng.range(-5, 5)).collect();
            r.push(rng.range(-15, 15));
            ineqs.push(r);
        }
        if rng.chance(30) {
            let mut r: Vec<i64> = (0..nv).map(|_| rng.range(-3, 3)).collect();
            r.push(rng.range(-6, 6));
            eqs.push(r);
        }
        let ours = match polyrs::math::lexmin::lexmin_nonneg(nv, &eqs, &ineqs).expect("lexmin") {
            Optimum::Empty => "EMPTY".to_string(),
            Optimum::Unbounded => "UNBOUNDED".to_string(),
            Optimum::Bounded(p) => point_text(&sp, &p),
        };
        let a = BasicRel::from_constraints(sp.clone(), 0, eqs, ineqs).expect("valid system");
        cases.push(case("ilp_lexmin", &[("a", s(&a)), ("ours", s(ours))]));

        // Parser: isl text versus our parse-and-print.
        let text = random_text(&mut rng);
        let ours = UnionRel::parse(&text).unwrap_or_else(|e| panic!("parse {text}: {e}"));
        cases.push(case("same", &[("a", s(&text)), ("ours", s(&ours))]));
    }
    (cases, skipped)
}

fn isl_available() -> bool {
    Command::new("python3")
        .args(["-c", "import islpy"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

#[test]
fn differential_against_isl() {
    if !isl_available() {
        eprintln!("SKIPPED: python3 with islpy is not available");
        return;
    }
    let n: usize = std::env::var("POLYRS_ORACLE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let t0 = std::time::Instant::now();
    let (cases, mut skipped) = generate(n);
    let t_ours = t0.elapsed();
    let input: String = cases.iter().map(|c| c.json.clone() + "\n").collect();
    if let Ok(path) = std::env::var("POLYRS_ORACLE_DUMP") {
        std::fs::write(&path, &input).expect("dump cases");
        eprintln!(
            "wrote {} cases to {path}; not running the oracle",
            cases.len()
        );
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/isl_oracle.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn python3");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        stdin.write_all(input.as_bytes()).expect("write cases");
    });
    let reader = BufReader::new(child.stdout.take().expect("stdout"));
    let replies: Vec<String> = reader.lines().map(|l| l.expect("read reply")).collect();
    writer.join().expect("writer thread");
    assert!(
        child.wait().expect("oracle exit").success(),
        "oracle failed"
    );
    assert_eq!(
        replies.len(),
        cases.len(),
        "oracle answered a different number of cases"
    );
    let mut stats: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for (c, r) in cases.iter().zip(&replies) {
        let e = stats.entry(c.op).or_default();
        e.0 += 1;
        if r.starts_with("SKIP") {
            *skipped.entry(c.op).or_default() += 1;
        } else if r != "OK" {
            e.1 += 1;
            failures.push(format!("{}\n  -> {r}", c.json));
        }
    }
    eprintln!(
        "ours: {:.1}s, total: {:.1}s",
        t_ours.as_secs_f64(),
        t0.elapsed().as_secs_f64()
    );
    for (op, (total, bad)) in &stats {
        eprintln!(
            "{op:>10}: {total} cases, {bad} disagreements, {} skipped (ours unsupported or isl timeout)",
            skipped.get(op).copied().unwrap_or(0)
        );
    }
    for f in failures.iter().take(10) {
        eprintln!("DISAGREEMENT {f}");
    }
    assert!(
        failures.is_empty(),
        "{} disagreements with isl",
        failures.len()
    );
}
